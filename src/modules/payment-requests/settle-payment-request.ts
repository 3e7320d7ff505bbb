import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { runOperation, unchanged } from '../../platform/d1/operation';
import type { PaymentConfirmation } from '../../providers/payments';
import { paymentReferenceKey, recordPaymentStatements, validateCreate } from '../payments';
import { selectPaymentRequest } from './read';
import type { PaymentRequestRow } from './schema';
import { statusGuard, transition } from './status-changes';
import { PaymentRequestErrors } from './errors';

export type Settlement = { row: PaymentRequestRow; changed: boolean };

/**
 * A verified payment (sandbox page, operator route or provider webhook, all
 * the same path). `pending`, `cancelled` (late completion) and `expired`
 * (money the provider already took is recorded, see docs/payment-requests.md)
 * become `paid`: `paid_at`, the provider references, and, unless the link is
 * in test mode, a completed one-time ledger payment (external reference
 * `payment_request:<id>`) whose id lands in `contact_payment_id`, all in one
 * batch with `payment_request.paid`. The status update is guarded and the
 * ledger reference unique, so duplicate webhooks and parallel completes pay
 * once; the others find the link paid and change nothing. A confirmation
 * from another provider than the one that issued the link is about a link
 * that provider does not know: 404, and nothing changes.
 */
export async function settlePaymentRequest(
  ctx: ServiceContext,
  id: string,
  confirmation: Omit<PaymentConfirmation, 'workspaceId' | 'paymentRequestId'>,
): Promise<Settlement> {
  return runOperation(ctx, {
    reads: { current: selectPaymentRequest(ctx.db, ctx.ws.id, id) },
    decide: (read, batch) => {
      const [row] = read.current;
      if (!row) throw PaymentRequestErrors.notFound();
      if (row.provider !== confirmation.provider) throw PaymentRequestErrors.notFound();
      if (row.status === 'paid') return unchanged<Settlement>({ row, changed: false });
      const now = nowIso();
      const document = confirmation.document ?? row.document;
      let contactPaymentId: string | null = null;
      if (!row.testMode) {
        const input = {
          type: 'one_time',
          contact_id: row.contactId,
          amount: row.amountCents / 100,
          currency: row.currency,
          title: row.title ?? 'Payment request',
          status: 'completed' as const,
          external_reference: `payment_request:${row.id}`,
          metadata: { payment_request_id: row.id, provider: row.provider, ...(document ? { document } : {}) },
        };
        const recorded = recordPaymentStatements(ctx, { input, plan: validateCreate(ctx, input), product: null, contactId: row.contactId });
        batch.write(...recorded.statements);
        contactPaymentId = recorded.header.id;
      }
      const next: PaymentRequestRow = {
        ...row,
        status: 'paid',
        paidAt: now,
        contactPaymentId,
        providerSessionId: confirmation.sessionId ?? row.providerSessionId,
        providerPaymentRef: confirmation.paymentRef ?? row.providerPaymentRef,
        document,
        updatedAt: now,
      };
      transition(ctx, batch, { row, next, type: 'payment_request.paid' });
      return batch.answer(selectPaymentRequest(ctx.db, ctx.ws.id, row.id), ([written]): Settlement => ({ row: written, changed: true }));
    },
    // A parallel completion recorded the link's ledger payment (`payment_request:<id>`) first.
    lostRaceOn: [statusGuard, paymentReferenceKey],
  });
}
