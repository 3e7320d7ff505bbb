import { Hono } from 'hono';
import type { AppEnv } from '../env';
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
import { badRequest } from '../platform/errors';
import { apiKeyCreate, blacklistCreate, emptyBody, pipelineCreate, userCreate, workspaceCreate, workspacePatch } from './schemas';
import { body, idParam } from './validate';

/** Workspaces, plans, keys, users, request log and the in-app catalog (OPERATOR-API.md). */
export const workspaceAdmin = new Hono<AppEnv>();

workspaceAdmin.post('/workspaces', async (c) => {
  const input = await body(c, workspaceCreate);
  return c.json(serializeWorkspace(await createWorkspace(c.var.db, input)), 201);
});

workspaceAdmin.get('/workspaces/:ws', async (c) => {
  return c.json(serializeWorkspace(await getWorkspace(c.var.db, idParam(c, 'ws'))));
});

workspaceAdmin.patch('/workspaces/:ws', async (c) => {
  const id = idParam(c, 'ws');
  const input = await body(c, workspacePatch);
  return c.json(serializeWorkspace(await patchWorkspace(c.var.db, id, input)));
});

workspaceAdmin.post('/workspaces/:ws/api-keys', async (c) => {
  const id = idParam(c, 'ws');
  const { name } = await body(c, apiKeyCreate);
  return c.json(await createApiKey(c.var.db, id, name), 201);
});

workspaceAdmin.post('/api-keys/:id/revoke', async (c) => {
  const id = idParam(c, 'id');
  await body(c, emptyBody);
  return c.json(await revokeApiKey(c.var.db, id));
});

workspaceAdmin.post('/workspaces/:ws/users', async (c) => {
  const id = idParam(c, 'ws');
  const input = await body(c, userCreate);
  return c.json(await createUser(c.var.db, id, input), 201);
});

workspaceAdmin.get('/workspaces/:ws/request-log', async (c) => {
  const id = idParam(c, 'ws');
  const raw = c.req.query('limit');
  const limit = raw === undefined || raw === '' ? 50 : Number(raw);
  if (!Number.isInteger(limit) || limit < 0) throw badRequest('Invalid limit: must be a non-negative integer');
  return c.json({ data: await readRequestLog(c.var.db, id, Math.min(limit, 500)) });
});

workspaceAdmin.post('/workspaces/:ws/pipelines', async (c) => {
  const id = idParam(c, 'ws');
  const input = await body(c, pipelineCreate);
  await getWorkspace(c.var.db, id);
  return c.json(await createPipeline(c.var.db, id, input), 201);
});

workspaceAdmin.post('/workspaces/:ws/blacklist', async (c) => {
  const ws = await getWorkspace(c.var.db, idParam(c, 'ws'));
  const { phone } = await body(c, blacklistCreate);
  return c.json(await addToBlacklist(c.var.db, ws, phone), 201);
});
