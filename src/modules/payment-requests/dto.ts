import { z } from '@hono/zod-openapi';
import { enumQuery, limitQuery, offsetQuery, uuidQuery, booleanQuery } from '../../platform/list';
import { uuid, uuidOut } from '../../platform/validation';
import { MAX_AMOUNT, VAT_MODES } from '../payments';
import { PAYMENT_REQUEST_STATUSES } from './schema';

export const DEFAULT_EXPIRY_DAYS = 7;

export const PaymentRequestCreate = z
  .object({
    contact_id: uuid('contact_id').optional().openapi({ description: 'Wins over phone/email' }),
    phone: z.string().max(32).optional(),
    email: z.string().trim().max(255).pipe(z.email()).optional().openapi({ format: 'email' }),
    name: z.string().max(200).optional().openapi({ description: 'Used only when a new contact is created' }),
    amount: z.number().openapi({
      minimum: 0.005,
      maximum: MAX_AMOUNT,
      description:
        'Rounded half-up to cents (0.005 is 0.01, anything less 0.00); 400 `amount must be greater than 0` / `amount must be at most 9999999999`',
    }),
    currency: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{3}$/, { message: 'must be a 3-letter currency code' })
      .optional()
      .openapi({ description: 'Uppercased; omitted: the workspace currency' }),
    title: z.string().trim().max(200).optional(),
    deal_id: uuid('deal_id').optional().openapi({
      description:
        "A deal of the same contact: another contact's deal answers 409 `PAYMENT_REQUEST_DEAL_CONTACT_MISMATCH`, an unknown one 404 `Deal not found`",
    }),
    vat_mode: z
      .enum(VAT_MODES)
      .optional()
      .openapi({ description: 'Sent together with `vat_rate`; both omitted: the workspace default pair is stamped' }),
    vat_rate: z
      .number()
      .optional()
      .openapi({ minimum: 0, maximum: 100, multipleOf: 0.01, description: 'Percent, 0 to 100, at most 2 decimals; sent together with `vat_mode`' }),
    expires_at: z
      .string()
      .max(64)
      .optional()
      .openapi({ format: 'date-time', description: `ISO 8601 instant with a zone, in the future; default ${DEFAULT_EXPIRY_DAYS} days from now` }),
    test_mode: z
      .boolean()
      .optional()
      .openapi({ description: 'Authorise-only, never real money; a paid test-mode link records no ledger payment. Default false' }),
  })
  .strict()
  .openapi('PaymentRequestCreate');

export type PaymentRequestCreateInput = z.infer<typeof PaymentRequestCreate>;

export const PaymentRequestCancel = z.object({}).strict().openapi('PaymentRequestCancel');

/** The webhook snapshot (docs/events.md); the REST record adds the rest. */
const snapshotFields = {
  status: z.enum(PAYMENT_REQUEST_STATUSES),
  contact_id: uuidOut(),
  deal_id: uuidOut().nullable(),
  provider: z.enum(['sandbox', 'stripe']),
  amount: z.number().openapi({ description: 'JSON number, 2 decimals' }),
  currency: z.string(),
  title: z.string().nullable(),
  vat_mode: z.enum(VAT_MODES).nullable(),
  vat_rate: z.number().nullable(),
  test_mode: z.boolean(),
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text shows the literal template a reader follows.
  pay_url: z.string().openapi({ format: 'uri', description: "`${PUBLIC_BASE_URL}/pay/{token}`: this service's own link, an unguessable token" }),
  contact_payment_id: uuidOut().nullable().openapi({ description: 'The ledger payment recorded when paid (null for test-mode links)' }),
  expires_at: z.string(),
  paid_at: z.string().nullable(),
  cancelled_at: z.string().nullable(),
  created_at: z.string(),
};

export const PaymentRequest = z
  .object({
    id: uuidOut(),
    payment_request_id: uuidOut().openapi({ description: "Same as `id` (the webhook snapshot's name)" }),
    workspace_id: uuidOut(),
    ...snapshotFields,
    provider_session_id: z
      .string()
      .nullable()
      .openapi({ description: "The provider's latest checkout session (Stripe `cs_...`); null for the sandbox" }),
    provider_payment_ref: z.string().nullable().openapi({ description: "The provider's payment reference (Stripe PaymentIntent `pi_...`)" }),
    updated_at: z.string(),
  })
  .openapi('PaymentRequest');

export const PaymentRequestList = z
  .object({ data: z.array(PaymentRequest), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('PaymentRequestList');

export const PaymentRequestListQuery = z.object({
  status: enumQuery(
    PAYMENT_REQUEST_STATUSES,
    'Exact match; another value answers 400 `Invalid status: must be one of pending, paid, expired, cancelled`',
  ),
  contact_id: uuidQuery('contact_id'),
  deal_id: uuidQuery('deal_id'),
  limit: limitQuery({ limit: 25, cap: 100 }),
  offset: offsetQuery(),
});

export const DOCUMENT_KINDS = [
  'tax_invoice',
  'tax_invoice_receipt',
  'receipt',
  'receipt_for_invoice',
  'proforma_invoice',
  'donation_receipt',
  'credit_invoice',
  'credit_invoice_receipt',
  'credit_receipt',
  'credit_donation_receipt',
  'order',
  'price_quote',
  'delivery_note',
  'payment_demand',
] as const;

const source = z
  .union([
    z.object({ type: z.literal('contact_payment'), id: uuidOut() }),
    z.object({ type: z.literal('payment_entry'), id: uuidOut(), paymentId: uuidOut() }),
    z.object({ type: z.literal('payment_request'), id: uuidOut() }),
    z.object({ type: z.literal('provider'), provider: z.string() }),
  ])
  .openapi('ContactDocumentSource');

export const ContactDocument = z
  .object({
    key: z.string().openapi({ description: 'Stable render key; carries no meaning' }),
    kind: z.enum(DOCUMENT_KINDS).nullable(),
    rawType: z.string().nullable().openapi({ description: "The provider's own label of the document type" }),
    isCredit: z.boolean(),
    provider: z.string().nullable(),
    documentId: z.string().nullable(),
    number: z.string().nullable(),
    url: z.string().nullable().openapi({ description: 'Only open http(s) URLs; else null' }),
    date: z.string().nullable(),
    amount: z.number().nullable(),
    currency: z.string().nullable(),
    origin: z.enum(['stored', 'live', 'merged']),
    sources: z.array(source),
  })
  .openapi('ContactDocument');

export const ContactDocuments = z
  .object({
    documents: z.array(ContactDocument),
    live: z
      .object({
        attempted: z.boolean(),
        ok: z.boolean().nullable(),
        complete: z.boolean().nullable(),
        error: z.enum(['timeout', 'provider_error']).nullable(),
      })
      .openapi({ description: 'The live listing: `{attempted: false, ok: null, complete: null, error: null}` unless `live=true`' }),
  })
  .openapi('ContactDocuments');

export const ContactDocumentsQuery = z.object({ live: booleanQuery('live', 'Also ask the payment provider (bounded to 2.5 s); default false') });
