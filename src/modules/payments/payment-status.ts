import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guardOf } from '../../platform/d1/constraints';
import { guarded, nowIso } from '../../platform/d1/db';
import { runOperation } from '../../platform/d1/operation';
import { paymentAsWritten, paymentWithEntries, selectPayment } from './read';
import { headerStatusFor } from './record-payment';
import { paymentEntries, payments, type EntryStatus } from './schema';
import { PaymentErrors } from './errors';

/** `POST /v1/payments/{id}/cancel`: recurring plans only; recorded entries stay as they are. */
export function cancelPayment(ctx: ServiceContext, id: string) {
  return runOperation(ctx, {
    reads: { payment: selectPayment(ctx.db, ctx.ws.id, id) },
    decide: (read, batch) => {
      const [p] = read.payment;
      if (!p) throw PaymentErrors.notFound();
      if (p.type !== 'recurring') throw PaymentErrors.notRecurring();
      batch.write(
        ctx.db
          .update(payments)
          .set({
            arrangementStatus: 'cancelled',
            recurringCancelledAt: sql`coalesce(${payments.recurringCancelledAt}, ${nowIso()})`,
            recurringAutoGenerate: false,
            recurringNextDueAt: null,
            updatedAt: nowIso(),
          })
          .where(and(eq(payments.workspaceId, ctx.ws.id), eq(payments.id, id))),
      );
      return paymentAsWritten(ctx, batch, id);
    },
  });
}

/** `POST /v1/payments/{id}/entries/{entryId}/mark`. */
export function markEntry(ctx: ServiceContext, id: string, entryId: string, status: EntryStatus) {
  return runOperation(ctx, {
    reads: paymentWithEntries(ctx.db, ctx.ws.id, id),
    decide: (read, batch) => {
      const [p] = read.payment;
      if (!p) throw PaymentErrors.notFound();
      const entry = read.entries.find((e) => e.id === entryId);
      if (!entry) throw PaymentErrors.entryNotFound();
      if (entry.kind === 'refund') throw PaymentErrors.refundEntryNotMarkable();
      const reversing = status === 'failed' || status === 'refunded';
      if (reversing && entry.refundedCents > 0) throw PaymentErrors.hasRefunds();
      const now = nowIso();
      const done = status === 'completed';
      // Money not (or no longer) received is not revenue; installments stay recognized while pending.
      const keepRecognition = done || (status === 'pending' && p.type !== 'one_time');
      batch.write(
        ctx.db
          .update(paymentEntries)
          .set({
            status: (reversing ? guarded(sql`${paymentEntries.refundedCents} = 0`, sql`${status}`) : status) as EntryStatus,
            paidAt: done ? (entry.paidAt ?? now) : entry.paidAt && status === 'pending' ? null : entry.paidAt,
            // A charge with refunds keeps the recognition its refunds reverse (decided when the batch runs).
            recognizedCents: (keepRecognition
              ? (entry.recognizedCents ?? entry.amountCents)
              : sql`CASE WHEN ${paymentEntries.refundedCents} > 0 THEN ${paymentEntries.recognizedCents} ELSE NULL END`) as number | null,
            recognizedAt: (keepRecognition
              ? (entry.recognizedAt ?? now)
              : sql`CASE WHEN ${paymentEntries.refundedCents} > 0 THEN ${paymentEntries.recognizedAt} ELSE NULL END`) as string | null,
            updatedAt: now,
          })
          .where(and(eq(paymentEntries.workspaceId, ctx.ws.id), eq(paymentEntries.id, entry.id))),
      );
      if (p.type === 'one_time') {
        batch.write(
          ctx.db
            .update(payments)
            .set({ arrangementStatus: headerStatusFor(status), updatedAt: now })
            .where(and(eq(payments.workspaceId, ctx.ws.id), eq(payments.id, p.id))),
        );
      }
      if (done && entry.status !== 'completed') batch.signal(p.contactId, 'payment.completed');
      return paymentAsWritten(ctx, batch, p.id);
    },
    lostRaceOn: [guardOf(paymentEntries.status)],
  });
}
