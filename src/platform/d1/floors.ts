import type { Bindings } from '../../env';
import { clientOf, type Db } from './db';
import type { Queryable } from './queryable';
import { mayWrite } from './write-gate';

/**
 * Read-your-writes per workspace. With D1 read replication on, a read may be served
 * by a replica; it starts its session at the workspace's floor: the bookmark of the
 * workspace's newest write on its shard, whoever made it (any API key, an operator
 * route, a hosted page, a provider webhook, a queue consumer, a sweep). The floor is
 * stored by the workspace's floor object (a `RATE_LIMITER` instance named
 * `floor:<workspace id>`, ../durable-objects/rate-limiter.ts), in its storage, so a
 * restart keeps it. With replication off every read starts at the primary, which
 * holds every write: nothing is recorded and nothing is asked.
 */
export const readReplicasOn = (env: Bindings) => env.D1_READ_REPLICATION === 'auto';

const floorObject = (env: Bindings, workspaceId: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`floor:${workspaceId}`));

/** The workspace's floor (null before its first write), or undefined when its object cannot be reached. */
export async function readFloor(env: Bindings, workspaceId: string): Promise<string | null | undefined> {
  try {
    return await floorObject(env, workspaceId).floor();
  } catch (err) {
    console.error('write floor unavailable', workspaceId, err);
    return undefined;
  }
}

/** Moves the workspace's floor up to `bookmark` (never down). Best effort: an outage only makes later reads of a replica miss the write. */
export async function raiseFloor(env: Bindings, workspaceId: string, bookmark: string): Promise<void> {
  try {
    await floorObject(env, workspaceId).raise(bookmark);
  } catch (err) {
    console.error('write floor not recorded', workspaceId, err);
  }
}

/**
 * After a workspace moved shards: its floor becomes `bookmark`, of the new shard (not best effort:
 * a move does not finish its switch until the floor is on the new shard).
 */
export async function restartFloor(env: Bindings, workspaceId: string, bookmark: string): Promise<void> {
  await floorObject(env, workspaceId).restart(bookmark);
}

/** Bookmarks sort lexicographically, oldest first: the newer of two, ignoring absent ones. */
export function newerBookmark(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b || null;
  if (!b) return a;
  return a >= b ? a : b;
}

/** A D1 session whose statements are watched: whether one that may write was prepared, and for which workspaces. */
type Watched = { bookmark: () => string | null; wrote: boolean; workspaces: Set<string> };

/** Watched sessions by the client their handle runs on (`clientOf`), so any handle derived from one finds it. */
const watched = new WeakMap<object, Watched>();

/**
 * `queries` (a session, or a wrapper of one) with its writes watched. A statement
 * counts as a write when its SQL may write (./write-gate.ts), as soon as it is
 * prepared: a write that then fails only costs an extra floor record.
 */
export function watchWrites(queries: Queryable, bookmark: () => string | null, workspaceId?: string): { client: Queryable; watch: Watched } {
  const watch: Watched = { bookmark, wrote: false, workspaces: new Set(workspaceId ? [workspaceId] : []) };
  const client: Queryable = {
    prepare: (query) => {
      if (!watch.wrote && mayWrite(query)) watch.wrote = true;
      return queries.prepare(query);
    },
    batch: (statements) => queries.batch(statements),
  };
  watched.set(client, watch);
  return { client, watch };
}

/** `client`, a wrapper of `base` (./carried.ts), is watched as `base` is: its handles find the same session. */
export function watchedLike(client: Queryable, base: Queryable): void {
  const watch = watched.get(base);
  if (watch) watched.set(client, watch);
}

/** The bookmark of what a watched handle has read or written so far; null for a plain binding or before its first query. */
export const bookmarkOf = (db: Db): string | null => watched.get(clientOf(db))?.bookmark() ?? null;

/**
 * Says that the writes made through `db` (a shard-wide handle, such as a sweep's) changed
 * these workspaces: their floors move when the unit of work ends. No-op outside one.
 */
export function wroteFor(db: Db, workspaceIds: Iterable<string>): void {
  const watch = watched.get(clientOf(db));
  if (watch) for (const id of workspaceIds) watch.workspaces.add(id);
}

/** The sessions of one unit of work (a request outside /v1, a queue batch, a sweep run) opened through its env. */
type Unit = { sessions: Watched[] };
const units = new WeakMap<Bindings, Unit>();

/** The unit of work `env` belongs to: null outside one (replication off, or code that opened none). */
export const unitOf = (env: Bindings): { add(watch: Watched): void } | null => {
  const unit = units.get(env);
  return unit ? { add: (watch) => void unit.sessions.push(watch) } : null;
};

/**
 * Runs `work` as one unit of work: the shard handles it opens through the env it is given
 * are sessions on the primary whose writes are watched, and when it ends (failed or not)
 * each workspace it wrote has its floor raised once, to the newest bookmark among its
 * sessions: one floor call per workspace per request, queue batch or sweep, however many
 * rows it wrote. With replication off, `work` gets `env` itself and nothing more happens.
 */
export async function withWriteFloors<T>(env: Bindings, work: (env: Bindings) => Promise<T>): Promise<T> {
  if (!readReplicasOn(env)) return work(env);
  const unit: Unit = { sessions: [] };
  const scoped = { ...env };
  units.set(scoped, unit);
  try {
    return await work(scoped);
  } finally {
    await raiseFloors(env, unit);
  }
}

async function raiseFloors(env: Bindings, unit: Unit): Promise<void> {
  const newest = new Map<string, string>();
  for (const watch of unit.sessions) {
    const bookmark = watch.wrote ? watch.bookmark() : null;
    if (!bookmark) continue;
    for (const id of watch.workspaces) newest.set(id, newerBookmark(newest.get(id), bookmark)!);
  }
  await Promise.all([...newest].map(([id, bookmark]) => raiseFloor(env, id, bookmark)));
}
