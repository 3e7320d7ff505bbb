import { and, desc, eq, isNull, lt, ne, or } from 'drizzle-orm';
import type { Bindings } from '../../../env';
import { moves, shards, workspaces } from '../../control-schema';
import { invalidateKeyCache } from '../../key-cache';
import type { QueueTask } from '../../manifest';
import { SharedErrors } from '../../shared-errors';
import { failedOn, uniqueOn } from '../constraints';
import { nowIso } from '../db';
import { restartFloor, readReplicasOn } from '../floors';
import { controlDb, isShard, primaryBookmark, shardDatabase } from '../shards';
import { type Inventory, type MovedTable, readInventory } from './inventory';
import { countRows, deleteByKeys, deleteChunk, putRows, readByKeys, readChunk, rowsBeyond } from './rows';
import { captureTriggers, captureTriggersOn, dropTrigger, FENCE_PREFIX, fenceTriggers } from './triggers';

/**
 * Online workspace moves: a state machine in the control plane (`moves`), driven one step at a
 * time by queue messages (`workspace-move`), each step bounded and idempotent, so a crash or a
 * redelivered message resumes where the last recorded step left off. docs/scale-out.md tells the
 * whole story: copy, catch up, switch behind a fence, keep the old copy fenced while stale routes
 * drain, clear it and leave the workspace marked `gone` there (the fence refuses its writes for
 * good); or, on failure, unwind and stay where it was.
 */

export type Move = typeof moves.$inferSelect;
export type MoveView = {
  id: string;
  workspace_id: string;
  from: string;
  to: string;
  status: Move['status'];
  copied_rows: number;
  error: string | null;
  started_at: string;
  finished_at: string | null;
};

export const MOVE_KIND = 'workspace-move';
export type MoveMessage = { kind: typeof MOVE_KIND; move_id: string };

/** Tables the modules declare a move does not copy (`notMoved` in their manifests), handed down by the wiring. */
let notMoved: ReadonlySet<string> = new Set();
export const configureMoves = (tables: Iterable<string>) => {
  notMoved = new Set(tables);
};

/** Change-log entries replayed per statement batch, and the backlog under which the switch starts. */
const LOG_CHUNK = 200;
const SWITCH_BACKLOG = 1_000;
/** Catch-up chunks before the switch starts whatever the backlog (a workspace written about as fast as it is replayed). */
const MAX_CATCH_UP_CHUNKS = 200;
/** Chunks (each a read, a write and a record) one message takes at most: far under D1's 1,000 queries an invocation. */
const CHUNKS_PER_STEP = 60;
/** A step holds its move this long (three times its budget); a crashed step's move is taken up again after it, within two minutes with the minute's sweep. */
const LEASE_MS = 60_000;
/** A step stops taking new chunks after this long, far inside its lease: two steps of one move never overlap. */
const STEP_BUDGET_MS = 20_000;
/** Failed steps in a row before the move fails and unwinds. */
const MAX_ATTEMPTS = 3;
/** DDL statements per batch when installing or dropping triggers. */
const DDL_BATCH = 50;

/** Rows one statement copies or deletes. */
const CHUNK_ROWS = 500;
export const clearAfterSeconds = (env: Bindings) => {
  const n = Number(env.MOVE_CLEAR_AFTER_SECONDS ?? 30);
  return Number.isFinite(n) && n >= 0 ? n : 30;
};

export const moveView = (m: Move): MoveView => ({
  id: m.id,
  workspace_id: m.workspaceId,
  from: m.fromShard,
  to: m.toShard,
  status: m.status,
  copied_rows: m.copiedRows,
  error: m.error,
  started_at: m.startedAt,
  finished_at: m.finishedAt,
});

const oneRunning = uniqueOn(moves.workspaceId);

