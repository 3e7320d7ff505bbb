import { z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { subscribeContact } from '../modules/newsletters';
import { DomainError } from '../platform/openapi';
import { isUuid } from '../platform/validation';
import { Subscription } from './answers';
import { adminRoute } from './route';
import { idParam } from './validate';
import { workspaceContext } from '../modules/workspaces';

/** Operator routes of newsletters (docs/operator-api.md): subscriptions. */
export const newsletterAdmin = new Hono<AdminEnv>();

const subscriptionBody = z.object({ contact_id: z.string().refine(isUuid, { message: 'contact_id must be a UUID' }) }).strict();

adminRoute(
  newsletterAdmin,
  {
    method: 'post',
    path: '/workspaces/{ws}/newsletters/{id}/subscriptions',
    operationId: 'createNewsletterSubscription',
    tag: 'Contacts',
    summary: 'Subscribe a contact to a newsletter',
    description: 'Re-subscribing an active subscription answers 200 with it; an ended one is revived (201).',
    params: { ws: 'The workspace id', id: 'The newsletter id' },
    body: { schema: subscriptionBody, example: { contact_id: '01a209ad-ce43-7fca-bcd8-0d2d74988cb4' } },
    responses: {
      200: { description: 'Already subscribed: the subscription', schema: Subscription },
      201: { description: 'The subscription', schema: Subscription },
      404: { description: '`newsletter_not_found` or `contact_not_found` (domain envelope)', schema: DomainError },
    },
  },
  async (c, read) => {
    const wsId = idParam(c, 'ws');
    const newsletterId = idParam(c, 'id');
    const input = await read();
    const out = await subscribeContact(await workspaceContext(c.env, wsId), newsletterId, input.contact_id, 'operator');
    return c.json(out.subscription, out.created ? 201 : 200);
  },
);
