import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { addToBlacklist } from '../modules/blacklist';
import { createPipeline, Pipeline } from '../modules/pipelines';
import {
  createApiKey,
  createUser,
  createWorkspace,
  getWorkspace,
  patchWorkspace,
  readRequestLog,
  revokeApiKey,
  serializeWorkspace,
  workspaceContext,
} from '../modules/workspaces';
import { scoringSwitched } from '../modules/scoring';
import { createPlaced } from '../platform/d1/fleet';
import { controlDb } from '../platform/d1/shards';
import { apiKeyCreate, blacklistCreate, pipelineCreate, userCreate, workspaceCreate, workspacePatch } from './schemas';
import { ApiKeyCreated, ApiKeyRevoked, BlacklistEntry, RequestLog, User, Workspace } from './answers';
import { adminRoute } from './route';
import { idParam, limitParam, limitQuery } from './validate';
import { workspaceData } from './workspace-data';

/** Workspaces, plans, keys, users, request log and the in-app catalog (docs/operator-api.md). */
export const workspaceAdmin = new Hono<AdminEnv>();

const WS = { ws: 'The workspace id' };
const notFound = { 404: { description: '`Workspace not found`' } };

adminRoute(
  workspaceAdmin,
  {
    method: 'post',
    path: '/workspaces',
    operationId: 'createWorkspace',
    tag: 'Workspaces',
    summary: 'Create a workspace',
    description:
      'Creates the workspace alone: no pipeline, no sender profile. `shard` places it on a data database; else an open shard with room, drawn with odds in proportion to its free bytes.',
    body: {
      schema: workspaceCreate,
      example: { name: 'Acme', timezone: 'Europe/Berlin', default_country: 'DE', currency: 'EUR', rate_limits: { per_key_per_minute: 600 } },
    },
    responses: {
      201: { description: 'The workspace', schema: Workspace },
      409: { description: 'Another workspace already uses this `whatsapp_phone_number_id`; `Shard <binding> is closed to new workspaces`' },
      503: { description: '`No open shard has room for a new workspace: ...` (every shard closed or past `SHARD_FILL_LIMIT_BYTES`)' },
    },
  },
  async (c, read) => {
    const { shard, ...input } = await read();
    const ws = await createPlaced(c.env, shard, (placed) => createWorkspace(controlDb(c.env), input, placed));
    if (ws.leadScoring) await scoringSwitched(c.env, ws);
    return c.json(serializeWorkspace(ws), 201);
  },
);

adminRoute(
  workspaceAdmin,
  {
    method: 'get',
    path: '/workspaces/{ws}',
    operationId: 'getWorkspace',
    tag: 'Workspaces',
    summary: 'Read a workspace',
    params: WS,
    responses: { 200: { description: 'The workspace', schema: Workspace }, ...notFound },
  },
  async (c) => c.json(serializeWorkspace(await getWorkspace(controlDb(c.env), idParam(c, 'ws')))),
);

adminRoute(
  workspaceAdmin,
  {
    method: 'patch',
    path: '/workspaces/{ws}',
    operationId: 'updateWorkspace',
    tag: 'Workspaces',
    summary: 'Update a workspace',
    description: 'Partial: settings objects merge and a `null` value removes a key. `shard` cannot change.',
    params: WS,
    body: { schema: workspacePatch, example: { features: ['deals', 'orders'], caps: { contacts: 10000 } } },
    responses: {
      200: { description: 'The workspace', schema: Workspace },
      ...notFound,
      409: { description: 'Another workspace already uses this `whatsapp_phone_number_id`' },
    },
  },
  async (c, read) => {
    const id = idParam(c, 'ws');
    const input = await read();
    const ws = await patchWorkspace(controlDb(c.env), id, input);
    // The flag is the scoring switch: the engine follows it exactly as through PUT .../scoring.
    if (input.lead_scoring !== undefined) await scoringSwitched(c.env, ws);
    return c.json(serializeWorkspace(ws));
  },
);