/** POST /admin/v1/workspaces/{ws}/move: records the move and hands its first step to the queue. */
export async function startMove(env: Bindings, workspaceId: string, to: string): Promise<MoveView> {
  const control = controlDb(env);
  const [[ws], [target], [running]] = await control.batch([
    control.select({ shard: workspaces.shard }).from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1),
    control.select({ state: shards.state }).from(shards).where(eq(shards.binding, to)).limit(1),
    control
      .select({ id: moves.id })
      .from(moves)
      .where(and(eq(moves.workspaceId, workspaceId), ne(moves.phase, 'finished')))
      .limit(1),
  ]);
  if (!ws) throw SharedErrors.moveWorkspaceNotFound();
  if (!isShard(env, to)) throw SharedErrors.shardNotFound({ binding: to.slice(0, 100) });
  if (ws.shard === to) throw SharedErrors.moveToSameShard({ ws: workspaceId, binding: to });
  if (target?.state === 'closed') throw SharedErrors.moveToClosedShard({ binding: to });
  if (running) throw SharedErrors.moveRunning({ ws: workspaceId, id: running.id });
  const now = nowIso();
  const move: Move = {
    id: crypto.randomUUID(),
    workspaceId,
    fromShard: ws.shard,
    toShard: to,
    status: 'copying',
    phase: 'copying',
    cursorTable: null,
    cursorRowid: 0,
    copiedRows: 0,
    rounds: 0,
    attempts: 0,
    error: null,
    leaseUntil: null,
    clearAfter: null,
    startedAt: now,
    finishedAt: null,
    updatedAt: now,
  };
  try {
    await control.insert(moves).values(move);
  } catch (err) {
    if (!failedOn(err, oneRunning)) throw err;
    const [other] = await control
      .select({ id: moves.id })
      .from(moves)
      .where(and(eq(moves.workspaceId, workspaceId), ne(moves.phase, 'finished')))
      .limit(1);
    throw SharedErrors.moveRunning({ ws: workspaceId, id: other?.id ?? 'unknown' });
  }
  await enqueue(env, move.id);
  return moveView(move);
}

export async function getMove(env: Bindings, id: string): Promise<MoveView> {
  const [move] = await controlDb(env).select().from(moves).where(eq(moves.id, id)).limit(1);
  if (!move) throw SharedErrors.moveNotFound();
  return moveView(move);
}

/** A workspace's moves, newest first. */
export async function listMoves(env: Bindings, workspaceId: string, limit: number): Promise<MoveView[]> {
  const rows = await controlDb(env).select().from(moves).where(eq(moves.workspaceId, workspaceId)).orderBy(desc(moves.startedAt)).limit(limit);
  return rows.map(moveView);
}

const enqueue = (env: Bindings, moveId: string, delaySeconds = 0) =>
  env.SWEEP_QUEUE.send(
    { kind: MOVE_KIND, move_id: moveId } satisfies MoveMessage,
    delaySeconds > 0 ? { delaySeconds: Math.ceil(delaySeconds) } : undefined,
  );

/**
 * Moves whose step was lost (a message dropped, a consumer that died): unfinished, not held, and
 * untouched for a lease. Each shard's sweep sends them a message again, for moves off that shard.
 */
export async function redriveMoves(env: Bindings, fromShard: string): Promise<number> {
  const stale = new Date(Date.now() - LEASE_MS).toISOString();
  const lost = await controlDb(env)
    .select({ id: moves.id })
    .from(moves)
    .where(
      and(
        ne(moves.phase, 'finished'),
        eq(moves.fromShard, fromShard),
        lt(moves.updatedAt, stale),
        or(isNull(moves.leaseUntil), lt(moves.leaseUntil, nowIso())),
      ),
    )
    .limit(20);
  await Promise.all(lost.map((m) => enqueue(env, m.id)));
  return lost.length;
}

/**
 * A table a migration adds after workspaces left a shard has no fence there until a move creates
 * it: each shard's sweep creates the missing fence triggers while the shard holds any mark (one
 * query when it holds none), so a stale route's write to the new table is refused too.
 * Returns the tables fenced.
 */
export async function fenceNewTables(env: Bindings, shard: string): Promise<string[]> {
  const db = shardDatabase(env, shard);
  if (!(await db.prepare('SELECT 1 AS one FROM move_marks LIMIT 1').first())) return [];
  const [inv, { results }] = await Promise.all([
    readInventory(db, notMoved),
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND substr(name, 1, length(?1)) = ?1")
      .bind(FENCE_PREFIX)
      .all<{ name: string }>(),
  ]);
  const fenced = new Set(results.map((r) => r.name));
  const open = inv.moved.filter((t) => !['i', 'u', 'd'].every((kind) => fenced.has(`${FENCE_PREFIX}${kind}_${t.name}`)));
  await ddl(db, open.flatMap(fenceTriggers));
  return open.map((t) => t.name);
}

/** What one step did: `next` false when the move needs no further message (finished, or another step holds it). */
export type StepOutcome = { phase: Move['phase'] | 'held'; next: boolean; delaySeconds?: number };

