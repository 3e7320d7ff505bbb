import { z } from '@hono/zod-openapi';
import { knownValuesQuery, limitQuery, offsetQuery, searchQuery } from '../../platform/list';
import { orNull, uuid, uuidOut } from '../../platform/validation';
import { ARRANGEMENT_STATUSES, ENTRY_KINDS, ENTRY_STATUSES, PAYMENT_METHODS, PAYMENT_TYPES, RECURRING_INTERVALS, VAT_MODES } from './schema';

export const MAX_AMOUNT = 9999999999;
export const METADATA_MAX_BYTES = 2048;

/*
 * Ranges and enums whose violations have worded messages (`Invalid payment
 * type`, `amount must be a non-negative number`, `installmentCount must be at
 * most 360`, ...) are documented here and checked by the service, which
 * answers those messages; the schema checks the JSON types.
 */
const amount = z.number().openapi({ minimum: 0, maximum: MAX_AMOUNT, description: 'Rounded half-up to 2 decimals (stored in cents)' });
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const metadata = z.custom<Record<string, unknown>>(isObject, { message: 'must be an object' }).openapi({
  type: 'object',
  additionalProperties: true,
  description: `Free-form JSON object, at most ${METADATA_MAX_BYTES} bytes serialized (UTF-8); replaced as a whole`,
});
const vatMode = z.enum(VAT_MODES).openapi({ description: 'Recurring plans only; sent together with `vat_rate`' });
const vatRate = z.number().openapi({ minimum: 0, maximum: 100, description: 'Percent, 0 to 100, at most 2 decimals; sent together with `vat_mode`' });
const endAt = z.string().max(64).openapi({
  format: 'date-time',
  description:
    'ISO 8601; a date-only value is the end of that day in the workspace time zone; must be after the purchase date. Recurring plans only: on another type it is checked the same way (the same 400), then ignored',
});
const maxOccurrences = z.number().openapi({
  type: 'integer',
  minimum: 1,
  description:
    'Recorded cycles after which the plan completes. Recurring plans only: on another type it is checked the same way (the same 400), then ignored',
});

export const PaymentCreate = z
  .object({
    contact_id: uuid('contact_id').optional().openapi({ description: 'Wins over phone/email' }),
    phone: z.string().max(32).optional(),
    email: z.string().trim().max(255).pipe(z.email()).optional().openapi({ format: 'email' }),
    name: z.string().max(200).optional().openapi({ description: 'Used only when a new contact is created' }),
    type: z.string().openapi({ type: 'string', enum: [...PAYMENT_TYPES] }),
    amount: amount.openapi({
      description: 'one_time: the charge; recurring: per cycle; installments: the whole deal. The product price never substitutes',
    }),
    product_id: uuid('product_id').optional(),
    product_sku: z.string().max(120).optional(),
    product_external_id: z.string().max(255).optional(),
    title: z.string().trim().max(200).optional().openapi({ description: 'Ignored while a product is attached (the product name is used)' }),
    note: z.string().max(1000).optional(),
    method: z.enum(PAYMENT_METHODS).optional(),
    currency: z.string().trim().min(1).max(3).optional().openapi({ description: 'Uppercased; omitted: the workspace currency' }),
    purchase_date: z
      .string()
      .max(64)
      .optional()
      .openapi({ format: 'date-time', description: 'ISO 8601; a date-only value is the start of that day in the workspace time zone; default now' }),
    status: z.enum(ENTRY_STATUSES).optional().openapi({ description: 'one_time only; default `completed`' }),
    interval: z.enum(RECURRING_INTERVALS).optional().openapi({ description: 'recurring only; default `monthly`' }),
    auto_generate: z.boolean().optional().openapi({ description: 'recurring only; default true: later cycles are recorded when due' }),
    record_first_payment: z.boolean().optional().openapi({ description: 'recurring only; default true: the first cycle is recorded now' }),
    recurring_end_at: endAt.optional(),
    recurring_max_occurrences: maxOccurrences.optional(),
    vat_mode: vatMode.optional(),
    vat_rate: vatRate.optional(),
    installment_count: z.number().openapi({ type: 'integer', minimum: 2, maximum: 360, description: 'Required for `installments`' }).optional(),
    external_reference: z.string().min(1).max(255).optional().openapi({ description: 'Idempotency key, unique per workspace' }),
    metadata: metadata.optional(),
  })
  .strict()
  .openapi('PaymentCreate');

export const PaymentPatch = z
  .object({
    product_id: uuid('product_id')
      .nullable()
      .optional()
      .openapi({ description: 'Attaches or replaces (must be active unless already attached); null detaches and keeps the title' }),
    title: z.string().trim().max(200).optional().openapi({ description: 'Ignored while a product is attached' }),
    note: z.string().max(1000).optional(),
    method: z.enum(PAYMENT_METHODS).optional(),
    amount: amount.optional().openapi({ description: 'one_time only (ignored otherwise); flows into the single entry' }),
    status: z
      .enum(ENTRY_STATUSES)
      .optional()
      .openapi({ description: 'one_time only (ignored otherwise); flows into the single entry and re-maps the header' }),
    auto_generate: z.boolean().optional().openapi({ description: 'recurring only (ignored otherwise)' }),
    recurring_end_at: endAt.nullable().optional(),
    recurring_max_occurrences: orNull(
      maxOccurrences,
      'integer',
      'Recorded cycles after which the plan completes; null removes the limit. Recurring plans only: on another type it is checked the same way (the same 400), then ignored',
    ).optional(),
    vat_mode: vatMode.nullable().optional(),
    vat_rate: vatRate.nullable().optional(),
    metadata: orNull(
      metadata,
      'object',
      `Free-form JSON object, at most ${METADATA_MAX_BYTES} bytes serialized (UTF-8); replaces the stored object; null clears it, omission keeps it`,
    ).optional(),
  })
  .strict()
  .openapi('PaymentPatch');

