import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { addToBlacklist } from '../modules/blacklist/service';
import { createPipeline } from '../modules/pipelines/service';
import {
  createApiKey,
  createUser,
  createWorkspace,
  getWorkspace,
  patchWorkspace,
  readRequestLog,
  revokeApiKey,
  serializeWorkspace,
} from '../modules/workspaces/service';
import { controlDb, placeWorkspace } from '../platform/shards';
import { apiKeyCreate, blacklistCreate, emptyBody, pipelineCreate, userCreate, workspaceCreate, workspacePatch } from './schemas';
import { body, idParam, limitParam } from './validate';
import { workspaceData } from './workspace-data';

/** Workspaces, plans, keys, users, request log and the in-app catalog (docs/operator-api.md). */
export const workspaceAdmin = new Hono<AdminEnv>();

workspaceAdmin.post('/workspaces', async (c) => {
  const { shard, ...input } = await body(c, workspaceCreate);
  const placed = await placeWorkspace(c.env, shard);
  return c.json(serializeWorkspace(await createWorkspace(controlDb(c.env), input, placed)), 201);
});

workspaceAdmin.get('/workspaces/:ws', async (c) => {
  return c.json(serializeWorkspace(await getWorkspace(controlDb(c.env), idParam(c, 'ws'))));
});

workspaceAdmin.patch('/workspaces/:ws', async (c) => {
  const id = idParam(c, 'ws');
  const input = await body(c, workspacePatch);
  return c.json(serializeWorkspace(await patchWorkspace(controlDb(c.env), id, input)));
});

workspaceAdmin.post('/workspaces/:ws/api-keys', async (c) => {
  const id = idParam(c, 'ws');
  const { name } = await body(c, apiKeyCreate);
  return c.json(await createApiKey(controlDb(c.env), id, name), 201);
});

workspaceAdmin.post('/api-keys/:id/revoke', async (c) => {
  const id = idParam(c, 'id');
  await body(c, emptyBody);
  return c.json(await revokeApiKey(controlDb(c.env), id));
});

workspaceAdmin.post('/workspaces/:ws/users', async (c) => {
  const id = idParam(c, 'ws');
  const input = await body(c, userCreate);
  const { db } = await workspaceData(c, id);
  return c.json(await createUser(db, id, input), 201);
});

workspaceAdmin.get('/workspaces/:ws/request-log', async (c) => {
  const id = idParam(c, 'ws');
  const limit = limitParam(c);
  const { db } = await workspaceData(c, id);
  return c.json({ data: await readRequestLog(db, id, limit) });
});

workspaceAdmin.post('/workspaces/:ws/pipelines', async (c) => {
  const id = idParam(c, 'ws');
  const input = await body(c, pipelineCreate);
  const { db } = await workspaceData(c, id);
  return c.json(await createPipeline(db, id, input), 201);
});

workspaceAdmin.post('/workspaces/:ws/blacklist', async (c) => {
  const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
  const { phone } = await body(c, blacklistCreate);
  return c.json(await addToBlacklist(db, ws, phone), 201);
});