/** The sweep queue's `workspace-move` messages: one bounded step each, then the message for the next one. */
export const moveTask: QueueTask = {
  kind: MOVE_KIND,
  run: async (env, body: MoveMessage) => {
    const outcome = await runMoveStep(env, body.move_id);
    if (outcome.next) await enqueue(env, body.move_id, outcome.delaySeconds);
  },
};

/**
 * One step of a move: takes its lease (a step already running elsewhere keeps it, and this one
 * does nothing), advances the phase by a bounded amount of work, records where it is, releases.
 * A failing step is counted; past `MAX_ATTEMPTS` in a row the move fails and unwinds.
 */
export async function runMoveStep(env: Bindings, moveId: string, chunkRows = CHUNK_ROWS): Promise<StepOutcome> {
  const move = await claim(env, moveId);
  if (!move) return { phase: 'held', next: false };
  try {
    const outcome = await advance(env, { ...move, until: Date.now() + STEP_BUDGET_MS }, chunkRows);
    // A step that went through clears a retried step's error; a failed move keeps its reason.
    await record(env, move.id, { leaseUntil: null, attempts: 0, ...(move.status === 'failed' ? {} : { error: null }) });
    return outcome;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    console.error('workspace move step failed', move.id, move.phase, err);
    const attempts = move.attempts + 1;
    const fatal = err instanceof MoveFailure || attempts >= MAX_ATTEMPTS;
    if (fatal && canUnwind(move)) {
      await record(env, move.id, {
        status: 'failed',
        phase: 'unwinding',
        error: message.slice(0, 500),
        finishedAt: nowIso(),
        leaseUntil: null,
        cursorTable: null,
        cursorRowid: 0,
      });
      return { phase: 'unwinding', next: true };
    }
    await record(env, move.id, { attempts, error: message.slice(0, 500), leaseUntil: null });
    return { phase: move.phase, next: true, delaySeconds: 5 * attempts };
  }
}

/** A move fails (and unwinds) only before its switch: after it, the new shard holds the workspace and the machine can only finish. */
const canUnwind = (m: Move) => m.phase === 'copying' || m.phase === 'catching_up' || m.phase === 'switching';

/** A reason to fail the move at once rather than try the step again. */
class MoveFailure extends Error {}

async function claim(env: Bindings, moveId: string): Promise<Move | null> {
  const now = nowIso();
  const [move] = await controlDb(env)
    .update(moves)
    .set({ leaseUntil: new Date(Date.now() + LEASE_MS).toISOString(), updatedAt: now })
    .where(and(eq(moves.id, moveId), ne(moves.phase, 'finished'), or(isNull(moves.leaseUntil), lt(moves.leaseUntil, now))))
    .returning();
  return move ?? null;
}

async function record(env: Bindings, moveId: string, set: Partial<Move>): Promise<void> {
  await controlDb(env)
    .update(moves)
    .set({ ...set, updatedAt: nowIso() })
    .where(eq(moves.id, moveId));
}

/** The move as a step runs it: `until`, when the step stops taking new chunks. */
type Running = Move & { until: number };
const spent = (move: Running) => Date.now() > move.until;

async function advance(env: Bindings, move: Running, chunkRows: number): Promise<StepOutcome> {
  const source = shardDatabase(env, move.fromShard);
  const target = shardDatabase(env, move.toShard);
  const inventory = await readInventory(source, notMoved);
  switch (move.phase) {
    case 'copying':
      return copy(env, move, source, target, inventory, chunkRows);
    case 'catching_up':
      return catchUp(env, move, source, target, inventory);
    case 'switching':
      return switchOver(env, move, source, target, inventory);
    case 'draining':
      return drain(env, move, source);
    case 'clearing':
      return clear(env, move, source, inventory, chunkRows);
    case 'unwinding':
      return unwind(env, move, source, target, inventory, chunkRows);
    default:
      return { phase: move.phase, next: false };
  }
}

/**
 * Marks a workspace's rows on a shard (see `moveMarks`). A running move's mark is never taken over
 * by another move; a `gone` mark, left by a finished one, is: the workspace comes back.
 */
const mark = (db: D1Database, move: Move, role: 'departing' | 'fenced' | 'clearing' | 'arriving' | 'gone') =>
  db
    .prepare(
      "INSERT INTO move_marks (workspace_id, move_id, role) VALUES (?1, ?2, ?3) ON CONFLICT (workspace_id) DO UPDATE SET role = excluded.role, move_id = excluded.move_id WHERE move_marks.move_id = excluded.move_id OR move_marks.role = 'gone'",
    )
    .bind(move.workspaceId, move.id, role);

