import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { type DeliveryState, webhookDeliveries } from './schema';

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

const serializeDelivery = (d: DeliveryRow) => ({
  id: d.id,
  event_id: d.eventId,
  event_type: d.eventType,
  endpoint_id: d.endpointId,
  url: d.url,
  state: d.state,
  attempts: d.attempts,
  last_status: d.lastStatus,
  last_error: d.lastError,
  next_attempt_at: d.nextAttemptAt,
  created_at: d.createdAt,
  updated_at: d.updatedAt,
});

/** The operator's view of a (found) workspace's deliveries, dead letters with `state=dead`, newest first. */
export async function listDeliveries(db: Db, workspaceId: string, opts: { state?: DeliveryState; limit: number }) {
  const rows = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.workspaceId, workspaceId), opts.state ? eq(webhookDeliveries.state, opts.state) : undefined))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(opts.limit);
  return rows.map(serializeDelivery);
}
