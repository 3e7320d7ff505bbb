import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { subscribeContact } from '../modules/newsletters/subscriptions';
import { isUuid } from '../platform/validation';
import { body, idParam } from './validate';
import { workspaceContext } from '../modules/workspaces/context';

/** Operator routes of newsletters (docs/operator-api.md): subscriptions. */
export const newsletterAdmin = new Hono<AdminEnv>();

const subscriptionBody = z.object({ contact_id: z.string().refine(isUuid, { message: 'contact_id must be a UUID' }) }).strict();

newsletterAdmin.post('/workspaces/:ws/newsletters/:id/subscriptions', async (c) => {
  const wsId = idParam(c, 'ws');
  const newsletterId = idParam(c, 'id');
  const input = await body(c, subscriptionBody);
  const out = await subscribeContact(await workspaceContext(c.env, wsId), newsletterId, input.contact_id, 'operator');
  return c.json(out.subscription, out.created ? 201 : 200);
});