const unmark = (db: D1Database, move: Move) =>
  db.prepare('DELETE FROM move_marks WHERE workspace_id = ?1 AND move_id = ?2').bind(move.workspaceId, move.id);

async function ddl(db: D1Database, statements: string[]): Promise<void> {
  for (let i = 0; i < statements.length; i += DDL_BATCH) await db.batch(statements.slice(i, i + DDL_BATCH).map((s) => db.prepare(s)));
}

/**
 * The copy: first the capture and the fence (the shard's fence triggers, created once and shared by
 * every move, still open for this workspace), then each table in chunks, parents first.
 */
async function copy(env: Bindings, move: Running, source: D1Database, target: D1Database, inv: Inventory, limit: number): Promise<StepOutcome> {
  let table = move.cursorTable;
  let after = move.cursorRowid;
  let copied = move.copiedRows;
  if (table === null) {
    await target.batch([mark(target, move, 'arriving')]);
    await source.batch([mark(source, move, 'departing')]);
    await ddl(
      source,
      inv.moved.flatMap((t) => [...captureTriggers(move.id, move.workspaceId, t), ...fenceTriggers(t)]),
    );
    table = inv.moved[0]?.name ?? '';
    after = 0;
    await record(env, move.id, { cursorTable: table, cursorRowid: 0 });
  }
  for (let chunk = 0; chunk < CHUNKS_PER_STEP && !spent(move); chunk++) {
    const i = inv.moved.findIndex((t) => t.name === table);
    if (i < 0) {
      await record(env, move.id, { phase: 'catching_up', cursorTable: null, cursorRowid: 0 });
      return { phase: 'catching_up', next: true };
    }
    const t = inv.moved[i];
    const { rows, next } = await readChunk(source, t, move.workspaceId, after, limit);
    if (rows.length) await target.batch([deferForeignKeys(target), ...putRows(target, t, move.workspaceId, rows)]);
    copied += rows.length;
    after = next;
    if (rows.length < limit && !(await rowsBeyond(source, t.name, after))) {
      table = inv.moved[i + 1]?.name ?? '';
      after = 0;
    }
    await record(env, move.id, { cursorTable: table, cursorRowid: after, copiedRows: copied });
  }
  return { phase: 'copying', next: true };
}

/** Child rows may be written before the parent they name within one batch (a replayed pipeline and its stages). */
const deferForeignKeys = (db: D1Database) => db.prepare('PRAGMA defer_foreign_keys = ON');

/**
 * Replays up to `LOG_CHUNK` logged writes, oldest first: each logged row's current version is
 * written to the target, or deleted there when the source no longer has it; then those log
 * entries go. Entries logged while this ran have higher numbers and stay for the next chunk.
 */
async function replayChunk(move: Running, source: D1Database, target: D1Database, inv: Inventory): Promise<number> {
  const { results: log } = await source
    .prepare('SELECT seq, tbl, key FROM move_changes WHERE move_id = ?1 ORDER BY seq LIMIT ?2')
    .bind(move.id, LOG_CHUNK)
    .all<{ seq: number; tbl: string; key: string }>();
  if (!log.length) return 0;
  const keys = new Map<string, Set<string>>();
  for (const entry of log) {
    const set = keys.get(entry.tbl) ?? new Set<string>();
    set.add(JSON.stringify(JSON.parse(entry.key)));
    keys.set(entry.tbl, set);
  }
  const tables = inv.moved.filter((t) => keys.has(t.name));
  const found = tables.length
    ? await source.batch<Record<string, unknown>>(tables.map((t) => readByKeys(source, t, move.workspaceId, [...keys.get(t.name)!])))
    : [];
  const puts: D1PreparedStatement[] = [];
  const deletes: D1PreparedStatement[] = [];
  tables.forEach((t, i) => {
    const rows = found[i].results;
    const present = new Set(rows.map((r) => keyText(t, r)));
    const gone = [...keys.get(t.name)!].filter((k) => !present.has(k));
    if (gone.length) deletes.unshift(deleteByKeys(target, t, move.workspaceId, gone));
    if (rows.length) puts.push(...putRows(target, t, move.workspaceId, rows));
  });
  if (deletes.length || puts.length) await target.batch([deferForeignKeys(target), ...deletes, ...puts]);
  await source.prepare('DELETE FROM move_changes WHERE move_id = ?1 AND seq <= ?2').bind(move.id, log.at(-1)!.seq).run();
  return log.length;
}

