import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { createRouter, idParams } from '../../platform/validation';
import { Order, OrderCancel, OrderCreate, OrderList, OrderListQuery, OrderMarkPaid, OrderRefundInput, OrderRefundResult } from './dto';
import { listOrders } from './list';
import { createOrder } from './create-order';
import { getOrder } from './read';
import { cancelOrder, markOrderPaid, refundOrder } from './transitions';
import { CONTACT_REFERENCE_ERRORS } from '../contacts';
import { OrderErrors } from './errors';
import { ProductErrors } from '../products';

export const orderRoutes = createRouter();
const tags = ['Orders'];
const readOnly = 'An order synced from a store is read-only (one created through the API never is).';

orderRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/orders',
    operationId: 'listOrders',
    ignoredQuery: ['search'],
    tags,
    summary: 'List orders',
    description: 'Rows with the contact join and without items or refunds, newest `placed_at` first. Paging never answers 400.',
    security: bearer,
    request: { query: OrderListQuery },
    responses: { 200: jsonContent(OrderList, 'A page of orders') },
    errors: [OrderErrors.invalidUuidFilter, OrderErrors.invalidDateFilter],
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
    responses: { 200: jsonContent(Order, 'The full order') },
    errors: [OrderErrors.notFound],
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
      'Money is computed by the server in integer cents, half-up: `line_total = round2(quantity * unit_price * (1 - discount_percent / 100))`, ' +
      '`subtotal` the sum of line totals, `total = max(0, subtotal - discount_total + shipping_total + tax_total)`. ' +
      '`order_number` is sequential per workspace. `financial_status: paid` records a completed one-time payment for the total ' +
      '(`external_reference` `order:<order id>`) and fires `order.created` then `order.paid`. On an `external_reference` match the order ' +
      'is updated instead: `note`, `coupon_codes`, `placed_at`, `deal_id` always; `items`, `currency` and the totals only while `pending`; ' +
      '`financial_status` and the contact never; the answer is the same full order (no `duplicate`). ' +
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
    responses: { 201: jsonContent(Order, 'The created (or replayed) order') },
    errors: [
      OrderErrors.noContact,
      OrderErrors.itemTitleRequired,
      ProductErrors.invalidProduct.line,
      ProductErrors.productInactive.line,
      OrderErrors.itemPriceRequired,
      OrderErrors.invalidPlacedAt,
      OrderErrors.negativeAmount,
      OrderErrors.amountTooLarge,
      OrderErrors.quantityNotPositive,
      OrderErrors.quantityTooLarge,
      OrderErrors.discountOutOfRange,
      OrderErrors.lineTotalTooLarge,
      OrderErrors.totalTooLarge,
      SharedErrors.planLimitExceeded.orders,
      ...CONTACT_REFERENCE_ERRORS,
      OrderErrors.dealNotFound,
      OrderErrors.dealContactMismatch,
      OrderErrors.storeSyncedReadOnly,
      SharedErrors.concurrentChange,
    ],
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
      'Only orders that were ever paid. The order becomes `partially_refunded`, or `refunded` when the refund exhausts the remaining total; ' +
      '`refunded_at` is the latest refund instant. The refund is mirrored into the recorded one-time payment as a ledger refund entry ' +
      '(up to what its charge can still give back). With `external_refund_id` a repeat applies nothing and answers `duplicate: true`; ' +
      'without it every call appends a refund. Parallel refunds never pass the total. ' +
      readOnly,
    security: bearer,
    request: { params: idParams, body: jsonBody(OrderRefundInput, { amount: 10, external_refund_id: 're_7781_1', reason: 'Damaged in transit' }) },
    responses: { 201: jsonContent(OrderRefundResult, '`{duplicate, order}`') },
    errors: [
      OrderErrors.neverPaid,
      OrderErrors.refundNotPositive,
      OrderErrors.refundExceedsTotal,
      OrderErrors.invalidRefundedAt,
      OrderErrors.notFound,
      OrderErrors.storeSyncedReadOnly,
    ],
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
      '`pending` (also when cancelled) and `partially_paid` become `paid`: `paid_at` is stamped on first entry, and a completed one-time ' +
      'payment for the total is recorded (`external_reference` `order:<order id>`), or the existing payment named by `payment_reference` ' +
      'is linked (its amount is never rewritten). `paid` answers 201 unchanged with no side effects. ' +
      readOnly,
    security: bearer,
    request: { params: idParams, body: jsonBody(OrderMarkPaid, { payment_reference: 'shop-payment-7781' }) },
    responses: { 201: jsonContent(Order, 'The paid order') },
    errors: [
      OrderErrors.notFound,
      OrderErrors.paymentReferenceNotFound,
      OrderErrors.illegalTransition,
      OrderErrors.paymentContactMismatch,
      OrderErrors.paymentNotLinkable,
      OrderErrors.paymentAlreadyLinked,
      OrderErrors.storeSyncedReadOnly,
      SharedErrors.concurrentChange,
    ],
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
    description:
      'Stamps `cancelled_at`; `financial_status` is unchanged. An already-cancelled order answers 201 unchanged (no second `order.cancelled`). ' +
      readOnly,
    security: bearer,
    request: { params: idParams, body: jsonBody(OrderCancel, {}) },
    responses: { 201: jsonContent(Order, 'The cancelled order') },
    errors: [OrderErrors.notFound, OrderErrors.storeSyncedReadOnly, SharedErrors.concurrentChange],
  }),
  async (c) => c.json(await cancelOrder(serviceContext(c), c.req.valid('param').id.toLowerCase()), 201),
);
