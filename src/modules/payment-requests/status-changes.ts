import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import { guarded, nowIso } from '../../platform/d1/db';
import { runOperation, unchanged, type WriteBatch } from '../../platform/d1/operation';
import type { PaymentProvider, PaymentProviderName } from '../../providers/payments';
import { findPaymentRequest } from './payment-request-lookup';
import { paymentRequestEventData, selectPaymentRequest, serializePaymentRequest } from './read';
import { paymentRequests, type PaymentRequestRow, type PaymentRequestStatus } from './schema';
import { PaymentRequestErrors } from './errors';

/** A guarded status change: the batch fails (NOT NULL) unless the row still has the status it was read with. */
const statusFrom = (from: PaymentRequestStatus, to: PaymentRequestStatus) => guarded(sql`${paymentRequests.status} = ${from}`, sql`${to}`);

export const statusGuard = guardOf(paymentRequests.status);

/** A transition of `row` to `next` with its event into `batch`. */
export function transition(
  ctx: ServiceContext,
  batch: WriteBatch,
  change: { row: PaymentRequestRow; next: PaymentRequestRow; type: 'payment_request.paid' | 'payment_request.expired' | 'payment_request.cancelled' },
) {
  const { row, next, type } = change;
  const { id: _id, workspaceId: _ws, createdAt: _c, ...set } = next;
  batch
    .write(
      ctx.db
        .update(paymentRequests)
        .set({ ...set, status: statusFrom(row.status, next.status) })
        .where(and(eq(paymentRequests.workspaceId, ctx.ws.id), eq(paymentRequests.id, row.id))),
    )
    .emit(type, paymentRequestEventData(next));
  return batch;
}

/** The row as the batch wrote it. */
const asWritten = (ctx: ServiceContext, batch: WriteBatch, id: string) => batch.answer(selectPaymentRequest(ctx.db, ctx.ws.id, id), ([row]) => row);

/**
 * `POST /v1/payment-requests/{id}/cancel`: only `pending` (409
 * `payment_request_not_pending`). After the commit the provider's checkout is
 * expired where there is one (best effort: a failure is logged, the link is
 * cancelled either way and a later payment would be a late completion).
 */
export async function cancelPaymentRequest(ctx: ServiceContext, id: string, provider: (name: PaymentProviderName) => PaymentProvider) {
  const row = await runOperation(ctx, {
    reads: { current: selectPaymentRequest(ctx.db, ctx.ws.id, id) },
    decide: (read, batch) => {
      const [current] = read.current;
      if (!current) throw PaymentRequestErrors.notFound();
      if (current.status !== 'pending') throw PaymentRequestErrors.notPending({ status: current.status });
      const now = nowIso();
      transition(ctx, batch, {
        row: current,
        next: { ...current, status: 'cancelled', cancelledAt: now, updatedAt: now },
        type: 'payment_request.cancelled',
      });
      return asWritten(ctx, batch, current.id);
    },
    lostRaceOn: [statusGuard],
  });
  if (row.providerSessionId) await expireCheckoutQuietly(provider(row.provider as PaymentProviderName), row.providerSessionId);
  return serializePaymentRequest(row);
}

export async function expireCheckoutQuietly(provider: PaymentProvider, sessionId: string) {
  try {
    await provider.expireCheckout(sessionId);
  } catch (err) {
    console.error('expiring the provider checkout failed', provider.name, sessionId, err);
  }
}

/**
 * Lazy expiry: a pending link past `expires_at` becomes `expired` (one
 * `payment_request.expired`, whoever gets there first: the sweep or an
 * opener). Answers the current row either way.
 */
export function expireIfDue(ctx: ServiceContext, row: PaymentRequestRow): Promise<PaymentRequestRow> {
  return runOperation(ctx, {
    // The row the caller holds decides: nothing is read first; a row another write changed first is read again below.
    reads: {},
    decide: (_, batch) => {
      if (row.status !== 'pending' || row.expiresAt > nowIso()) return unchanged(row);
      transition(ctx, batch, { row, next: { ...row, status: 'expired', updatedAt: nowIso() }, type: 'payment_request.expired' });
      return asWritten(ctx, batch, row.id);
    },
  }).catch((err) => {
    if (!failedOn(err, statusGuard)) throw err;
    return findPaymentRequest(ctx, row.id);
  });
}

/** Records the provider's checkout session on a still pending row (the latest one opened; a settled link keeps the session that paid it). */
export async function rememberSession(ctx: ServiceContext, row: PaymentRequestRow, sessionId: string) {
  await ctx.db
    .update(paymentRequests)
    .set({ providerSessionId: sessionId, updatedAt: nowIso() })
    .where(and(eq(paymentRequests.workspaceId, ctx.ws.id), eq(paymentRequests.id, row.id), eq(paymentRequests.status, 'pending')));
}
