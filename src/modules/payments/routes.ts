import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { createRouter, idParams } from '../../platform/validation';
import {
  entryParams,
  Payment,
  PaymentCancel,
  PaymentCreate,
  PaymentCreated,
  PaymentList,
  PaymentListQuery,
  PaymentMark,
  PaymentPatch,
  PaymentRefund,
} from './dto';
import { refundPayment } from './refunds';
import { listPayments } from './list';
import { createPayment } from './create-payment';
import { patchPayment } from './payment-changes';
import { cancelPayment, markEntry } from './payment-status';
import { getPayment } from './read';
import { CONTACT_REFERENCE_ERRORS } from '../contacts';
import { PaymentErrors } from './errors';
import { ProductErrors } from '../products';

export const paymentRoutes = createRouter();
const tags = ['Payments'];

/** The rules a create and a PATCH share: amount, end conditions, VAT, metadata and the product. */
const fieldErrors = [
  PaymentErrors.negativeAmount,
  PaymentErrors.amountTooLarge,
  PaymentErrors.invalidEndAt,
  PaymentErrors.endBeforePurchase,
  PaymentErrors.invalidMaxOccurrences,
  PaymentErrors.vatNotRecurring,
  PaymentErrors.vatHalf,
  PaymentErrors.invalidVatRate,
  PaymentErrors.metadataTooLarge,
  PaymentErrors.metadataOutOfBounds,
  ProductErrors.invalidProduct.reference,
  ProductErrors.productInactive.reference,
];

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
    responses: { 200: jsonContent(PaymentList, 'A page of payments') },
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
    responses: { 200: jsonContent(Payment, 'The payment header with its entries ordered by `sequence`') },
    errors: [PaymentErrors.notFound],
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
      'Resolves the contact (contact_id wins; else the phone/email upsert) and the product (`product_id`, `product_sku`, ' +
      '`product_external_id`, first given wins). One-time payments record one entry; recurring plans record their first cycle ' +
      '(unless `record_first_payment` is false) and later cycles when due; installment deals record `installment_count` monthly entries. ' +
      'On an `external_reference` match only the mutable fields are applied (`duplicate: true`).',
    security: bearer,
    request: {
      body: jsonBody(PaymentCreate, {
        type: 'one_time',
        email: 'buyer@acme.example',
        name: 'Bo Buyer',
        amount: 49.9,
        currency: 'EUR',
        method: 'card',
        external_reference: 'shop-order-7781',
      }),
    },
    responses: { 201: jsonContent(PaymentCreated, 'Created or matched payment with its entries') },
    errors: [
      PaymentErrors.invalidType,
      PaymentErrors.installmentsTooFew,
      PaymentErrors.installmentsTooMany,
      PaymentErrors.invalidPurchaseDate,
      ...fieldErrors,
      PaymentErrors.noContact,
      ...CONTACT_REFERENCE_ERRORS,
      SharedErrors.concurrentChange,
    ],
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
    description: 'Type-restricted fields are ignored on other types, except the VAT pair (400 `vatMode/vatRate apply to recurring plans only`).',
    security: bearer,
    request: { params: idParams, body: jsonBody(PaymentPatch, { note: 'Paid at the front desk', method: 'cash', metadata: { till: 3 } }) },
    responses: { 200: jsonContent(Payment, 'The updated payment') },
    errors: [...fieldErrors, PaymentErrors.hasRefunds, PaymentErrors.amountBelowRefunded, PaymentErrors.notFound],
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
    description: 'Sets `recurring_cancelled_at`, turns auto-generation off and clears the next due date; recorded entries are untouched.',
    security: bearer,
    request: { params: idParams, body: jsonBody(PaymentCancel, {}) },
    responses: { 201: jsonContent(Payment, 'The cancelled plan') },
    errors: [PaymentErrors.notRecurring, PaymentErrors.notFound],
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
    description: '`completed` stamps `paid_at` and recognizes revenue; a one-time header mirrors its entry.',
    security: bearer,
    request: { params: entryParams, body: jsonBody(PaymentMark, { status: 'completed' }) },
    responses: { 201: jsonContent(Payment, 'The full parent payment') },
    errors: [
      PaymentErrors.refundEntryNotMarkable,
      PaymentErrors.hasRefunds,
      PaymentErrors.notFound,
      PaymentErrors.entryNotFound,
      SharedErrors.concurrentChange,
    ],
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
      'A ledger refund entry (negative amounts, `status: refunded`). Partial refunds add up to the charge recognized value at most, ' +
      'parallel refunds included.',
    security: bearer,
    request: { params: idParams, body: jsonBody(PaymentRefund, { amount: 10, note: 'Goodwill' }) },
    responses: { 201: jsonContent(Payment, 'The payment with the new refund entry') },
    errors: [
      PaymentErrors.entryRequired,
      PaymentErrors.chargeNotRefundable,
      PaymentErrors.chargeNotRecognized,
      PaymentErrors.refundNotPositive,
      PaymentErrors.chargeNoLongerRefundable,
      PaymentErrors.chargeFullyRefunded,
      PaymentErrors.refundExceedsBalance,
      PaymentErrors.notFound,
      PaymentErrors.entryNotFound,
      SharedErrors.concurrentChange,
    ],
  }),
  async (c) => c.json(await refundPayment(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 201),
);
