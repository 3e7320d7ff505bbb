import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, errorResponses, jsonBody, jsonContent } from '../../platform/openapi';
import { createRouter, idParams } from '../../platform/validation';
import { Order, OrderCancel, OrderCreate, OrderList, OrderListQuery, OrderMarkPaid, OrderRefundInput, OrderRefundResult } from './dto';
import { listOrders } from './list';
import { createOrder, getOrder } from './service';
import { cancelOrder, markOrderPaid, refundOrder } from './transitions';

export const orderRoutes = createRouter();
const tags = ['Orders'];
const readOnly = '409 `STORE_SYNCED_READ_ONLY` for store-synced orders (never for orders created through the API).';

orderRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/orders',
    operationId: 'listOrders',
    tags,
    summary: 'List orders',
    description:
      'Rows with the contact join and without items or refunds, newest `placed_at` first. Paging never answers 400. 400 `contact_id must be a UUID`, `store_connection_id must be a UUID`, `placed_from is not a valid date`, `placed_to is not a valid date`.',
    security: bearer,
    request: { query: OrderListQuery },
    responses: { 200: jsonContent(OrderList, 'A page of orders'), ...errorResponses() },
  }),
  async (c) => c.json(await listOrders(serviceContext(c), c.req.valid('query')), 200),
);

orderRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/orders/{id}',
    operationId: 'getOrder',
    tags,
    summary: 'Get an order with its items and refunds',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Order, 'The full order'), ...errorResponses({ 404: { description: '`Order not found`' } }) },
  }),
  async (c) => c.json(await getOrder(serviceContext(c), c.req.valid('param').id.toLowerCase()), 200),
);

orderRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/orders',
    operationId: 'createOrder',
    tags,
    summary: 'Create an order (replay by external_reference)',
    description:
      'Money is computed by the server in integer cents, half-up: `line_total = round2(quantity * unit_price * (1 - discount_percent / 100))`, `subtotal` the sum of line totals, `total = max(0, subtotal - discount_total + shipping_total + tax_total)`. `order_number` is sequential per workspace. `financial_status: paid` records a completed one-time payment for the total (`external_reference` `order:<order id>`) and fires `order.created` then `order.paid`. On an `external_reference` match the order is updated instead: `note`, `coupon_codes`, `placed_at`, `deal_id` always; `items`, `currency` and the totals only while `pending`; `financial_status` and the contact never; the answer is the same full order (no `duplicate`). 400 `Order items require a title or product_id`, `INVALID_PRODUCT`, `PRODUCT_INACTIVE`, `ORDER_ITEM_PRICE_REQUIRED`, `placed_at is not a valid date`, `discount_total must be a non-negative number` (and likewise), `Provide contact_id, or a phone/email to attach the order to a contact`; 403 `PLAN_LIMIT_EXCEEDED` when the orders cap is reached. ' +
      readOnly,
    security: bearer,
    request: {
      body: jsonBody(OrderCreate, {
        email: 'buyer@acme.example',
        name: 'Bo Buyer',
        items: [
          { title: 'Espresso beans 1 kg', sku: 'BEAN-1K', unit_price: 24.9, quantity: 2 },
          { title: 'Grinder', unit_price: 129, discount_percent: 10 },
        ],
        shipping_total: 4.95,
        coupon_codes: ['WELCOME'],
        external_reference: 'shop-order-7781',
      }),
    },
    responses: {
      201: jsonContent(Order, 'The created (or replayed) order'),
      ...errorResponses({
        404: { description: '`Contact not found`, `ORDER_DEAL_NOT_FOUND`' },
        409: { description: '`CONTACT_MERGE_REQUIRED` (with `merge_request_id`), `ORDER_DEAL_CONTACT_MISMATCH`, `STORE_SYNCED_READ_ONLY`' },
      }),
    },
  }),
  async (c) => c.json(await createOrder(serviceContext(c), c.req.valid('json')), 201),
);

orderRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/orders/{id}/refunds',
    operationId: 'createOrderRefund',
    tags,
    summary: 'Record a refund of an order',
    description:
      'Only orders that were ever paid. The order becomes `partially_refunded`, or `refunded` when the refund exhausts the remaining total; `refunded_at` is the latest refund instant. The refund is mirrored into the recorded one-time payment as a ledger refund entry (up to what its charge can still give back). With `external_refund_id` a repeat applies nothing and answers `duplicate: true`; without it every call appends a refund. Parallel refunds never pass the total. 400 `ORDER_NEVER_PAID`, `Refund amount must be a positive number`, `Refund amount exceeds the order\'s remaining total (<x>)`, `refundedAt is not a valid date`. ' +
      readOnly,
    security: bearer,
    request: { params: idParams, body: jsonBody(OrderRefundInput, { amount: 10, external_refund_id: 're_7781_1', reason: 'Damaged in transit' }) },
    responses: {
      201: jsonContent(OrderRefundResult, '`{duplicate, order}`'),
      ...errorResponses({ 404: { description: '`Order not found`' }, 409: { description: '`STORE_SYNCED_READ_ONLY`' } }),
    },
  }),
  async (c) => c.json(await refundOrder(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 201),
);

orderRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/orders/{id}/mark-paid',
    operationId: 'markOrderPaid',
    tags,
    summary: 'Mark an order paid',
    description:
      '`pending` (also when cancelled) and `partially_paid` become `paid`: `paid_at` is stamped on first entry, and a completed one-time payment for the total is recorded (`external_reference` `order:<order id>`), or the existing payment named by `payment_reference` is linked (its amount is never rewritten). `paid` answers 201 unchanged with no side effects. ' +
      readOnly,
    security: bearer,
    request: { params: idParams, body: jsonBody(OrderMarkPaid, { payment_reference: 'shop-payment-7781' }) },
    responses: {
      201: jsonContent(Order, 'The paid order'),
      ...errorResponses({
        404: { description: '`Order not found`, `ORDER_PAYMENT_REFERENCE_NOT_FOUND`' },
        409: { description: '`ORDER_ILLEGAL_TRANSITION`, `ORDER_PAYMENT_CONTACT_MISMATCH`, `ORDER_PAYMENT_NOT_LINKABLE`, `ORDER_PAYMENT_ALREADY_LINKED`, `STORE_SYNCED_READ_ONLY`' },
      }),
    },
  }),
  async (c) => c.json(await markOrderPaid(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 201),
);

orderRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/orders/{id}/cancel',
    operationId: 'cancelOrder',
    tags,
    summary: 'Cancel an order',
    description: 'Stamps `cancelled_at`; `financial_status` is unchanged. An already-cancelled order answers 201 unchanged (no second `order.cancelled`). ' + readOnly,
    security: bearer,
    request: { params: idParams, body: jsonBody(OrderCancel, {}) },
    responses: { 201: jsonContent(Order, 'The cancelled order'), ...errorResponses({ 404: { description: '`Order not found`' }, 409: { description: '`STORE_SYNCED_READ_ONLY`' } }) },
  }),
  async (c) => c.json(await cancelOrder(serviceContext(c), c.req.valid('param').id.toLowerCase()), 201),
);
