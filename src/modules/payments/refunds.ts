import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { failedGuard, guarded, isUniqueViolation, nowIso, retryOnConflict, runBatch, type Statement } from '../../platform/db';
import { badRequest } from '../../platform/errors';
import { uuidv7 } from '../../platform/ids';
import { toCents } from '../../platform/money';
import { activities, activityRow } from '../contacts/service';
import { localDate } from './dates';
import type { PaymentRefundInput } from './dto';
import { paymentFromResults } from './read';
import { paymentEntries, payments, type ArrangementStatus, type PaymentEntryRow, type PaymentRow } from './schema';
import { entryBase, entryNotFound, readPaymentAndEntries, reReads } from './service';
import { prepared, preparedInsert } from '../../platform/prepared';

/** Whether a batch with `refundStatements` lost a race to a parallel refund (re-read and retry). */
export const refundLostRace = (err: unknown) => failedGuard(err, 'payment_entries.refunded_cents') || isUniqueViolation(err);

const balance = (cents: number) => (cents / 100).toFixed(2);

/**
 * `POST /v1/payments/{id}/refund`: a ledger refund entry against a completed,
 * recognized charge. The charge's `refunded_cents` grows in the same batch
 * through a guarded write that fails the batch when it would pass the
 * recognized amount, so parallel refunds can never over-refund: the loser
 * re-reads and answers the balance error.
 */
export async function refundPayment(ctx: ServiceContext, id: string, input: PaymentRefundInput) {
  if (input.amount !== undefined && !(input.amount > 0 && toCents(input.amount) > 0)) throw badRequest('Refund amount must be a positive number');
  const entryId = input.entry_id?.toLowerCase();
  return retryOnConflict(
    async () => {
      const { p, entries } = await readPaymentAndEntries(ctx, id);
      const charges = entries.filter((e) => e.kind === 'charge');
      let charge: PaymentEntryRow | undefined;
      if (entryId) {
        charge = entries.find((e) => e.id === entryId);
        if (!charge) throw entryNotFound();
      } else {
        if (charges.length !== 1) throw badRequest('entryId is required to refund a payment with multiple charges');
        charge = charges[0];
      }
      if (charge.kind === 'refund') throw badRequest('Only a completed (recognized) charge can be refunded');
      if (charge.status === 'failed' || charge.status === 'refunded') throw badRequest('This charge is no longer refundable');
      if (charge.status !== 'completed') throw badRequest('Only a completed (recognized) charge can be refunded');
      if (charge.recognizedCents === null) throw badRequest('This charge is not recognized as revenue yet and cannot be refunded');
      const remaining = charge.recognizedCents - charge.refundedCents;
      if (remaining <= 0) throw badRequest('This charge is already fully refunded');
      const cents = input.amount === undefined ? remaining : toCents(input.amount);
      if (cents > remaining) throw badRequest(`Refund amount exceeds the refundable balance (${balance(remaining)})`);
      const refund = refundStatements(ctx, p, charge, cents, input.note ?? null);
      const statements: Statement[] = [...refund.statements, activities(ctx, [refund.timeline]), ...reReads(ctx, p.id)];
      return paymentFromResults(await runBatch(ctx.db, statements));
    },
    refundLostRace,
  );
}

const [ws, chargeId, stamp] = [sql.placeholder('ws'), sql.placeholder('charge'), sql.placeholder('now')];

/** The charge's `refunded_cents` grows by `cents`, or the batch fails when that would pass what it recognized. */
const chargeRefunded = prepared((db) =>
  db
    .update(paymentEntries)
    .set({
      refundedCents: guarded(
        sql`${paymentEntries.status} = 'completed' AND ${paymentEntries.refundedCents} + ${sql.placeholder('cents')} <= ${paymentEntries.recognizedCents}`,
        sql`${paymentEntries.refundedCents} + ${sql.placeholder('cents')}`,
      ) as unknown as number,
      updatedAt: stamp as unknown as string,
    })
    .where(and(eq(paymentEntries.workspaceId, ws), eq(paymentEntries.id, chargeId))),
);

/** The refund entry, numbered after the payment's last entry. */
const refundEntryInsert = preparedInsert(paymentEntries, {
  sequence: sql`(SELECT coalesce(max(sequence), 0) + 1 FROM payment_entries WHERE payment_id = ${sql.placeholder('paymentId')})`,
});

/** A one-time header is cancelled once its charge is fully refunded. */
const headerAfterRefund = prepared((db) =>
  db
    .update(payments)
    .set({
      arrangementStatus: sql`CASE WHEN ${payments.type} = 'one_time' AND (SELECT refunded_cents >= recognized_cents FROM payment_entries WHERE id = ${chargeId}) THEN 'cancelled' ELSE ${payments.arrangementStatus} END` as unknown as ArrangementStatus,
      updatedAt: stamp as unknown as string,
    })
    .where(and(eq(payments.workspaceId, ws), eq(payments.id, sql.placeholder('payment')))),
);

/**
 * The statements that mirror a refund of `cents` against a charge, for the
 * caller's write batch: the charge's guarded `refunded_cents` (the batch fails
 * with NOT NULL on `payment_entries.refunded_cents` when it would pass the
 * recognized amount, see `refundLostRace`), the refund entry and the one-time
 * header's cancellation when fully refunded; `timeline` is the contact timeline
 * row, for the caller's `activities` (an order refund writes its own with it).
 */
export function refundStatements(ctx: ServiceContext, p: PaymentRow, charge: Pick<PaymentEntryRow, 'id' | 'currency'>, cents: number, note: string | null) {
  const now = nowIso();
  const refundId = uuidv7();
  const statements: Statement[] = [
    chargeRefunded.in(ctx.db, { ws: ctx.ws.id, charge: charge.id, cents, now }),
    refundEntryInsert.in(ctx.db, {
      ...entryBase(ctx, p.id, p.contactId, charge.currency, now),
      id: refundId,
      sequence: 0, // numbered by the statement
      amountCents: -cents,
      status: 'refunded',
      dueDate: localDate(now, ctx.ws.timezone),
      paidAt: now,
      recognizedCents: -cents,
      recognizedAt: now,
      kind: 'refund',
      refundsEntryId: charge.id,
      note: note?.trim() || null,
    }),
    headerAfterRefund.in(ctx.db, { ws: ctx.ws.id, payment: p.id, charge: charge.id, now }),
  ];
  const timeline = activityRow(ctx, p.contactId, 'payment_refunded', 'api', { payment_id: p.id, entry_id: refundId, refunds_entry_id: charge.id, amount: cents / 100, currency: charge.currency }, now);
  return { statements, timeline };
}
