import { and, eq } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { fromCents } from '../../platform/money';
import { paymentRequests, type PaymentRequestRow } from './schema';

/** The webhook snapshot (docs/events.md, payment-request events): every field, explicit nulls, no provider references. */
export function paymentRequestEventData(r: PaymentRequestRow) {
  return {
    payment_request_id: r.id,
    status: r.status,
    contact_id: r.contactId,
    deal_id: r.dealId,
    provider: r.provider,
    amount: fromCents(r.amountCents),
    currency: r.currency,
    title: r.title,
    vat_mode: r.vatMode,
    vat_rate: r.vatRate,
    test_mode: r.testMode,
    pay_url: r.payUrl,
    contact_payment_id: r.contactPaymentId,
    expires_at: r.expiresAt,
    paid_at: r.paidAt,
    cancelled_at: r.cancelledAt,
    created_at: r.createdAt,
  };
}

/** The REST record: the snapshot plus `id`, `workspace_id`, the provider correlation references and `updated_at`. */
export function serializePaymentRequest(r: PaymentRequestRow) {
  const { payment_request_id, ...rest } = paymentRequestEventData(r);
  return {
    id: r.id,
    payment_request_id,
    workspace_id: r.workspaceId,
    ...rest,
    provider_session_id: r.providerSessionId,
    provider_payment_ref: r.providerPaymentRef,
    updated_at: r.updatedAt,
  };
}

export const selectPaymentRequest = (db: Db, workspaceId: string, id: string) =>
  db
    .select()
    .from(paymentRequests)
    .where(and(eq(paymentRequests.workspaceId, workspaceId), eq(paymentRequests.id, id)))
    .limit(1);

export const selectByToken = (db: Db, workspaceId: string, token: string) =>
  db
    .select()
    .from(paymentRequests)
    .where(and(eq(paymentRequests.workspaceId, workspaceId), eq(paymentRequests.token, token)))
    .limit(1);
