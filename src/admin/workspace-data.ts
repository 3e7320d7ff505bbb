import type { Context } from 'hono';
import type { AdminEnv } from '../env';
import { getWorkspace } from '../modules/workspaces';
import type { Workspace } from '../platform/workspace';
import type { Db } from '../platform/d1/db';
import { controlDb, shardDb } from '../platform/d1/shards';

/** An operator route's handle on one workspace: its row (control plane, 404 when unknown) and its data handle. */
export async function workspaceData(c: Context<AdminEnv>, id: string): Promise<{ ws: Workspace; db: Db }> {
  const ws = await getWorkspace(controlDb(c.env), id);
  return { ws, db: shardDb(c.env, ws.shard, ws.id) };
}
