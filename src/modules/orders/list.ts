import { and, desc, eq, gte, lte, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { OrderErrors } from './errors';
import { envelope, type Paging } from '../../platform/list';
import { preparedList } from '../../platform/d1/prepared';
import { isUuid } from '../../platform/validation';
import { parseIsoInZone } from '../../platform/calendar';
import { selectOrdersWithContact, serializeHeader, type OrderWithContactRow } from './read';
import { FINANCIAL_STATUSES, orders, ORDER_SOURCES } from './schema';

export type OrderListParams = Partial<
  Record<'status' | 'contact_id' | 'source' | 'store_connection_id' | 'external_reference' | 'placed_from' | 'placed_to' | 'limit' | 'offset', string>
>;

/** Orders paging never answers 400: a malformed or zero `limit` is 25, others clamp to 1..100; a malformed or negative `offset` is 0. */
function orderPaging(params: { limit?: string; offset?: string }): Paging {
  const limitText = params.limit?.trim() ?? '';
  const offsetText = params.offset?.trim() ?? '';
  const n = /^[+-]?\d+$/.test(limitText) ? Number(limitText) : 0;
  const limit = n === 0 ? 25 : Math.min(100, Math.max(1, n));
  const offset = /^\+?\d+$/.test(offsetText) ? Math.min(Number(offsetText), Number.MAX_SAFE_INTEGER) : 0;
  return { limit, offset };
}

const present = (v: string | undefined): v is string => v !== undefined && v !== '';

/** Header rows (no lines) with their contact's identity. */
const run = preparedList<
  'status' | 'contact_id' | 'source' | 'store_connection_id' | 'external_reference' | 'placed_from' | 'placed_to',
  OrderWithContactRow
>(
  {
    status: orders.financialStatus,
    contact_id: orders.contactId,
    source: orders.source,
    store_connection_id: orders.storeConnectionId,
    external_reference: orders.externalReference,
    placed_from: (from) => gte(orders.placedAt, from),
    placed_to: (to) => lte(orders.placedAt, to),
  },
  (_, where, ws) => ({
    count: (db) =>
      db
        .select({ total: sql<number>`count(*)` })
        .from(orders)
        .where(and(eq(orders.workspaceId, ws), where)),
    page: (db) => selectOrdersWithContact(db, ws, where).orderBy(desc(orders.placedAt), desc(orders.id)),
  }),
);

/**
 * Filters with the documented messages; newest `placed_at` first; the total and the page in one
 * statement (`preparedList`).
 */
export async function listOrders(ctx: ServiceContext, params: OrderListParams) {
  const paging = orderPaging(params);
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  if (present(params.status) && (FINANCIAL_STATUSES as readonly string[]).includes(params.status)) values.status = params.status;
  if (present(params.contact_id)) {
    if (!isUuid(params.contact_id)) throw OrderErrors.invalidUuidFilter({ name: 'contact_id' });
    values.contact_id = params.contact_id.toLowerCase();
  }
  if (present(params.source) && (ORDER_SOURCES as readonly string[]).includes(params.source)) values.source = params.source;
  if (present(params.store_connection_id)) {
    if (!isUuid(params.store_connection_id)) throw OrderErrors.invalidUuidFilter({ name: 'store_connection_id' });
    values.store_connection_id = params.store_connection_id.toLowerCase();
  }
  if (present(params.external_reference)) values.external_reference = params.external_reference;
  if (present(params.placed_from)) {
    values.placed_from = parseIsoInZone(params.placed_from, ctx.ws.timezone);
    if (!values.placed_from) throw OrderErrors.invalidDateFilter({ name: 'placed_from' });
  }
  if (present(params.placed_to)) {
    values.placed_to = parseIsoInZone(params.placed_to, ctx.ws.timezone, true);
    if (!values.placed_to) throw OrderErrors.invalidDateFilter({ name: 'placed_to' });
  }
  const { total, rows } = await run(ctx.db, values);
  return envelope(rows.map(serializeHeader), total, paging);
}
