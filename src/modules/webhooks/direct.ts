import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import { rawAll } from '../../platform/d1/raw-query';
import { uuidv7 } from '../../platform/ids';
import type { Envelope } from '../../platform/outbox';
import { DELIVERY_KIND, type DeliveryMessage } from './publisher';
import { webhookEndpoints } from './schema';

/**
 * A delivery of one event to one named endpoint whatever it subscribes to (an automation's `webhook`
 * step): the pending delivery row, for the batch that commits the event. From then on it is like any
 * other delivery: attempted from the queue, retried, in the endpoint's log, and re-sent by the redrive
 * sweep should its message be lost. No row (and no delivery) when the endpoint is gone or inactive.
 */
export const directDeliveryRow = (ctx: ServiceContext, endpointId: string, eventId: string, eventType: string): Statement => {
  const now = nowIso();
  return rawAll<{ id: string }>(
    ctx.db,
    sql`INSERT INTO webhook_deliveries (id, workspace_id, event_id, event_type, endpoint_id, url, state, attempts, created_at, updated_at)
      SELECT ${uuidv7()}, workspace_id, ${eventId}, ${eventType}, id, url, 'pending', 0, ${now}, ${now} FROM ${webhookEndpoints}
      WHERE workspace_id = ${ctx.ws.id} AND id = ${endpointId} AND is_active = 1
      ON CONFLICT (event_id, endpoint_id) DO NOTHING RETURNING id`,
  );
};

/** The queue message of a delivery `directDeliveryRow` wrote, sent once its batch committed. */
export async function sendDirectDelivery(env: Bindings, workspaceId: string, endpointId: string, event: Envelope): Promise<void> {
  const message: DeliveryMessage = { kind: DELIVERY_KIND, workspace_id: workspaceId, endpoint_id: endpointId, event };
  await env.EVENTS_QUEUE.send(message);
}
