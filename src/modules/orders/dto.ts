import { z } from '@hono/zod-openapi';
import { knownValuesQuery, textQuery } from '../../platform/list';
import { uuid, uuidOut } from '../../platform/validation';
import { FINANCIAL_STATUSES, FULFILLMENT_STATUSES, ORDER_SOURCES } from './schema';

export const MAX_AMOUNT = 9999999999;
export const MAX_ITEMS = 200;
export const MAX_QUANTITY = 1_000_000;

/*
 * Numeric ranges whose violations have worded messages (`discount_total must be a
 * non-negative number`, ...) are documented here and checked by the service,
 * which answers those messages; the schema checks JSON types and lengths.
 */
const money = (description: string) =>
  z.number().openapi({ minimum: 0, maximum: MAX_AMOUNT, description: `${description}; rounded half-up to 2 decimals` });

export const OrderItemInput = z
  .object({
    product_id: uuid('product_id').optional().openapi({ description: 'Strict: unknown answers 400 `INVALID_PRODUCT`, inactive `PRODUCT_INACTIVE`' }),
    product_sku: z
      .string()
      .max(120)
      .optional()
      .openapi({ description: 'Tolerant: no match keeps the literal title with a null `product_id`; an inactive match answers `PRODUCT_INACTIVE`' }),
    product_external_id: z.string().max(255).optional().openapi({ description: 'Tolerant like `product_sku`' }),
    title: z.string().trim().max(300).optional().openapi({ description: 'Required unless a product resolves; a resolved product names the line' }),
    sku: z.string().max(120).optional().openapi({ description: "Snapshot; falls back to `product_sku`, then the resolved product's sku" }),
    unit_price: z.number().optional().openapi({
      minimum: 0,
      maximum: MAX_AMOUNT,
      description: 'Omitted: the product price; 400 `ORDER_ITEM_PRICE_REQUIRED` for a dynamic-priced product; 0 without a product',
    }),
    quantity: z.number().optional().openapi({ exclusiveMinimum: 0, maximum: MAX_QUANTITY, default: 1, description: 'Decimals allowed' }),
    discount_percent: z.number().nullable().optional().openapi({ minimum: 0, maximum: 100 }),
  })
  .strict()
  .openapi('OrderItemInput');

export const OrderCreate = z
  .object({
    contact_id: uuid('contact_id').optional().openapi({ description: 'Wins over phone/email' }),
    phone: z.string().max(32).optional(),
    email: z.string().trim().max(255).pipe(z.email()).optional().openapi({ format: 'email' }),
    name: z.string().max(200).optional().openapi({ description: 'Used only when a new contact is created' }),
    items: z.array(OrderItemInput).max(MAX_ITEMS).optional(),
    currency: z.string().trim().min(1).max(8).optional().openapi({ description: 'Uppercased; omitted: the workspace currency' }),
    discount_total: money('Order-level discount').optional(),
    shipping_total: money('Shipping').optional(),
    tax_total: money('Tax').optional(),
    financial_status: z.enum(['pending', 'paid']).optional().openapi({
      description:
        '`paid` records a completed one-time payment for the total (`external_reference` `order:<order id>`); never applied on an `external_reference` match',
    }),
    placed_at: z
      .string()
      .max(64)
      .optional()
      .openapi({ format: 'date-time', description: 'ISO 8601; a date-only value is the start of that day in the workspace time zone; default now' }),
    coupon_codes: z.array(z.string().max(255)).max(50).optional(),
    note: z.string().max(5000).optional(),
    deal_id: uuid('deal_id').optional().openapi({ description: 'A deal of the same contact' }),
    external_reference: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({ description: 'Idempotency key, unique per workspace; a match updates the order' }),
  })
  .strict()
  .openapi('OrderCreate');

export const OrderRefundInput = z
  .object({
    amount: z.number().openapi({
      minimum: 0.005,
      maximum: MAX_AMOUNT,
      description: 'Rounded half-up to cents (0.005 is 0.01, anything less 0.00); at most `total - refunded_total`',
    }),
    external_refund_id: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({ description: 'Idempotency key per order: a repeat applies nothing and answers `duplicate: true`' }),
    reason: z.string().max(1000).optional(),
    refunded_at: z.string().max(64).optional().openapi({ format: 'date-time', description: 'ISO 8601; default now' }),
  })
  .strict()
  .openapi('OrderRefundInput');

export const OrderMarkPaid = z
  .object({
    payment_reference: z.string().min(1).max(255).optional().openapi({
      description:
        'The `external_reference` of an existing one-time payment with a completed charge to link instead of recording one; its amount is never rewritten',
    }),
  })
  .strict()
  .openapi('OrderMarkPaid');

export const OrderCancel = z.object({}).strict().openapi('OrderCancel');