export const PaymentCancel = z.object({}).strict().openapi('PaymentCancel');

export const PaymentMark = z
  .object({ status: z.enum(ENTRY_STATUSES) })
  .strict()
  .openapi('PaymentEntryMark');

export const PaymentRefund = z
  .object({
    entry_id: uuid('entry_id')
      .optional()
      .openapi({ description: 'The charge to refund; may be omitted only when the payment has exactly one charge' }),
    amount: z.number().optional().openapi({
      minimum: 0.005,
      maximum: MAX_AMOUNT,
      description: 'Rounded half-up to cents (0.005 is 0.01, anything less 0.00); default: the full remaining refundable balance',
    }),
    note: z.string().max(1000).optional().openapi({ description: 'Stored on the refund entry' }),
  })
  .strict()
  .openapi('PaymentRefund');

export type PaymentCreateInput = z.infer<typeof PaymentCreate>;
export type PaymentPatchInput = z.infer<typeof PaymentPatch>;
export type PaymentRefundInput = z.infer<typeof PaymentRefund>;

const document = z
  .object({ provider: z.string(), id: z.string(), number: z.string().nullable(), type: z.string().nullable(), url: z.string().nullable() })
  .openapi('CreditDocument');

export const PaymentEntry = z
  .object({
    id: uuidOut(),
    payment_id: uuidOut(),
    workspace_id: uuidOut(),
    contact_id: uuidOut(),
    sequence: z.number().int(),
    amount: z.number().openapi({ description: 'JSON number, 2 decimals; negative on refunds' }),
    currency: z.string(),
    status: z.enum(ENTRY_STATUSES),
    due_date: z.string().nullable().openapi({ description: '`YYYY-MM-DD`' }),
    paid_at: z.string().nullable(),
    recognized_amount: z.number().nullable().openapi({ description: 'Revenue recognized; negative on refunds' }),
    recognized_at: z.string().nullable(),
    kind: z.enum(ENTRY_KINDS),
    refunds_entry_id: uuidOut().nullable(),
    note: z.string().nullable(),
    provider_refund_ref: z.string().nullable(),
    refund_idempotency_key: z.string().nullable(),
    credit_document: document.nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('PaymentEntry');

export const PaymentHeader = z
  .object({
    id: uuidOut(),
    workspace_id: uuidOut(),
    contact_id: uuidOut(),
    product_id: uuidOut().nullable(),
    type: z.enum(PAYMENT_TYPES),
    title: z.string().nullable(),
    note: z.string().nullable(),
    currency: z.string(),
    total_amount: z.number().openapi({ description: 'JSON number, 2 decimals' }),
    arrangement_status: z.enum(ARRANGEMENT_STATUSES),
    method: z.enum(PAYMENT_METHODS).nullable(),
    purchase_date: z.string(),
    recurring_interval: z.enum(RECURRING_INTERVALS).nullable(),
    recurring_next_due_at: z.string().nullable(),
    recurring_auto_generate: z.boolean().nullable(),
    recurring_cancelled_at: z.string().nullable(),
    recurring_end_at: z.string().nullable(),
    recurring_max_occurrences: z.number().int().nullable(),
    recurring_payment_method_id: z.string().nullable().openapi({ description: 'Read-only (automatic charging)' }),
    recurring_last_attempt_at: z.string().nullable().openapi({ description: 'Read-only (automatic charging)' }),
    recurring_failure_count: z.number().int().openapi({ description: 'Read-only (automatic charging)' }),
    recurring_paused_at: z.string().nullable().openapi({ description: 'Read-only (automatic charging)' }),
    recurring_next_retry_at: z.string().nullable().openapi({ description: 'Read-only (automatic charging)' }),
    recurring_dunning_started_at: z.string().nullable().openapi({ description: 'Read-only (automatic charging)' }),
    vat_mode: z.enum(VAT_MODES).nullable(),
    vat_rate: z.number().nullable(),
    installment_count: z.number().int().nullable(),
    external_reference: z.string().nullable(),
    source: z.string(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('PaymentHeader');

export const Payment = PaymentHeader.extend({ entries: z.array(PaymentEntry) }).openapi('Payment');
export const PaymentCreated = Payment.extend({ duplicate: z.boolean() }).openapi('PaymentCreated');
export const PaymentListRow = PaymentHeader.extend({
  contact_name: z.string().nullable(),
  contact_phone: z.string().nullable(),
  contact_email: z.string().nullable(),
}).openapi('PaymentListRow');

export const PaymentList = z
  .object({ data: z.array(PaymentListRow), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('PaymentList');

export const PaymentListQuery = z.object({
  type: knownValuesQuery(PAYMENT_TYPES, 'Exact match'),
  status: knownValuesQuery(ARRANGEMENT_STATUSES, 'Arrangement status'),
  search: searchQuery('search', 'Case-insensitive substring of the title or the contact name, phone or email'),
  limit: limitQuery({ limit: 25, cap: 100 }),
  offset: offsetQuery(),
});

export const entryParams = z.object({
  id: uuid('id').openapi({ param: { name: 'id', in: 'path' } }),
  entryId: uuid('entryId').openapi({ param: { name: 'entryId', in: 'path' } }),
});
