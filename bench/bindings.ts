import type { Bindings } from '../src/env';
import { findShard } from '../src/platform/d1/shards';

/** The bench build names D1 bindings directly (the service reaches them only through src/platform/d1/shards.ts). */
export const d1 = (env: Bindings, binding: string) => (env as unknown as Record<string, D1Database>)[binding];

/** The select floor's one query: an indexed read of one control-plane row. */
export const floorSelectStatement = (env: Bindings, id: string) => d1(env, 'DB').prepare('SELECT id, name FROM workspaces WHERE id = ?').bind(id);
export const floorSelect = (env: Bindings, id: string) => floorSelectStatement(env, id).first();

/** The insert floor's one statement: a new row in `bench_floor` (created on every database by `/bench/setup`). */
export const floorInsert = (db: D1Database, id: string) =>
  db.prepare('INSERT INTO bench_floor (id, created_at) VALUES (?, ?)').bind(id, new Date().toISOString()).run();

/** A write's shape with no framework: a read, then the insert floor's statement (two round trips). */
export async function readThenInsert(db: D1Database): Promise<string> {
  const id = crypto.randomUUID();
  await db.prepare('SELECT id FROM bench_floor WHERE id = ?').bind(id).first();
  await floorInsert(db, id);
  return id;
}

/** The raw D1 database holding a workspace's data. */
export async function workspaceD1(env: Bindings, workspaceId: string): Promise<D1Database | null> {
  const shard = await findShard(env, workspaceId);
  return shard ? d1(env, shard) : null;
}
