import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { type Db, runBatch } from '../../platform/d1/db';
import { readAll } from '../../platform/d1/operation';
import { rawRun } from '../../platform/d1/raw-query';
import { workspaceDb } from '../../platform/d1/shards';
import type { QueueMessageBody } from '../../platform/manifest';
import { contactsForScoring, engineScoresStatement } from '../contacts';
import { DAY_MS, scoreContact, type StoredSignal } from './engine';
import { scoreSignals } from './schema';
import {
  type Config,
  configChanged,
  configOf,
  forgetContacts,
  pendingContacts,
  pruneSignals,
  readConfig,
  sameConfig,
  scoredAt,
  settleSignals,
  signalsOf,
} from './store';

/** Contacts scored per batch pair (one read, one write), and passes one message may run before it hands the rest on. */
export const CONTACTS_PER_PASS = 100;
const PASSES_PER_MESSAGE = 10;

export const SIGNALS_KIND = 'scoring-signals';

/**
 * Scores `ids` at `now` (one read batch, one write batch): each existing contact's `lead_score` (engine-owned),
 * when it was scored and when its decay is next due (a day on, while it keeps a decaying signal), the signals read
 * settled and the spent ones pruned. Idempotent: a score is computed from the stored signals, never added to.
 */
export async function scoreContacts(db: Db, workspaceId: string, config: Config, ids: readonly string[], now = Date.now()): Promise<number> {
  if (ids.length === 0) return 0;
  const { signals, rows } = await readAll(db, { signals: signalsOf(db, workspaceId, ids), rows: contactsForScoring(db, workspaceId, ids) });
  const byContact = new Map<string, StoredSignal[]>();
  for (const s of signals) byContact.set(s.contact_id, [...(byContact.get(s.contact_id) ?? []), s]);
  const at = new Date(now).toISOString();
  const due = new Date(now + DAY_MS).toISOString();
  const scores: { id: string; score: number }[] = [];
  const scored: { id: string; due: string | null }[] = [];
  const spent: string[] = [];
  for (const row of rows) {
    const id = row.id as string;
    const own = byContact.get(id) ?? [];
    const result = scoreContact(own, row, config.rules, config.halfLifeDays, now);
    scores.push({ id, score: result.score });
    spent.push(...result.spent);
    const decaying = config.halfLifeDays !== null && own.length > result.spent.length;
    scored.push({ id, due: decaying ? due : null });
  }
  const settled = signals.filter((s) => s.pending === 1).map((s) => s.id);
  const gone = ids.filter((id) => !rows.some((row) => row.id === id));
  const written = runBatch(db, [
    sameConfig(db, workspaceId, config),
    ...(gone.length ? forgetContacts(db, workspaceId, gone) : []),
    engineScoresStatement(db, workspaceId, scores),
    scoredAt(db, workspaceId, scored, at),
    settleSignals(db, workspaceId, settled),
    pruneSignals(db, workspaceId, ids, spent),
  ]);
  try {
    await written;
  } catch (err) {
    // The rules changed while this pass computed: the rescoring they started scores these contacts; their signals stay pending.
    if (configChanged(err)) return 0;
    throw err;
  }
  return rows.length;
}

/** One pass over a workspace's contacts with uncounted signals; true when more may be waiting. */
export async function scorePending(db: Db, workspaceId: string): Promise<{ scored: number; more: boolean }> {
  const read = await readAll(db, { config: readConfig(db, workspaceId), pending: pendingContacts(db, workspaceId, CONTACTS_PER_PASS) });
  const config = configOf(read.config[0]);
  const ids = read.pending.map((p) => p.contact_id);
  // Signals recorded just before scoring was switched off are left uncounted: the score keeps its last value.
  if (!config?.enabled) {
    if (ids.length) await runBatch(db, [settleAllPending(db, workspaceId)]);
    return { scored: 0, more: false };
  }
  const scored = await scoreContacts(db, workspaceId, config, ids);
  return { scored, more: ids.length === CONTACTS_PER_PASS };
}

const settleAllPending = (db: Db, workspaceId: string) =>
  rawRun(db, sql`UPDATE ${scoreSignals} SET pending = 0 WHERE workspace_id = ${workspaceId} AND pending = 1`);

export type SignalsMessage = { kind: typeof SIGNALS_KIND; workspace_id: string };

/** After a batch that may have recorded signals: one message per workspace (its consumer coalesces them). */
export async function signalsRecorded(env: Bindings, workspaceIds: string[]): Promise<void> {
  await env.EVENTS_QUEUE.sendBatch(workspaceIds.map((id) => ({ body: { kind: SIGNALS_KIND, workspace_id: id } satisfies SignalsMessage })));
}

/**
 * The consumer of signal messages: a batch's messages for one workspace are one piece of work, a few passes of
 * `CONTACTS_PER_PASS` contacts; what is left after them goes back on the queue as one message.
 */
export async function handleSignalMessages(messages: Message<QueueMessageBody>[], env: Bindings): Promise<void> {
  const byWorkspace = new Map<string, Message<QueueMessageBody>[]>();
  for (const m of messages) {
    const id = String((m.body as SignalsMessage).workspace_id);
    byWorkspace.set(id, [...(byWorkspace.get(id) ?? []), m]);
  }
  await Promise.all(
    [...byWorkspace].map(async ([workspaceId, mine]) => {
      try {
        const db = await workspaceDb(env, workspaceId);
        let more = false;
        if (db) {
          for (let pass = 0; pass < PASSES_PER_MESSAGE; pass++) {
            ({ more } = await scorePending(db, workspaceId));
            if (!more) break;
          }
        }
        if (more) await signalsRecorded(env, [workspaceId]);
        for (const m of mine) m.ack();
      } catch (err) {
        console.error('scoring pass failed', workspaceId, err);
        for (const m of mine) m.retry();
      }
    }),
  );
}
