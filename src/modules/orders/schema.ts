import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const FINANCIAL_STATUSES = ['pending', 'paid', 'partially_paid', 'refunded', 'partially_refunded', 'voided'] as const;
export type FinancialStatus = (typeof FINANCIAL_STATUSES)[number];
export const FULFILLMENT_STATUSES = ['unfulfilled', 'partially_fulfilled', 'fulfilled'] as const;
export type FulfillmentStatus = (typeof FULFILLMENT_STATUSES)[number];
/** `source`/`platform` of orders not synced from a store. */
export const ORDER_SOURCES = ['manual', 'api', 'automation'] as const;

/** An order of a contact: header with server-computed money (integer cents). */
export const orders = sqliteTable(
  'orders',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    contactId: text('contact_id').notNull(),
    /** Per-workspace sequence, taken from `order_counters` inside the create batch. */
    orderNumber: integer('order_number').notNull(),
    /** Store display number; null for API and application orders. */
    number: text('number'),
    platform: text('platform').notNull(),
    source: text('source').notNull(),
    storeConnectionId: text('store_connection_id'),
    storeDomain: text('store_domain'),
    externalOrderId: text('external_order_id'),
    externalUpdatedAt: text('external_updated_at'),
    externalReference: text('external_reference'),
    dealId: text('deal_id'),
    financialStatus: text('financial_status', { enum: FINANCIAL_STATUSES }).notNull(),
    fulfillmentStatus: text('fulfillment_status', { enum: FULFILLMENT_STATUSES }).notNull(),
    currency: text('currency').notNull(),
    totalCents: integer('total_cents').notNull(),
    subtotalCents: integer('subtotal_cents').notNull(),
    discountTotalCents: integer('discount_total_cents').notNull(),
    shippingTotalCents: integer('shipping_total_cents').notNull(),
    taxTotalCents: integer('tax_total_cents').notNull(),
    /** Sum of the order's refunds; a guarded write keeps it at most `total_cents`. */
    refundedTotalCents: integer('refunded_total_cents').notNull().default(0),
    itemCount: integer('item_count').notNull(),
    firstItemName: text('first_item_name'),
    couponCodes: text('coupon_codes', { mode: 'json' }).$type<string[]>().notNull(),
    placedAt: text('placed_at').notNull(),
    paidAt: text('paid_at'),
    cancelledAt: text('cancelled_at'),
    refundedAt: text('refunded_at'),
    paymentReference: text('payment_reference'),
    paymentSyncedAt: text('payment_synced_at'),
    note: text('note'),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdBy: text('created_by'),
    /** Bumped by every write; guarded writes expect the value they read (optimistic concurrency). */
    revision: integer('revision').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('orders_workspace_order_number').on(t.workspaceId, t.orderNumber),
    uniqueIndex('orders_workspace_external_reference').on(t.workspaceId, t.externalReference),
    // One payment backs at most one order.
    uniqueIndex('orders_workspace_payment_reference').on(t.workspaceId, t.paymentReference),
    index('orders_workspace_placed_at').on(t.workspaceId, t.placedAt),
    index('orders_workspace_contact').on(t.workspaceId, t.contactId),
  ],
);

export type OrderRow = typeof orders.$inferSelect;

/** The last order number handed out per workspace; advanced in the batch that creates an order. */
export const orderCounters = sqliteTable('order_counters', {
  workspaceId: text('workspace_id').primaryKey(),
  lastNumber: integer('last_number').notNull(),
});

export const orderItems = sqliteTable(
  'order_items',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    orderId: text('order_id').notNull(),
    contactId: text('contact_id').notNull(),
    position: integer('position').notNull(),
    productId: text('product_id'),
    externalProductId: text('external_product_id'),
    title: text('title').notNull(),
    sku: text('sku'),
    quantity: real('quantity').notNull(),
    unitPriceCents: integer('unit_price_cents').notNull(),
    discountPercent: real('discount_percent'),
    lineTotalCents: integer('line_total_cents').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('order_items_order_position').on(t.orderId, t.position), index('order_items_workspace_contact').on(t.workspaceId, t.contactId)],
);

export type OrderItemRow = typeof orderItems.$inferSelect;

export const orderRefunds = sqliteTable(
  'order_refunds',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    orderId: text('order_id').notNull(),
    contactId: text('contact_id').notNull(),
    /** Idempotency key of a refund, unique per order when given. */
    externalRefundId: text('external_refund_id'),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    reason: text('reason'),
    refundedAt: text('refunded_at').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('order_refunds_order_external_refund_id').on(t.orderId, t.externalRefundId),
    index('order_refunds_order_refunded_at').on(t.orderId, t.refundedAt),
    index('order_refunds_workspace_contact').on(t.workspaceId, t.contactId),
  ],
);

export type OrderRefundRow = typeof orderRefunds.$inferSelect;
