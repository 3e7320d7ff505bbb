import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { getMove, listMoves, startMove } from '../platform/d1/workspace-moves/machine';
import { EXAMPLE_SHARD } from '../platform/d1/shards';
import { isUuid } from '../platform/validation';
import { AdminErrors } from './errors';
import { Move, Moves } from './answers';
import { adminRoute } from './route';
import { idParam, limitParam, limitQuery } from './validate';

/** Online workspace moves between shards (docs/scale-out.md, docs/operator-api.md). */
export const workspaceMoveAdmin = new Hono<AdminEnv>();

const movePost = z.object({ to: z.string().min(1).max(100).openapi({ description: 'The shard to move to, `SHARD_<n>`' }) }).strict();

adminRoute(
  workspaceMoveAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/move',
    operationId: 'moveWorkspace',
    tag: 'Shards',
    summary: 'Move a workspace to another shard, online',
    description:
      'Starts the move and answers at once; follow it with `GET /admin/v1/moves/{id}`. Reads and writes go on while it copies; during the switch (seconds) writes answer 503 `WORKSPACE_MOVING` with `Retry-After`. A failed move leaves the workspace where it was.',
    params: { ws: 'The workspace id' },
    body: { schema: movePost, example: { to: EXAMPLE_SHARD } },
    responses: {
      202: { description: 'The move, `copying`', schema: Move },
      404: { description: '`Workspace not found`; `Shard not found: <binding>`' },
      409: {
        description:
          '`Workspace <ws> is already on <binding>`; `Shard <binding> is closed: open it (PATCH /admin/v1/shards/<binding>) before moving a workspace there`; `Workspace <ws> is already moving (move <id>): start another once it is finished`',
      },
    },
  },
  async (c, read) => {
    const ws = idParam(c, 'ws');
    const { to } = await read();
    return c.json(await startMove(c.env, ws, to), 202);
  },
);

adminRoute(
  workspaceMoveAdmin,
  {
    method: 'get',
    path: '/moves/{id}',
    operationId: 'getMove',
    tag: 'Shards',
    summary: 'Read a workspace move',
    params: { id: 'The move id' },
    responses: { 200: { description: 'The move', schema: Move }, 404: { description: '`Move not found`' } },
  },
  async (c) => c.json(await getMove(c.env, idParam(c, 'id'))),
);

const movesQuery = limitQuery.extend({ workspace_id: z.string().openapi({ description: 'The workspace whose moves to list (required)' }) });

adminRoute(
  workspaceMoveAdmin,
  {
    method: 'get',
    path: '/moves',
    operationId: 'listMoves',
    tag: 'Shards',
    summary: "List a workspace's moves",
    description: 'Newest first.',
    query: movesQuery,
    responses: { 200: { description: 'The moves', schema: Moves } },
  },
  async (c) => {
    const ws = c.req.query('workspace_id');
    if (!ws || !isUuid(ws)) throw AdminErrors.idNotUuid({ name: 'workspace_id' });
    return c.json({ data: await listMoves(c.env, ws.toLowerCase(), limitParam(c)) });
  },
);
