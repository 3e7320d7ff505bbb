import { and, eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import type { Db } from '../../platform/d1/db';
import { runOperation, unchanged } from '../../platform/d1/operation';
import { fromCents } from '../../platform/money';
import { childRowsJson } from '../../platform/d1/child-rows';
import { prepared } from '../../platform/d1/prepared';
import type { RowsOf } from '../../platform/d1/typed-read';
import { contactIdentityColumns, contactIdentityJoin, serializeContactIdentity, type ContactIdentity } from '../contacts';
import { orderItems, orderRefunds, orders, type OrderItemRow, type OrderRefundRow, type OrderRow } from './schema';
import { OrderErrors } from './errors';

/** The six money fields of an order as JSON numbers (responses and event data). */
export const orderMoney = (o: OrderRow) => ({
  total: fromCents(o.totalCents),
  subtotal: fromCents(o.subtotalCents),
  discount_total: fromCents(o.discountTotalCents),
  shipping_total: fromCents(o.shippingTotalCents),
  tax_total: fromCents(o.taxTotalCents),
  refunded_total: fromCents(o.refundedTotalCents),
});

export type OrderWithContactRow = { order: OrderRow } & ContactIdentity;

export function serializeHeader(r: OrderWithContactRow) {
  const o = r.order;
  return {
    id: o.id,
    workspace_id: o.workspaceId,
    contact_id: o.contactId,
    ...serializeContactIdentity(r),
    order_number: o.orderNumber,
    number: o.number,
    platform: o.platform,
    source: o.source,
    store_connection_id: o.storeConnectionId,
    store_domain: o.storeDomain,
    external_order_id: o.externalOrderId,
    external_updated_at: o.externalUpdatedAt,
    external_reference: o.externalReference,
    deal_id: o.dealId,
    financial_status: o.financialStatus,
    fulfillment_status: o.fulfillmentStatus,
    currency: o.currency,
    ...orderMoney(o),
    item_count: o.itemCount,
    first_item_name: o.firstItemName,
    coupon_codes: o.couponCodes,
    placed_at: o.placedAt,
    paid_at: o.paidAt,
    cancelled_at: o.cancelledAt,
    refunded_at: o.refundedAt,
    payment_reference: o.paymentReference,
    payment_synced_at: o.paymentSyncedAt,
    note: o.note,
    metadata: o.metadata ?? null,
    created_by: o.createdBy,
    created_at: o.createdAt,
    updated_at: o.updatedAt,
  };
}

export const serializeItem = (i: OrderItemRow) => ({
  id: i.id,
  workspace_id: i.workspaceId,
  order_id: i.orderId,
  position: i.position,
  product_id: i.productId,
  external_product_id: i.externalProductId,
  title: i.title,
  sku: i.sku,
  quantity: i.quantity,
  unit_price: fromCents(i.unitPriceCents),
  discount_percent: i.discountPercent,
  line_total: fromCents(i.lineTotalCents),
  created_at: i.createdAt,
});

export const serializeRefund = (r: OrderRefundRow) => ({
  id: r.id,
  workspace_id: r.workspaceId,
  order_id: r.orderId,
  external_refund_id: r.externalRefundId,
  amount: fromCents(r.amountCents),
  currency: r.currency,
  reason: r.reason,
  refunded_at: r.refundedAt,
  created_at: r.createdAt,
});

/** Orders with their contact's name, phone and email (and `extra` columns): one query, the join scoped to the workspace too. */
export function selectOrdersWithContact<E extends Record<string, SQL> = Record<never, SQL>>(
  db: Db,
  workspaceId: string | SQLWrapper,
  where?: SQL,
  extra?: E,
) {
  return db
    .select({ order: orders, ...contactIdentityColumns, ...(extra as E) })
    .from(orders)
    .leftJoin(...contactIdentityJoin(orders.contactId, orders.workspaceId))
    .where(and(eq(orders.workspaceId, workspaceId), where));
}

const [ws, orderId] = [sql.placeholder('ws'), sql.placeholder('order')];

const orderByReference = prepared((db) =>
  db
    .select()
    .from(orders)
    .where(and(eq(orders.workspaceId, ws), eq(orders.externalReference, sql.placeholder('reference'))))
    .limit(1),
);

/** The workspace's order carrying an `external_reference`, for a batch (its result: the rows). */
export const selectOrderByReference = (db: Db, workspaceId: string, reference: string) => orderByReference.in(db, { ws: workspaceId, reference });

const itemsJson = childRowsJson(
  orderItems,
  sql`${orderItems.orderId} = ${orders.id} AND ${orderItems.workspaceId} = ${orders.workspaceId}`,
  sql`${orderItems.position}`,
);
const refundsJson = childRowsJson(
  orderRefunds,
  sql`${orderRefunds.orderId} = ${orders.id} AND ${orderRefunds.workspaceId} = ${orders.workspaceId}`,
  sql`${orderRefunds.refundedAt}, ${orderRefunds.id}`,
);

/**
 * The read of a full order: its header with the contact, its lines by position and its refunds by
 * `refunded_at`, as one row (placeholder `ws`; `where` names the order).
 */
const selectFullOrder = (db: Db, where: SQL) =>
  selectOrdersWithContact(db, ws, where, { items: itemsJson.column, refunds: refundsJson.column }).limit(1);

const fullRead = prepared((db) => selectFullOrder(db, eq(orders.id, orderId)));

/** The full order's read, one statement for the end of a batch. */
export const fullOrderRead = (db: Db, workspaceId: string, id: string) => fullRead.in(db, { ws: workspaceId, order: id });

export type FullOrderRow = OrderWithContactRow & { items: OrderItemRow[]; refunds: OrderRefundRow[] };

/** The order a full order's read found, or undefined. */
export function fullOrderRowOf(rows: RowsOf<ReturnType<typeof fullOrderRead>>): FullOrderRow | undefined {
  const [row] = rows;
  return row && { ...row, items: itemsJson.parse(row.items), refunds: refundsJson.parse(row.refunds) };
}

export type FullOrder = ReturnType<typeof serializeHeader> & {
  items: ReturnType<typeof serializeItem>[];
  refunds: ReturnType<typeof serializeRefund>[];
};

export const serializeFullOrder = (row: FullOrderRow): FullOrder => ({
  ...serializeHeader(row),
  items: row.items.map(serializeItem),
  refunds: row.refunds.map(serializeRefund),
});

/** The full order a full order's read found, or null. */
export function fullOrderOf(rows: RowsOf<ReturnType<typeof fullOrderRead>>): FullOrder | null {
  const row = fullOrderRowOf(rows);
  return row ? serializeFullOrder(row) : null;
}

/**
 * The full order after a write guarded on the revision `read` saw: `after`, the order's row as
 * the write set it, with the contact, lines and refunds as read.
 * A committed guarded write proves the row held what was read (every write of an order moves
 * its revision, and no trigger writes `orders`), so re-reading anything would only send it again.
 */
export function orderAsWritten(read: FullOrderRow, after: OrderRow): FullOrder {
  return serializeFullOrder({ ...read, order: after });
}

/** The full order a full order's read found; 404 when it found none. */
export function fullOrder(rows: RowsOf<ReturnType<typeof fullOrderRead>>): FullOrder {
  const order = fullOrderOf(rows);
  if (!order) throw OrderErrors.notFound();
  return order;
}

export async function getOrder(ctx: ServiceContext, id: string): Promise<FullOrder> {
  return runOperation(ctx, { reads: { order: fullOrderRead(ctx.db, ctx.ws.id, id) }, decide: (read) => unchanged(fullOrder(read.order)) });
}

/** The contact an order belongs to, as a scalar subquery (order events name the order, not the contact). */
export const orderContactId = (workspaceId: string, orderId: string) =>
  sql`(SELECT ${orders.contactId} FROM ${orders} WHERE ${orders.workspaceId} = ${workspaceId} AND ${orders.id} = ${orderId})`;
