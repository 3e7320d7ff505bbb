import { and, count, desc, eq, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { SharedErrors } from '../../platform/shared-errors';
import { WebhookErrors } from './errors';
import { uuidv7 } from '../../platform/ids';
import { parsePaging } from '../../platform/list';
import { eventOutbox } from '../../platform/schema';
import { DELIVERY_KIND, type DeliveryMessage, type Envelope } from './publisher';
import { webhookDeliveries, webhookEndpoints } from './schema';

/** The statuses a delivery log shows: `delivered` is a delivery that succeeded. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'retrying', 'dead'] as const;
type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The one event type sent by `POST /v1/webhook-endpoints/{id}/test`: never stored as an event, only as its deliveries. */
export const TEST_EVENT_TYPE = 'webhook.test';

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

const statusOf = (state: DeliveryRow['state']): DeliveryStatus => (state === 'succeeded' ? 'delivered' : state === 'dropped' ? 'dead' : state);
const stateOf = (status: DeliveryStatus) => (status === 'delivered' ? 'succeeded' : status);

export const serializeDeliveryLog = (d: DeliveryRow) => ({
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType,
  status: statusOf(d.state),
  attempts: d.attempts,
  last_status_code: d.lastStatus,
  last_error: d.lastError,
  next_attempt_at: d.nextAttemptAt,
  delivered_at: d.state === 'succeeded' ? d.updatedAt : null,
  created_at: d.createdAt,
});

const ownEndpoint = (ctx: ServiceContext, endpointId: string) =>
  ctx.db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.workspaceId, ctx.ws.id), eq(webhookEndpoints.id, endpointId)));

/** GET /v1/webhook-endpoints/{id}/deliveries: newest first, the endpoint's check, count and page in one round trip. */
export async function listEndpointDeliveries(ctx: ServiceContext, endpointId: string, query: { status?: string; limit?: string; offset?: string }) {
  const paging = parsePaging(query, { limit: 25, cap: 100 });
  const status = query.status === undefined || query.status === '' ? undefined : query.status;
  if (status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(status))
    throw SharedErrors.notOneOf({ name: 'status', values: DELIVERY_STATUSES.join(', ') });
  const where = and(
    eq(webhookDeliveries.workspaceId, ctx.ws.id),
    eq(webhookDeliveries.endpointId, endpointId),
    status ? eq(webhookDeliveries.state, stateOf(status as DeliveryStatus)) : undefined,
  );
  const [endpoint, [{ total }], rows] = await ctx.db.batch([
    ownEndpoint(ctx, endpointId),
    ctx.db.select({ total: count() }).from(webhookDeliveries).where(where),
    ctx.db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(paging.limit)
      .offset(paging.offset),
  ]);
  if (endpoint.length === 0) throw WebhookErrors.endpointNotFound();
  return { data: rows.map(serializeDeliveryLog), total, limit: paging.limit, offset: paging.offset };
}

const deliveryMessage = (workspaceId: string, endpointId: string, event: Envelope): DeliveryMessage => ({
  kind: DELIVERY_KIND,
  workspace_id: workspaceId,
  endpoint_id: endpointId,
  event,
});

/**
 * POST /v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry: the delivery goes back to
 * `pending` (a dead or delivered one too) and is attempted again now, with the same event id
 * (`webhook-id`) and a fresh signature. Its event must still be kept (30 days).
 */
export async function retryDelivery(ctx: ServiceContext, env: Bindings, endpointId: string, deliveryId: string) {
  const now = nowIso();
  const [endpoint, updated, events] = await ctx.db.batch([
    ownEndpoint(ctx, endpointId),
    ctx.db
      .update(webhookDeliveries)
      .set({ state: 'pending', nextAttemptAt: null, updatedAt: now })
      .where(
        and(
          eq(webhookDeliveries.workspaceId, ctx.ws.id),
          eq(webhookDeliveries.endpointId, endpointId),
          eq(webhookDeliveries.id, deliveryId),
          sql`${webhookDeliveries.state} <> 'dropped'`,
          sql`(${webhookDeliveries.eventType} = ${TEST_EVENT_TYPE} OR EXISTS (SELECT 1 FROM ${eventOutbox} WHERE ${eventOutbox.id} = ${webhookDeliveries.eventId} AND ${eventOutbox.workspaceId} = ${ctx.ws.id}))`,
        ),
      )
      .returning(),
    ctx.db
      .select()
      .from(eventOutbox)
      .where(
        and(
          eq(eventOutbox.workspaceId, ctx.ws.id),
          sql`${eventOutbox.id} = (SELECT ${webhookDeliveries.eventId} FROM ${webhookDeliveries} WHERE ${webhookDeliveries.id} = ${deliveryId})`,
        ),
      ),
  ]);
  if (endpoint.length === 0) throw WebhookErrors.endpointNotFound();
  const [row] = updated;
  if (!row) throw WebhookErrors.deliveryNotFound();
  const [event] = events;
  const envelope: Envelope = event
    ? { id: event.id, type: event.type, created_at: event.createdAt, data: event.data }
    : { id: row.eventId, type: TEST_EVENT_TYPE, created_at: row.createdAt, data: { endpoint_id: endpointId } };
  await env.EVENTS_QUEUE.send(deliveryMessage(ctx.ws.id, endpointId, envelope));
  return serializeDeliveryLog(row);
}

/**
 * POST /v1/webhook-endpoints/{id}/test: one signed `webhook.test` event to this endpoint only,
 * whatever it subscribes to. It is listed in the endpoint's deliveries, never among the events.
 */
export async function sendTestEvent(ctx: ServiceContext, env: Bindings, endpointId: string) {
  const now = nowIso();
  const event: Envelope = { id: uuidv7(), type: TEST_EVENT_TYPE, created_at: now, data: { endpoint_id: endpointId } };
  const inserted =
    await ctx.db.run(sql`INSERT INTO ${webhookDeliveries} (id, workspace_id, event_id, event_type, endpoint_id, url, state, attempts, created_at, updated_at)
    SELECT ${uuidv7()}, workspace_id, ${event.id}, ${TEST_EVENT_TYPE}, id, url, 'pending', 0, ${now}, ${now} FROM ${webhookEndpoints} WHERE workspace_id = ${ctx.ws.id} AND id = ${endpointId}`);
  if (inserted.meta.changes === 0) throw WebhookErrors.endpointNotFound();
  await env.EVENTS_QUEUE.send(deliveryMessage(ctx.ws.id, endpointId, event));
  return { event_id: event.id };
}