const keyText = (t: MovedTable, row: Record<string, unknown>) => JSON.stringify(t.key.map((k) => row[k] ?? null));

const backlog = async (source: D1Database, moveId: string) =>
  (await source.prepare('SELECT count(*) AS n FROM move_changes WHERE move_id = ?1').bind(moveId).first<{ n: number }>())?.n ?? 0;

/** Catch-up: replays the log while writes go on, until what is left is small enough to replay behind the fence. */
async function catchUp(env: Bindings, move: Running, source: D1Database, target: D1Database, inv: Inventory): Promise<StepOutcome> {
  let chunk = 0;
  for (; chunk < CHUNKS_PER_STEP && !spent(move); chunk++) {
    const left = await backlog(source, move.id);
    if (left <= SWITCH_BACKLOG || move.rounds + chunk >= MAX_CATCH_UP_CHUNKS) {
      // Recorded before the fence goes up, so a fence is never up while the move says `copying`; each switch step raises it again.
      await record(env, move.id, { status: 'switching', phase: 'switching', rounds: move.rounds + chunk });
      await source.batch([mark(source, move, 'fenced')]);
      return { phase: 'switching', next: true };
    }
    await replayChunk(move, source, target, inv);
  }
  await record(env, move.id, { rounds: move.rounds + chunk });
  return { phase: 'catching_up', next: true };
}

/**
 * The switch: the fence is up (every write of the workspace on the source fails whole), so the
 * log only shrinks. It is replayed to the end; the copy is checked table by table against the
 * source; then the control plane names the new shard, in the same batch that marks the move done.
 */
async function switchOver(env: Bindings, move: Running, source: D1Database, target: D1Database, inv: Inventory): Promise<StepOutcome> {
  await source.batch([mark(source, move, 'fenced')]);
  for (let chunk = 0; chunk < CHUNKS_PER_STEP && !spent(move); chunk++) {
    if ((await replayChunk(move, source, target, inv)) === 0) return flip(env, move, source, target, inv);
  }
  return { phase: 'switching', next: true };
}

async function flip(env: Bindings, move: Running, source: D1Database, target: D1Database, inv: Inventory): Promise<StepOutcome> {
  const names = inv.moved.map((t) => t.name);
  const [from, to] = await Promise.all([countRows(source, names, move.workspaceId), countRows(target, names, move.workspaceId)]);
  const differ = names.filter((t) => from[t] !== to[t]);
  if (differ.length) {
    throw new MoveFailure(`The copy differs from the source in ${differ.map((t) => `${t} (${to[t]} of ${from[t]} rows)`).join(', ')}`);
  }
  await ddl(source, (await captureTriggersOn(source, move.id)).map(dropTrigger));
  await target.batch([unmark(target, move)]);
  const now = nowIso();
  const clearAfter = new Date(Date.now() + clearAfterSeconds(env) * 1000).toISOString();
  const control = controlDb(env);
  const [flipped] = await control.batch([
    control
      .update(workspaces)
      .set({ shard: move.toShard, updatedAt: now })
      .where(and(eq(workspaces.id, move.workspaceId), eq(workspaces.shard, move.fromShard)))
      .returning({ id: workspaces.id }),
    control
      .update(moves)
      .set({ status: 'done', phase: 'draining', finishedAt: now, clearAfter, cursorTable: null, cursorRowid: 0, updatedAt: now })
      .where(and(eq(moves.id, move.id), eq(moves.phase, 'switching'))),
  ]);
  if (flipped.length === 0) {
    const [ws] = await control.select({ shard: workspaces.shard }).from(workspaces).where(eq(workspaces.id, move.workspaceId));
    if (ws?.shard !== move.toShard) throw new MoveFailure('The workspace left its shard during the move');
  }
  await floorOnTarget(env, move).catch((err) => console.error('workspace move: floor not moved yet', move.id, err));
  // This location routes the workspace to its new shard at once; others within the key cache's lifetime.
  await invalidateKeyCache().catch((err) => console.error('workspace move: key cache not invalidated', move.id, err));
  return { phase: 'draining', next: true, delaySeconds: clearAfterSeconds(env) };
}

