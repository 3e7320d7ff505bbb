import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { listDeliveries, DELIVERY_STATES, type DeliveryState } from '../modules/webhooks';
import { z } from '@hono/zod-openapi';
import { WebhookDeliveries } from './answers';
import { adminRoute } from './route';
import { idParam, limitParam, limitQuery } from './validate';
import { workspaceData } from './workspace-data';
import { SharedErrors } from '../platform/shared-errors';

/** Webhook delivery attempts and dead letters of a workspace. */
export const webhookAdmin = new Hono<AdminEnv>();

adminRoute(
  webhookAdmin,
  {
    method: 'get',
    path: '/workspaces/{ws}/webhook-deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Sandbox and sweeps',
    summary: "The workspace's webhook deliveries",
    description: 'Newest first; `state=dead` lists the dead letters.',
    params: { ws: 'The workspace id' },
    query: z.object({
      state: z
        .string()
        .optional()
        .openapi({ type: 'string', enum: [...DELIVERY_STATES], description: 'Another value answers 400 `Invalid state: ...`' }),
      ...limitQuery.shape,
    }),
    responses: { 200: { description: 'The deliveries', schema: WebhookDeliveries }, 404: { description: '`Workspace not found`' } },
  },
  async (c) => {
    const id = idParam(c, 'ws');
    const state = c.req.query('state') || undefined;
    if (state !== undefined && !DELIVERY_STATES.includes(state as DeliveryState)) {
      throw SharedErrors.notOneOf({ name: 'state', values: DELIVERY_STATES.join(', ') });
    }
    const limit = limitParam(c);
    const { db } = await workspaceData(c, id);
    return c.json({ data: await listDeliveries(db, id, { state: state as DeliveryState | undefined, limit }) });
  },
);
