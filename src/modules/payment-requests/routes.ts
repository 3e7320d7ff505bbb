import { serviceContext } from '../../platform/context';
import { publicBaseUrl } from '../../platform/public-base';
import { parseBooleanParam } from '../../platform/list';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { createRouter, idParams } from '../../platform/validation';
import { configuredProvider, paymentProvider } from '../../providers/payments';
import { hasFeature } from '../../platform/workspace';
import { listContactDocuments } from './documents';
import {
  ContactDocuments,
  ContactDocumentsQuery,
  PaymentRequest,
  PaymentRequestCancel,
  PaymentRequestCreate,
  PaymentRequestList,
  PaymentRequestListQuery,
} from './dto';
import { createPaymentRequest } from './create-payment-request';
import { listPaymentRequests } from './payment-request-list';
import { getPaymentRequest } from './payment-request-lookup';
import { cancelPaymentRequest } from './status-changes';
import { CONTACT_REFERENCE_ERRORS, ContactErrors } from '../contacts';
import { PaymentRequestErrors } from './errors';
import { DealErrors } from '../deals';

export const paymentRequestRoutes = createRouter();
const tags = ['Payment requests'];

/** The origin of the links the service hands out: `PUBLIC_BASE_URL`, else the request's own origin. */

paymentRequestRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payment-requests',
    operationId: 'listPaymentRequests',
    tags,
    summary: 'List payment requests',
    description: 'Newest first. 400 for an unknown `status`, a malformed `contact_id`/`deal_id` or malformed paging.',
    security: bearer,
    request: { query: PaymentRequestListQuery },
    responses: { 200: jsonContent(PaymentRequestList, 'A page of payment requests') },
  }),
  async (c) => c.json(await listPaymentRequests(serviceContext(c), c.req.valid('query')), 200),
);

paymentRequestRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/payment-requests/{id}',
    operationId: 'getPaymentRequest',
    tags,
    summary: 'Get a payment request',
    description:
      'The full record, including the provider correlation references (`provider_session_id`, `provider_payment_ref`), which events never carry.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(PaymentRequest, 'The payment request') },
    errors: [PaymentRequestErrors.notFound],
  }),
  async (c) => c.json(await getPaymentRequest(serviceContext(c), c.req.valid('param').id.toLowerCase()), 200),
);

paymentRequestRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/payment-requests',
    operationId: 'createPaymentRequest',
    tags,
    summary: 'Mint a hosted pay-link',
    description:
      'Not idempotent: every call mints a new, independently payable link (cancel extras). The contact is resolved like deals ' +
      "(`contact_id` wins; else the phone/email upsert). `pay_url` is this service's own page. Fires `payment_request.created`.",
    security: bearer,
    request: {
      body: jsonBody(PaymentRequestCreate, { email: 'payer@acme.example', name: 'Pat Payer', amount: 120, currency: 'EUR', title: 'Workshop seat' }),
    },
    responses: { 201: jsonContent(PaymentRequest, 'The new pending payment request') },
    errors: [
      PaymentRequestErrors.amountNotPositive,
      PaymentRequestErrors.amountTooLarge,
      PaymentRequestErrors.vatHalf,
      PaymentRequestErrors.invalidVatRate,
      PaymentRequestErrors.invalidExpiresAt,
      PaymentRequestErrors.expiresInPast,
      PaymentRequestErrors.noContact,
      ...CONTACT_REFERENCE_ERRORS,
      DealErrors.notFound,
      PaymentRequestErrors.dealContactMismatch,
      SharedErrors.concurrentChange,
    ],
  }),
  async (c) =>
    c.json(
      await createPaymentRequest(serviceContext(c), c.req.valid('json'), {
        baseUrl: publicBaseUrl(c.env, c.req.url),
        provider: configuredProvider(c.env),
      }),
      201,
    ),
);

paymentRequestRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/payment-requests/{id}/cancel',
    operationId: 'cancelPaymentRequest',
    tags,
    summary: 'Cancel a pending payment request',
    description:
      'Stamps `cancelled_at`, fires `payment_request.cancelled` and expires the provider checkout where there is one. ' +
      "A payer already on the provider's page may still complete (late completion: the link becomes `paid`).",
    security: bearer,
    request: { params: idParams, body: jsonBody(PaymentRequestCancel, {}) },
    responses: { 201: jsonContent(PaymentRequest, 'The cancelled payment request') },
    errors: [PaymentRequestErrors.notFound, PaymentRequestErrors.notPending, SharedErrors.concurrentChange],
  }),
  async (c) =>
    c.json(await cancelPaymentRequest(serviceContext(c), c.req.valid('param').id.toLowerCase(), (name) => paymentProvider(c.env, name)), 201),
);

paymentRequestRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contacts/{id}/documents',
    operationId: 'listContactDocuments',
    tags: ['Contacts'],
    summary: "List a contact's financial documents",
    description:
      "Invoices, receipts and credit documents from the stored pointers of the contact's payments (`metadata.document`), " +
      'refund entries (`credit_document`) and payment requests, deduplicated by provider document id, ' +
      "merged with the payment provider's own listing when `live=true` (bounded to 2.5 s; " +
      'a timeout or failure answers the stored listing with `live.error`), sorted by date descending with nulls last. Needs the `payments` feature.',
    security: bearer,
    request: { params: idParams, query: ContactDocumentsQuery },
    responses: { 200: jsonContent(ContactDocuments, 'The documents and how the live listing went') },
    errors: [ContactErrors.idNotFound],
  }),
  async (c) => {
    const live = parseBooleanParam('live', c.req.valid('query').live) ?? false;
    const ctx = serviceContext(c);
    // The connected provider is part of the hosted-payments entitlement; without it the live listing is empty.
    const provider = hasFeature(ctx.ws, 'workspace_payments') ? paymentProvider(c.env) : null;
    return c.json(await listContactDocuments(ctx, c.req.valid('param').id.toLowerCase(), { live, provider }), 200);
  },
);
