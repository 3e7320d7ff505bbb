import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { SHARD_STATES } from '../platform/control-schema';
import { listShards, setShardState } from '../platform/d1/fleet';
import { Shard, Shards } from './answers';
import { adminRoute } from './route';

/** The data databases: their load, size and whether they take new workspaces (docs/operator-api.md). */
export const shardAdmin = new Hono<AdminEnv>();

const shardPatch = z.object({ state: z.enum(SHARD_STATES) }).strict();

adminRoute(
  shardAdmin,
  {
    method: 'get',
    path: '/shards',
    operationId: 'listShards',
    tag: 'Shards',
    summary: 'List the data databases',
    description: 'Every bound `SHARD_<n>` in order, with its workspaces, size and state.',
    responses: { 200: { description: 'The shards', schema: Shards } },
  },
  async (c) => c.json({ data: await listShards(c.env) }),
);

adminRoute(
  shardAdmin,
  {
    method: 'patch',
    path: '/shards/{binding}',
    operationId: 'updateShard',
    tag: 'Shards',
    summary: 'Open or close a shard to new workspaces',
    description: 'A closed shard takes no new workspace (a create in flight that chose it places again); the workspaces on it are served as before.',
    params: { binding: 'The D1 binding, `SHARD_<n>`' },
    textParams: ['binding'],
    body: { schema: shardPatch, example: { state: 'closed' } },
    responses: { 200: { description: 'The shard', schema: Shard }, 404: { description: '`Shard not found: <binding>`' } },
  },
  async (c, read) => {
    const binding = c.req.param('binding') ?? '';
    const { state } = await read();
    return c.json(await setShardState(c.env, binding, state));
  },
);
