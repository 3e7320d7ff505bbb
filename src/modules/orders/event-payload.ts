import { sql } from 'drizzle-orm';
import { fromCents, fromCentsSql } from '../../platform/money';
import { orderMoney } from './read';
import type { OrderRefundRow, OrderRow } from './schema';

/**
 * The order snapshot (docs/events.md) every `order.*` event carries, with explicit nulls:
 * `number` is the store display number, else the sequential `order_number` as
 * a string; `external_id` the store's order id (null for API orders).
 * `order.refunded` adds the refund that fired it. `order.fulfilled` has no API
 * trigger (fulfilment is recorded in-app or by store sync) and uses the same builder.
 */
export function orderEventData(o: OrderRow, refund: OrderRefundRow | null = null) {
  return {
    order_id: o.id,
    external_id: o.externalOrderId,
    number: o.number ?? String(o.orderNumber),
    platform: o.platform,
    store_connection_id: o.storeConnectionId,
    financial_status: o.financialStatus,
    fulfillment_status: o.fulfillmentStatus,
    currency: o.currency,
    ...orderMoney(o),
    coupon_codes: o.couponCodes,
    item_count: o.itemCount,
    first_item_name: o.firstItemName,
    placed_at: o.placedAt,
    paid_at: o.paidAt,
    cancelled_at: o.cancelledAt,
    refunded_at: o.refundedAt,
    created_at: o.createdAt,
    ...(refund
      ? {
          refund: {
            amount: fromCents(refund.amountCents),
            external_refund_id: refund.externalRefundId,
            reason: refund.reason,
            refunded_at: refund.refundedAt,
          },
        }
      : {}),
  };
}

const money = (column: string) => fromCentsSql(sql.raw(`o.${column}`));

/**
 * `orderEventData(order, refund)` as SQL, for an `order.refunded` written in the batch that
 * decides the refund: the order row `o` as the batch left it and its refund `r` (placeholders
 * `refund` and `ws`). Same keys in the same order; a test holds the two builders equal.
 */
export const refundedEventDataSql = sql`(SELECT json_object(
    'order_id', o.id, 'external_id', o.external_order_id, 'number', coalesce(o.number, CAST(o.order_number AS TEXT)), 'platform', o.platform,
    'store_connection_id', o.store_connection_id, 'financial_status', o.financial_status, 'fulfillment_status', o.fulfillment_status, 'currency', o.currency,
    'total', ${money('total_cents')}, 'subtotal', ${money('subtotal_cents')}, 'discount_total', ${money('discount_total_cents')},
    'shipping_total', ${money('shipping_total_cents')}, 'tax_total', ${money('tax_total_cents')}, 'refunded_total', ${money('refunded_total_cents')},
    'coupon_codes', json(o.coupon_codes), 'item_count', o.item_count, 'first_item_name', o.first_item_name, 'placed_at', o.placed_at, 'paid_at', o.paid_at,
    'cancelled_at', o.cancelled_at, 'refunded_at', o.refunded_at, 'created_at', o.created_at,
    'refund', json_object('amount', ${fromCentsSql(sql`r.amount_cents`)}, 'external_refund_id', r.external_refund_id, 'reason', r.reason, 'refunded_at', r.refunded_at))
  FROM order_refunds r JOIN orders o ON o.id = r.order_id AND o.workspace_id = r.workspace_id
  WHERE r.id = ${sql.placeholder('refund')} AND r.workspace_id = ${sql.placeholder('ws')})`;
