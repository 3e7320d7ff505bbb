import { Hono } from 'hono';
import type { AdminEnv } from '../env';
import { listDeliveries } from '../modules/webhooks/deliveries';
import { DELIVERY_STATES, type DeliveryState } from '../modules/webhooks/schema';
import { badRequest } from '../platform/errors';
import { idParam, limitParam } from './validate';
import { workspaceData } from './workspace-data';

/** Webhook delivery attempts and dead letters of a workspace. */
export const webhookAdmin = new Hono<AdminEnv>();

webhookAdmin.get('/workspaces/:ws/webhook-deliveries', async (c) => {
  const id = idParam(c, 'ws');
  const state = c.req.query('state') || undefined;
  if (state !== undefined && !DELIVERY_STATES.includes(state as DeliveryState)) {
    throw badRequest(`Invalid state: must be one of ${DELIVERY_STATES.join(', ')}`);
  }
  const limit = limitParam(c);
  const { db } = await workspaceData(c, id);
  return c.json({ data: await listDeliveries(db, id, { state: state as DeliveryState | undefined, limit }) });
});
