import { eq } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { workspaces } from '../control-schema';
import { type Db, dbFor } from './db';
import { handleOver } from './handle';
import { gateWrites } from './write-gate';
import { unitOf, watchWrites } from './floors';

/**
 * Where data lives. The control plane (`DB`: workspaces, API keys, the shard
 * map) and N data databases (`SHARD_0`, `SHARD_1`, ...), each a D1 binding in
 * wrangler.toml. A workspace's records live in exactly one shard, named on its
 * row. This file is the only place that names a binding: modules get a `Db`
 * from here (or the request's `c.var.db`), already resolved to their workspace's shard.
 */
type StorageBindings = { DB: D1Database } & Record<string, unknown>;

const SHARD_BINDING = /^SHARD_(\d+)$/;

const storage = (env: Bindings) => env as unknown as StorageBindings;

/** The configured shards in order (SHARD_0, SHARD_1, ...): adding one is a wrangler.toml entry. */
export function shardNames(env: Bindings): string[] {
  return Object.keys(env)
    .filter((name) => SHARD_BINDING.test(name))
    .sort((a, b) => Number(SHARD_BINDING.exec(a)![1]) - Number(SHARD_BINDING.exec(b)![1]));
}

/** A binding name for the operator API's examples. */
export const EXAMPLE_SHARD = 'SHARD_1';

export const isShard = (env: Bindings, name: string) => SHARD_BINDING.test(name) && Object.hasOwn(env, name);

function shardBinding(env: Bindings, shard: string): D1Database {
  if (!isShard(env, shard)) throw new Error(`No D1 binding for shard "${shard}"`);
  return storage(env)[shard] as D1Database;
}

/** A shard's database itself, for the workspace moves' statements built from its own schema (./moves/). */
export const shardDatabase = (env: Bindings, shard: string): D1Database => shardBinding(env, shard);

/** Where a shard's primary is now (a workspace moved there: every replica serving it from then on must have reached this). */
export async function primaryBookmark(env: Bindings, shard: string): Promise<string> {
  const session = shardBinding(env, shard).withSession('first-primary');
  await session.prepare('SELECT 1').run();
  const bookmark = session.getBookmark();
  if (!bookmark) throw new Error(`Shard ${shard} gave no bookmark`);
  return bookmark;
}

/** Workspaces, API keys and the shard map (the primary: operator writes and anything read to be changed). */
export const controlDb = (env: Bindings): Db => dbFor(storage(env).DB);

/** The control plane as the nearest read replica has it: for look-ups that may lag a moment (API keys). */
export const controlReplica = (env: Bindings): Db => handleOver(storage(env).DB.withSession('first-unconstrained'));

/**
 * A shard's database outside a /v1 request (sweeps, queue consumers, operator routes, hosted
 * pages): always the primary. Inside a unit of work that records write floors (./floors.ts,
 * read replication on), a session on the primary whose writes move the floor of
 * `workspaceId` (a shard-wide handle names its workspaces with `wroteFor`).
 */
export function shardDb(env: Bindings, shard: string, workspaceId?: string): Db {
  const unit = unitOf(env);
  if (!unit) return dbFor(shardBinding(env, shard));
  const session = shardBinding(env, shard).withSession('first-primary');
  const { client, watch } = watchWrites(session, () => session.getBookmark(), workspaceId);
  unit.add(watch);
  return handleOver(client);
}

/**
 * A session on the primary of a workspace's shard outside a request, for work that hands
 * out what it read as of a bookmark (webhook deliveries); null when the workspace is gone.
 */
export async function workspaceSession(env: Bindings, workspaceId: string): Promise<(ShardSession & { shard: string }) | null> {
  const shard = await findShard(env, workspaceId);
  if (!shard) return null;
  const session = shardBinding(env, shard).withSession('first-primary');
  const { client, watch } = watchWrites(session, () => session.getBookmark(), workspaceId);
  unitOf(env)?.add(watch);
  return { db: handleOver(client), bookmark: () => session.getBookmark(), wrote: () => watch.wrote, shard };
}

/**
 * How a request reads its shard. Writes start at the primary; reads may be
 * served by a nearby read replica, but never one older than `after` (the
 * newest bookmark of what the caller wrote).
 */
export type Consistency = { kind: 'primary' } | { kind: 'after'; bookmark: string | null };

/** `wrote`: whether a statement that may write ran through the session (./floors.ts). */
export type ShardSession = { db: Db; bookmark: () => string | null; wrote: () => boolean };

/**
 * A D1 session on the workspace's shard: every query of the request is sequentially consistent.
 * With `admission` (a read admitted speculatively, ./auth.ts), statements that may write wait for it.
 */
export function openSession(env: Bindings, shard: string, workspaceId: string, consistency: Consistency, admission?: Promise<unknown>): ShardSession {
  const constraint = consistency.kind === 'primary' ? 'first-primary' : (consistency.bookmark ?? 'first-unconstrained');
  const session = shardBinding(env, shard).withSession(constraint);
  const queries = admission ? gateWrites(session, admission) : session;
  const bookmark = () => session.getBookmark();
  const { client, watch } = watchWrites(queries, bookmark, workspaceId);
  return { db: handleOver(client), bookmark, wrote: () => watch.wrote };
}

/** The shard of a workspace, or null when there is no such workspace. */
export async function findShard(env: Bindings, workspaceId: string): Promise<string | null> {
  const [row] = await controlDb(env).select({ shard: workspaces.shard }).from(workspaces).where(eq(workspaces.id, workspaceId)).limit(1);
  return row?.shard ?? null;
}

/** The data handle of a workspace for work that is not a request (queue messages carry the workspace id); null when it is gone. */
export async function workspaceDb(env: Bindings, workspaceId: string): Promise<Db | null> {
  const shard = await findShard(env, workspaceId);
  return shard ? shardDb(env, shard, workspaceId) : null;
}

export type PerShard<T> = Record<string, { ok: true; value: T } | { ok: false; error: string }>;

/** Runs `work` on every shard at once; a failing shard is reported and does not stop the others. */
export async function onEveryShard<T>(env: Bindings, work: (db: Db, shard: string) => Promise<T>): Promise<PerShard<T>> {
  const names = shardNames(env);
  const settled = await Promise.allSettled(names.map((shard) => work(shardDb(env, shard), shard)));
  return Object.fromEntries(
    settled.map((s, i) => {
      if (s.status === 'fulfilled') return [names[i], { ok: true, value: s.value }];
      console.error('shard work failed', names[i], s.reason);
      return [names[i], { ok: false, error: s.reason instanceof Error ? s.reason.message : String(s.reason) }];
    }),
  );
}

/** A shard's size in bytes as D1 reports it (the database file, after a trivial statement). */
export async function measureShard(env: Bindings, shard: string): Promise<number> {
  const { meta } = await shardBinding(env, shard).prepare('SELECT 1').run();
  return meta.size_after;
}

/** The newest migration applied to a shard (wrangler's `d1_migrations`); null for a shard migrated by other means. */
export async function shardSchema(env: Bindings, shard: string): Promise<string | null> {
  try {
    const row = await shardBinding(env, shard).prepare('SELECT name FROM d1_migrations ORDER BY id DESC LIMIT 1').first<{ name: string }>();
    return row ? row.name.replace(/\.sql$/, '') : null;
  } catch (err) {
    if (err instanceof Error && /no such table/.test(err.message)) return null;
    throw err;
  }
}
