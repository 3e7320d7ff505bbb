import type { Bindings } from '../src/env';
import { findShard } from '../src/platform/shards';

/** The bench build names D1 bindings directly (the service reaches them only through src/platform/shards.ts). */
export const d1 = (env: Bindings, binding: string) => (env as unknown as Record<string, D1Database>)[binding];

/** The select floor's one query: an indexed read of one control-plane row. */
export const floorSelect = (env: Bindings, id: string) => d1(env, 'DB').prepare('SELECT id, name FROM workspaces WHERE id = ?').bind(id).first();

/** The raw D1 database holding a workspace's data. */
export async function workspaceD1(env: Bindings, workspaceId: string): Promise<D1Database | null> {
  const shard = await findShard(env, workspaceId);
  return shard ? d1(env, shard) : null;
}
