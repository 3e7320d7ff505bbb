import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, errorResponses, jsonBody, jsonContent } from '../../platform/openapi';
import { createRouter, idParams } from '../../platform/validation';
import { entryParams, Payment, PaymentCancel, PaymentCreate, PaymentCreated, PaymentList, PaymentListQuery, PaymentMark, PaymentPatch, PaymentRefund } from './dto';
import { refundPayment } from './refunds';
import { listPayments } from './list';
import { cancelPayment, createPayment, getPayment, markEntry, patchPayment } from './service';

export const paymentRoutes = createRouter();
const tags = ['Payments'];

const createErrors =
  '`Invalid payment type`; `amount must be a non-negative number`; `installmentCount must be at least 2 for an installment deal`; `installmentCount must be at most 360`; `purchaseDate is not a valid date`; `recurringEndAt is not a valid date`; `recurringEndAt must be after the purchase date`; `recurringMaxOccurrences must be a whole number of at least 1`; `INVALID_PRODUCT`; `PRODUCT_INACTIVE`; `vatMode/vatRate apply to recurring plans only`; `vat_mode and vat_rate must be provided together`; `metadata exceeds 2048 bytes serialized`; `Provide contact_id, or a phone/email to attach the payment to a contact`';

paymentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payments',
    operationId: 'listPayments',
    tags,
    summary: 'List payments',
    description: 'Headers with the contact join and without entries, newest `purchase_date` first.',
    security: bearer,
    request: { query: PaymentListQuery },
    responses: { 200: jsonContent(PaymentList, 'A page of payments'), ...errorResponses() },
  }),
  async (c) => c.json(await listPayments(serviceContext(c), c.req.valid('query')), 200),
);

paymentRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payments/{id}',
    operationId: 'getPayment',
    tags,
    summary: 'Get a payment with its entries',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Payment, 'The payment header with its entries ordered by `sequence`'), ...errorResponses({ 404: { description: '`Payment not found`' } }) },
  }),
  async (c) => c.json(await getPayment(serviceContext(c), c.req.valid('param').id.toLowerCase()), 200),
);

paymentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/payments',
    operationId: 'createPayment',
    tags,
    summary: 'Record a payment (upsert by external_reference)',
    description:
      'Resolves the contact (contact_id wins; else the phone/email upsert) and the product (`product_id`, `product_sku`, `product_external_id`, first given wins). One-time payments record one entry; recurring plans record their first cycle (unless `record_first_payment` is false) and later cycles when due; installment deals record `installment_count` monthly entries. On an `external_reference` match only the mutable fields are applied (`duplicate: true`). 400 messages: ' +
      createErrors +
      '.',
    security: bearer,
    request: {
      body: jsonBody(PaymentCreate, { type: 'one_time', email: 'buyer@acme.example', name: 'Bo Buyer', amount: 49.9, currency: 'EUR', method: 'card', external_reference: 'shop-order-7781' }),
    },
    responses: {
      201: jsonContent(PaymentCreated, 'Created or matched payment with its entries'),
      ...errorResponses({
        404: { description: '`Contact not found`' },
        409: { description: '`CONTACT_MERGE_REQUIRED` with `merge_request_id`' },
      }),
    },
  }),
  async (c) => c.json(await createPayment(serviceContext(c), c.req.valid('json')), 201),
);

paymentRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/payments/{id}',
    operationId: 'updatePayment',
    tags,
    summary: 'Update a payment',
    description:
      'Type-restricted fields are ignored on other types, except the VAT pair (400 `vatMode/vatRate apply to recurring plans only`). 400 `This charge already has refunds; reverse those instead of marking it refunded/failed`, the recurring end-condition, VAT and metadata messages of the create.',
    security: bearer,
    request: { params: idParams, body: jsonBody(PaymentPatch, { note: 'Paid at the front desk', method: 'cash', metadata: { till: 3 } }) },
    responses: { 200: jsonContent(Payment, 'The updated payment'), ...errorResponses({ 404: { description: '`Payment not found`' } }) },
  }),
  async (c) => c.json(await patchPayment(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 200),
);

paymentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/payments/{id}/cancel',
    operationId: 'cancelPayment',
    tags,
    summary: 'Cancel a recurring plan',
    description: 'Sets `recurring_cancelled_at`, turns auto-generation off and clears the next due date; recorded entries are untouched. 400 `Only recurring payments can be cancelled`.',
    security: bearer,
    request: { params: idParams, body: jsonBody(PaymentCancel, {}) },
    responses: { 201: jsonContent(Payment, 'The cancelled plan'), ...errorResponses({ 404: { description: '`Payment not found`' } }) },
  }),
  async (c) => c.json(await cancelPayment(serviceContext(c), c.req.valid('param').id.toLowerCase()), 201),
);

paymentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/payments/{id}/entries/{entryId}/mark',
    operationId: 'markPaymentEntry',
    tags,
    summary: 'Set the status of a payment entry',
    description:
      '`completed` stamps `paid_at` and recognizes revenue; a one-time header mirrors its entry. 400 `Refund entries cannot be marked directly`, `This charge already has refunds; reverse those instead of marking it refunded/failed`.',
    security: bearer,
    request: { params: entryParams, body: jsonBody(PaymentMark, { status: 'completed' }) },
    responses: { 201: jsonContent(Payment, 'The full parent payment'), ...errorResponses({ 404: { description: '`Payment not found`, `Payment entry not found`' } }) },
  }),
  async (c) => {
    const { id, entryId } = c.req.valid('param');
    return c.json(await markEntry(serviceContext(c), id.toLowerCase(), entryId.toLowerCase(), c.req.valid('json').status), 201);
  },
);

paymentRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/payments/{id}/refund',
    operationId: 'refundPayment',
    tags,
    summary: 'Record a refund against a charge',
    description:
      'A ledger refund entry (negative amounts, `status: refunded`). Partial refunds add up to the charge recognized value at most, parallel refunds included. 400 `entryId is required to refund a payment with multiple charges`, `Only a completed (recognized) charge can be refunded`, `This charge is not recognized as revenue yet and cannot be refunded`, `Refund amount must be a positive number`, `This charge is no longer refundable`, `This charge is already fully refunded`, `Refund amount exceeds the refundable balance (<max>)`.',
    security: bearer,
    request: { params: idParams, body: jsonBody(PaymentRefund, { amount: 10, note: 'Goodwill' }) },
    responses: { 201: jsonContent(Payment, 'The payment with the new refund entry'), ...errorResponses({ 404: { description: '`Payment not found`, `Payment entry not found`' } }) },
  }),
  async (c) => c.json(await refundPayment(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 201),
);
