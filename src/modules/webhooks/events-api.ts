import { and, count, desc, eq, gte } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { WebhookErrors } from './errors';
import { parsePaging } from '../../platform/list';
import { eventOutbox } from '../../platform/schema';

/** Events are kept, and listed, this long. */
export const EVENT_RETENTION_DAYS = 30;
const keptSince = () => new Date(Date.now() - EVENT_RETENTION_DAYS * 86_400_000).toISOString();

type EventRow = typeof eventOutbox.$inferSelect;

/** Exactly the webhook delivery envelope: `id` is the deliveries' `webhook-id`. */
const envelopeOf = (e: EventRow) => ({ id: e.id, type: e.type, created_at: e.createdAt, data: e.data });

/** GET /v1/webhook-events: the workspace's events of the last 30 days, newest first; count and page in one round trip. */
export async function listWebhookEvents(ctx: ServiceContext, query: { type?: string; limit?: string; offset?: string }) {
  const paging = parsePaging(query, { limit: 25, cap: 100 });
  const type = query.type === undefined || query.type === '' ? undefined : query.type;
  const where = and(eq(eventOutbox.workspaceId, ctx.ws.id), type ? eq(eventOutbox.type, type) : undefined, gte(eventOutbox.createdAt, keptSince()));
  const [[{ total }], rows] = await ctx.db.batch([
    ctx.db.select({ total: count() }).from(eventOutbox).where(where),
    ctx.db
      .select()
      .from(eventOutbox)
      .where(where)
      .orderBy(desc(eventOutbox.createdAt), desc(eventOutbox.id))
      .limit(paging.limit)
      .offset(paging.offset),
  ]);
  return { data: rows.map(envelopeOf), total, limit: paging.limit, offset: paging.offset };
}

/** GET /v1/webhook-events/{id}: unknown, another workspace's, older than 30 days or malformed: 404 `event_not_found`. */
export async function getWebhookEvent(ctx: ServiceContext, id: string) {
  const [row] = await ctx.db
    .select()
    .from(eventOutbox)
    .where(and(eq(eventOutbox.workspaceId, ctx.ws.id), eq(eventOutbox.id, id.toLowerCase()), gte(eventOutbox.createdAt, keptSince())));
  if (!row) throw WebhookErrors.eventNotFound();
  return envelopeOf(row);
}