/**
 * With read replication on, the workspace's read floor is a bookmark of the shard it left, which
 * the new shard cannot compare: it starts over at the new shard's primary, after the switch (each
 * drain step again, until it took).
 */
async function floorOnTarget(env: Bindings, move: Running): Promise<void> {
  if (readReplicasOn(env)) await restartFloor(env, move.workspaceId, await primaryBookmark(env, move.toShard));
}

/** After the switch: the old copy stays, fenced, until every stale route to it has caught up. */
async function drain(env: Bindings, move: Running, source: D1Database): Promise<StepOutcome> {
  await floorOnTarget(env, move);
  const wait = (Date.parse(move.clearAfter ?? '') - Date.now()) / 1000;
  if (wait > 0) return { phase: 'draining', next: true, delaySeconds: wait };
  await source.batch([mark(source, move, 'clearing')]);
  await record(env, move.id, { phase: 'clearing', cursorTable: null, cursorRowid: 0 });
  return { phase: 'clearing', next: true };
}

/**
 * Clearing the old copy: deletes never shared with the live workspace, only on the shard it left.
 * Its mark ends `gone`, never removed: a write a stale route sends here later still meets the fence.
 */
async function clear(env: Bindings, move: Running, source: D1Database, inv: Inventory, limit: number): Promise<StepOutcome> {
  const [ws] = await controlDb(env).select({ shard: workspaces.shard }).from(workspaces).where(eq(workspaces.id, move.workspaceId));
  if (ws && ws.shard === move.fromShard) throw new Error('Refusing to clear the shard the workspace lives on');
  const done = await deleteAll(env, move, source, inv, limit);
  if (!done) return { phase: 'clearing', next: true };
  await ddl(source, (await captureTriggersOn(source, move.id)).map(dropTrigger));
  await source.batch([mark(source, move, 'gone'), source.prepare('DELETE FROM move_changes WHERE move_id = ?1').bind(move.id)]);
  await record(env, move.id, { phase: 'finished', cursorTable: null, cursorRowid: 0 });
  return { phase: 'finished', next: false };
}

/**
 * Unwinding a failed move: the source is as it was (its capture and its mark go, writes go on), and
 * the partial copy is deleted from the target, which never served the workspace. The target's mark
 * ends `gone`: no route names that shard for the workspace, and one it had left before keeps refusing.
 */
async function unwind(env: Bindings, move: Running, source: D1Database, target: D1Database, inv: Inventory, limit: number): Promise<StepOutcome> {
  const [ws] = await controlDb(env).select({ shard: workspaces.shard }).from(workspaces).where(eq(workspaces.id, move.workspaceId));
  if (ws && ws.shard === move.toShard) throw new Error('Refusing to unwind a move whose workspace lives on its target');
  if (move.cursorTable === null) {
    await ddl(source, (await captureTriggersOn(source, move.id)).map(dropTrigger));
    await source.batch([unmark(source, move), source.prepare('DELETE FROM move_changes WHERE move_id = ?1').bind(move.id)]);
  }
  const done = await deleteAll(env, move, target, inv, limit);
  if (!done) return { phase: 'unwinding', next: true };
  await target.batch([mark(target, move, 'gone')]);
  await record(env, move.id, { phase: 'finished', cursorTable: null, cursorRowid: 0 });
  return { phase: 'finished', next: false };
}

/**
 * Deletes the workspace's rows from `db`, children before parents, then the tables whose rows
 * the deletes' triggers derive; resumable from the move's cursor. True once no row is left.
 */
async function deleteAll(env: Bindings, move: Running, db: D1Database, inv: Inventory, limit: number): Promise<boolean> {
  const order = [...inv.moved.map((t) => t.name).reverse(), ...inv.rebuilt];
  let table = move.cursorTable ?? order[0];
  let after = move.cursorRowid;
  for (let chunk = 0; chunk < CHUNKS_PER_STEP && !spent(move); chunk++) {
    const i = order.indexOf(table);
    if (i < 0) {
      const left = await countRows(db, order, move.workspaceId);
      if (Object.values(left).every((n) => n === 0)) return true;
      table = order[0];
      after = 0;
      continue;
    }
    const { deleted, next } = await deleteChunk(db, table, move.workspaceId, after, limit);
    after = next;
    if (deleted < limit && !(await rowsBeyond(db, table, after))) {
      table = order[i + 1] ?? '';
      after = 0;
    }
    await record(env, move.id, { cursorTable: table, cursorRowid: after });
  }
  return false;
}