export type OrderCreateInput = z.infer<typeof OrderCreate>;
export type OrderItemInputT = z.infer<typeof OrderItemInput>;
export type OrderRefundInputT = z.infer<typeof OrderRefundInput>;
export type OrderMarkPaidInput = z.infer<typeof OrderMarkPaid>;

const amount = () => z.number().openapi({ description: 'JSON number, 2 decimals' });

export const OrderItem = z
  .object({
    id: uuidOut(),
    workspace_id: uuidOut(),
    order_id: uuidOut(),
    position: z.number().int(),
    product_id: uuidOut().nullable(),
    external_product_id: z.string().nullable(),
    title: z.string(),
    sku: z.string().nullable(),
    quantity: z.number(),
    unit_price: amount(),
    discount_percent: z.number().nullable(),
    line_total: amount().openapi({ description: 'Server-computed: round2(quantity * unit_price * (1 - discount_percent / 100))' }),
    created_at: z.string(),
  })
  .openapi('OrderItem');

export const OrderRefund = z
  .object({
    id: uuidOut(),
    workspace_id: uuidOut(),
    order_id: uuidOut(),
    external_refund_id: z.string().nullable(),
    amount: amount(),
    currency: z.string(),
    reason: z.string().nullable(),
    refunded_at: z.string(),
    created_at: z.string(),
  })
  .openapi('OrderRefund');

export const OrderHeader = z
  .object({
    id: uuidOut(),
    workspace_id: uuidOut(),
    contact_id: uuidOut(),
    contact_name: z.string().nullable(),
    contact_phone: z.string().nullable(),
    contact_email: z.string().nullable(),
    order_number: z.number().int(),
    number: z.string().nullable(),
    platform: z.string(),
    source: z.string(),
    store_connection_id: z.string().nullable(),
    store_domain: z.string().nullable(),
    external_order_id: z.string().nullable(),
    external_updated_at: z.string().nullable(),
    external_reference: z.string().nullable(),
    deal_id: uuidOut().nullable(),
    financial_status: z.enum(FINANCIAL_STATUSES),
    fulfillment_status: z.enum(FULFILLMENT_STATUSES),
    currency: z.string(),
    total: amount(),
    subtotal: amount(),
    discount_total: amount(),
    shipping_total: amount(),
    tax_total: amount(),
    refunded_total: amount(),
    item_count: z.number().int(),
    first_item_name: z.string().nullable(),
    coupon_codes: z.array(z.string()),
    placed_at: z.string(),
    paid_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
    refunded_at: z.string().nullable(),
    payment_reference: z.string().nullable(),
    payment_synced_at: z.string().nullable(),
    note: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('OrderListRow');

export const Order = OrderHeader.extend({ items: z.array(OrderItem), refunds: z.array(OrderRefund) }).openapi('Order');
export const OrderRefundResult = z.object({ duplicate: z.boolean(), order: Order }).openapi('OrderRefundResult');

export const OrderList = z
  .object({ data: z.array(OrderHeader), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('OrderList');

const uuidFilter = (name: string, extra = '') =>
  z
    .string()
    .optional()
    .openapi({
      type: 'string',
      format: 'uuid',
      description: `Exact match${extra}; empty is ignored; malformed answers 400 \`${name} must be a UUID\``,
    });
const dateFilter = (name: string, description: string) =>
  z
    .string()
    .optional()
    .openapi({
      type: 'string',
      format: 'date-time',
      description: `${description}; empty is ignored; unparseable answers 400 \`${name} is not a valid date\``,
    });

/** Orders paging never answers 400: malformed or zero `limit` is 25, others clamp to 1..100; malformed or negative `offset` is 0. */
export const OrderListQuery = z.object({
  status: knownValuesQuery(FINANCIAL_STATUSES, 'Financial status'),
  contact_id: uuidFilter('contact_id'),
  source: knownValuesQuery(ORDER_SOURCES, 'Exact match'),
  store_connection_id: uuidFilter('store_connection_id', ' (matches only store-synced orders)'),
  external_reference: textQuery('Exact match'),
  placed_from: dateFilter('placed_from', '`placed_at` at or after (ISO 8601; a date-only value is the start of that day in the workspace time zone)'),
  placed_to: dateFilter('placed_to', '`placed_at` at or before (ISO 8601; a date-only value is the end of that day in the workspace time zone)'),
  limit: z.string().optional().openapi({
    type: 'integer',
    default: 25,
    description: 'Page size. Never 400: empty, malformed or 0 is 25; a negative value is 1 and one above 100 is 100',
  }),
  offset: z.string().optional().openapi({ type: 'integer', default: 0, description: 'Rows to skip. Never 400: empty, malformed or negative is 0' }),
});