adminRoute(
  workspaceAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/api-keys',
    operationId: 'createApiKey',
    tag: 'Workspaces',
    summary: 'Create an API key',
    description: 'The key is shown only in this answer; only its SHA-256 is stored.',
    params: WS,
    body: { schema: apiKeyCreate, example: { name: 'Shop backend' } },
    responses: { 201: { description: 'The key', schema: ApiKeyCreated }, ...notFound },
  },
  async (c, read) => {
    const id = idParam(c, 'ws');
    const { name } = await read();
    return c.json(await createApiKey(controlDb(c.env), id, name), 201);
  },
);

adminRoute(
  workspaceAdmin,
  {
    method: 'post',
    path: '/api-keys/{id}/revoke',
    operationId: 'revokeApiKey',
    tag: 'Workspaces',
    summary: 'Revoke an API key',
    description: 'The key answers 401 `Invalid API key` from then on.',
    params: { id: 'The API key id' },
    responses: { 200: { description: 'The revoked key', schema: ApiKeyRevoked }, 404: { description: '`API key not found`' } },
  },
  async (c, read) => {
    const id = idParam(c, 'id');
    await read();
    return c.json(await revokeApiKey(controlDb(c.env), id));
  },
);

adminRoute(
  workspaceAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/users',
    operationId: 'createUser',
    tag: 'Workspaces',
    summary: 'Add a workspace member',
    description: 'Members own deals and host bookings.',
    params: WS,
    body: { schema: userCreate, example: { name: 'Dana Demo', email: 'dana@example.com', role: 'agent' } },
    responses: {
      201: { description: 'The member', schema: User },
      ...notFound,
      409: { description: '`A user with this email already exists in the workspace`' },
    },
  },
  async (c, read) => {
    const id = idParam(c, 'ws');
    const input = await read();
    const { db } = await workspaceData(c, id);
    return c.json(await createUser(db, id, input), 201);
  },
);

adminRoute(
  workspaceAdmin,
  {
    method: 'get',
    path: '/workspaces/{ws}/request-log',
    operationId: 'listRequestLog',
    tag: 'Workspaces',
    summary: "The workspace's recent requests",
    description: 'Newest first; never bodies.',
    params: WS,
    query: limitQuery,
    responses: { 200: { description: 'The requests', schema: RequestLog }, ...notFound },
  },
  async (c) => {
    const id = idParam(c, 'ws');
    const limit = limitParam(c);
    const { db } = await workspaceData(c, id);
    return c.json({ data: await readRequestLog(db, id, limit) });
  },
);

adminRoute(
  workspaceAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/pipelines',
    operationId: 'createPipeline',
    tag: 'Catalog',
    summary: 'Create a pipeline',
    description: 'Stages in order. A new default takes the flag from the previous one.',
    params: WS,
    body: {
      schema: pipelineCreate,
      example: {
        name: 'Sales',
        is_default: true,
        stages: [
          { name: 'New lead', win_probability: 10 },
          { name: 'Won', win_probability: 100 },
        ],
      },
    },
    responses: { 201: { description: 'The pipeline, as `GET /v1/pipelines` reads it', schema: Pipeline }, ...notFound },
  },
  async (c, read) => {
    const id = idParam(c, 'ws');
    const input = await read();
    return c.json(await createPipeline(await workspaceContext(c.env, id), input), 201);
  },
);

adminRoute(
  workspaceAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/blacklist',
    operationId: 'createBlacklistEntry',
    tag: 'Catalog',
    summary: 'Blacklist a phone number',
    description: 'Later contact writes with it answer 400 `PHONE_BLACKLISTED`.',
    params: WS,
    body: { schema: blacklistCreate, example: { phone: '+14155550100' } },
    responses: { 201: { description: 'The entry', schema: BlacklistEntry }, ...notFound },
  },
  async (c, read) => {
    const { ws, db } = await workspaceData(c, idParam(c, 'ws'));
    const { phone } = await read();
    return c.json(await addToBlacklist(db, ws, phone), 201);
  },
);
