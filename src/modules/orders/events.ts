import { fromCents } from '../../platform/money';
import { orderMoney } from './read';
import type { OrderRefundRow, OrderRow } from './schema';

/**
 * The Part 3 order snapshot every `order.*` event carries, with explicit nulls:
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
      ? { refund: { amount: fromCents(refund.amountCents), external_refund_id: refund.externalRefundId, reason: refund.reason, refunded_at: refund.refundedAt } }
      : {}),
  };
}
