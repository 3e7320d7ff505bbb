import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { PaymentProviderName } from '../../providers/payments/types';
import type { CreditDocument, VatMode } from '../payments';

export const PAYMENT_REQUEST_STATUSES = ['pending', 'paid', 'expired', 'cancelled'] as const;
export type PaymentRequestStatus = (typeof PAYMENT_REQUEST_STATUSES)[number];

/**
 * A hosted pay-link of a contact. `token` is the unguessable part of `pay_url`
 * (never the id); `provider_session_id` / `provider_payment_ref` correlate it
 * with the provider's checkout and payment; `document` is the provider's
 * receipt pointer once paid. `sweep_claim` marks the rows one expiry-sweep
 * chunk moved, so that chunk emits exactly their events.
 */
export const paymentRequests = sqliteTable(
  'payment_requests',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    contactId: text('contact_id').notNull(),
    dealId: text('deal_id'),
    provider: text('provider').$type<PaymentProviderName>().notNull(),
    status: text('status', { enum: PAYMENT_REQUEST_STATUSES }).notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    title: text('title'),
    vatMode: text('vat_mode').$type<VatMode>(),
    vatRate: real('vat_rate'),
    testMode: integer('test_mode', { mode: 'boolean' }).notNull(),
    token: text('token').notNull(),
    payUrl: text('pay_url').notNull(),
    contactPaymentId: text('contact_payment_id'),
    providerSessionId: text('provider_session_id'),
    providerPaymentRef: text('provider_payment_ref'),
    document: text('document', { mode: 'json' }).$type<CreditDocument>(),
    expiresAt: text('expires_at').notNull(),
    paidAt: text('paid_at'),
    cancelledAt: text('cancelled_at'),
    sweepClaim: text('sweep_claim'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('payment_requests_token').on(t.token),
    index('payment_requests_workspace_created').on(t.workspaceId, t.createdAt),
    index('payment_requests_workspace_contact').on(t.workspaceId, t.contactId),
    index('payment_requests_due').on(t.status, t.expiresAt),
  ],
);

export type PaymentRequestRow = typeof paymentRequests.$inferSelect;
