import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { addPlatformSuppression, listPlatformSuppressions, removePlatformSuppression } from '../modules/suppressions';
import { formatIssues } from '../platform/validation';
import { GlobalSuppression, GlobalSuppressionList, GlobalSuppressionRemoved } from './answers';
import { adminRoute } from './route';
import { pagingParams, pagingQuery } from './validate';
import { SharedErrors } from '../platform/shared-errors';

/** The platform suppression list (docs/operator-api.md): one list in the control plane, enforced for every workspace on every shard. */
export const globalSuppressionAdmin = new Hono<AdminEnv>();

const address = z.string().trim().max(255).pipe(z.email());
const globalSuppressionBody = z.object({ email: address, reason: z.string().trim().min(1).max(100).optional() }).strict();

const listQuery = pagingQuery.extend({
  email: z.string().optional().openapi({ description: 'Exact address, any case; empty is absent' }),
  after: z.string().optional().openapi({ description: 'Entries after this address, in address order: the `next_after` of the previous page' }),
});

adminRoute(
  globalSuppressionAdmin,
  {
    method: 'post',
    path: '/global-suppressions',
    operationId: 'createGlobalSuppression',
    tag: 'Sandbox and sweeps',
    summary: 'Suppress an address for every workspace',
    description: '201 both ways: an address already on the list comes back as stored, its reason and time unchanged.',
    params: {},
    body: { schema: globalSuppressionBody, example: { email: 'abuse-report@example.com', reason: 'manual' } },
    responses: { 201: { description: 'The entry, new or existing', schema: GlobalSuppression } },
  },
  async (c, read) => {
    const input = await read();
    return c.json(await addPlatformSuppression(c.env, input.email, input.reason ?? 'manual'), 201);
  },
);

adminRoute(
  globalSuppressionAdmin,
  {
    method: 'get',
    path: '/global-suppressions',
    operationId: 'listGlobalSuppressions',
    tag: 'Sandbox and sweeps',
    summary: 'List the platform suppression list',
    description:
      'In address order, `limit` entries at a time: page with `offset`, or pass `next_after` back as `after` (the same cost however deep the page).',
    query: listQuery,
    responses: { 200: { description: 'A page of entries', schema: GlobalSuppressionList } },
  },
  async (c) =>
    c.json(await listPlatformSuppressions(c.env, { ...pagingParams(c), after: c.req.query('after'), email: c.req.query('email') || undefined })),
);

adminRoute(
  globalSuppressionAdmin,
  {
    method: 'delete',
    path: '/global-suppressions/{email}',
    operationId: 'deleteGlobalSuppression',
    tag: 'Sandbox and sweeps',
    summary: 'Take an address off the platform list',
    description: 'Sends of every workspace to the address go again, unless a workspace list holds it. The address is matched in any case.',
    params: { email: 'The address (URL-encoded)' },
    textParams: ['email'],
    responses: {
      200: { description: 'Removed', schema: GlobalSuppressionRemoved },
      404: { description: '`Global suppression not found`' },
      503: { description: 'A data database still holding the address from before the list moved could not be reached; retry the request' },
    },
  },
  async (c, read) => {
    const email = address.safeParse(c.req.param('email') ?? '');
    if (!email.success)
      throw SharedErrors.invalidRequest({ problems: formatIssues(email.error.issues.map((i) => ({ ...i, path: ['email'] })) as never) });
    await read();
    await removePlatformSuppression(c.env, email.data);
    return c.json({ success: true as const });
  },
);
