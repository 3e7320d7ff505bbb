import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { failedOn, uniqueOn } from '../../platform/d1/constraints';
import { uuidv7 } from '../../platform/ids';
import { isUuid } from '../../platform/validation';
import { DEFAULT_EVENT_TYPES, type EventType } from '../../platform/event-catalog';
import type { WebhookEndpointInput } from './dto';
import { webhookDeliveries, webhookEndpoints } from './schema';
import { newEndpointSecret } from './signing';
import { normalizedWebhookUrl } from './url-safety';
import { WebhookErrors } from './errors';

export const MAX_ENDPOINTS = 3;

type EndpointRow = typeof webhookEndpoints.$inferSelect;

export const serializeEndpoint = (e: Pick<EndpointRow, 'id' | 'url' | 'events' | 'isActive' | 'createdAt'>) => ({
  id: e.id,
  url: e.url,
  events: e.events as EventType[],
  is_active: e.isActive,
  created_at: e.createdAt,
});

const slotTaken = uniqueOn(webhookEndpoints.workspaceId, webhookEndpoints.slot);

/**
 * Registers an endpoint in the lowest free slot with one conditional INSERT:
 * when all slots are taken no row is written. SQLite runs the statement
 * atomically, and the unique (workspace_id, slot) index backs it up: a racing
 * registration that took the same slot makes this one look again.
 */
export async function createEndpoint(ctx: ServiceContext, input: WebhookEndpointInput, allowHosts: readonly string[]) {
  const checked = normalizedWebhookUrl(input.url, allowHosts);
  if ('reason' in checked) throw WebhookErrors.unsafeUrl({ reason: checked.reason });
  const endpoint = {
    id: uuidv7(),
    url: checked.url,
    events: [...new Set(input.events ?? DEFAULT_EVENT_TYPES)],
    isActive: true,
    createdAt: nowIso(),
  };
  const secret = newEndpointSecret();
  for (let round = 0; round < MAX_ENDPOINTS; round++) {
    try {
      const result = await ctx.db.run(sql`
        INSERT INTO ${webhookEndpoints} (id, workspace_id, slot, url, events, secret, is_active, created_at)
        SELECT ${endpoint.id}, ${ctx.ws.id}, s.slot, ${endpoint.url}, ${JSON.stringify(endpoint.events)}, ${secret}, 1, ${endpoint.createdAt}
        FROM (SELECT 1 AS slot UNION ALL SELECT 2 UNION ALL SELECT 3) AS s
        WHERE s.slot NOT IN (SELECT slot FROM ${webhookEndpoints} WHERE workspace_id = ${ctx.ws.id})
        ORDER BY s.slot LIMIT 1`);
      if (result.meta.changes === 0) break;
      return { ...serializeEndpoint(endpoint), secret };
    } catch (err) {
      if (!failedOn(err, slotTaken)) throw err;
    }
  }
  throw WebhookErrors.endpointLimit({ max: MAX_ENDPOINTS });
}

export async function listEndpoints(ctx: ServiceContext) {
  const rows = await ctx.db
    .select()
    .from(webhookEndpoints)
    .where(eq(webhookEndpoints.workspaceId, ctx.ws.id))
    .orderBy(asc(webhookEndpoints.createdAt), asc(webhookEndpoints.id));
  return rows.map(serializeEndpoint);
}

/**
 * Removes the endpoint and, in the same batch, drops its deliveries still
 * waiting for a retry. Messages already in the queue find no endpoint and are
 * acknowledged without a request.
 */
export async function deleteEndpoint(ctx: ServiceContext, id: string): Promise<void> {
  if (!isUuid(id)) throw WebhookErrors.endpointNotFound();
  const endpointId = id.toLowerCase();
  const now = nowIso();
  const [deleted] = await ctx.db.batch([
    ctx.db
      .delete(webhookEndpoints)
      .where(and(eq(webhookEndpoints.workspaceId, ctx.ws.id), eq(webhookEndpoints.id, endpointId)))
      .returning({ id: webhookEndpoints.id }),
    ctx.db
      .update(webhookDeliveries)
      .set({ state: 'dropped', nextAttemptAt: null, lastError: 'endpoint deleted', updatedAt: now })
      .where(
        and(
          eq(webhookDeliveries.workspaceId, ctx.ws.id),
          eq(webhookDeliveries.endpointId, endpointId),
          inArray(webhookDeliveries.state, ['pending', 'retrying']),
        ),
      ),
  ]);
  if (deleted.length === 0) throw WebhookErrors.endpointNotFound();
}

/** The workspace's endpoint `id`, active or not (a batchable read; no row when it is not the workspace's). */
export const selectEndpoint = (ctx: ServiceContext, id: string) =>
  ctx.db
    .select({ id: webhookEndpoints.id, url: webhookEndpoints.url, secret: webhookEndpoints.secret, isActive: webhookEndpoints.isActive })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.workspaceId, ctx.ws.id), eq(webhookEndpoints.id, id)));
