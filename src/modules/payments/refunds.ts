import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import { runOperation } from '../../platform/d1/operation';
import { guardOf, uniqueOn } from '../../platform/d1/constraints';
import { uuidv7 } from '../../platform/ids';
import { fromCentsSql, toCents } from '../../platform/money';
import { activity, activityFrom, type TimelineSource } from '../contacts';
import { localDate } from '../../platform/calendar';
import type { PaymentRefundInput } from './dto';
import { paymentWithEntries } from './read';
import { paymentEntries, type PaymentEntryRow, type PaymentRow } from './schema';
import { paymentAsWritten } from './read';
import { entryBase } from './record-payment';
import { preparedInsert, preparedSql } from '../../platform/d1/prepared';
import { builtOnce } from '../../platform/d1/built-once';
import { guardable, type RowGuard } from '../../platform/d1/row-guard';
import { PaymentErrors } from './errors';

/** A refund lost a race to a parallel one (re-read and retry): trigger `payment_entries_refund_applies` (migration 0018) nulls `refunded_cents`. */
const refundRacesLostOn = [guardOf(paymentEntries.refundedCents), uniqueOn(paymentEntries.paymentId, paymentEntries.sequence)];

const balance = (cents: number) => (cents / 100).toFixed(2);

/**
 * `POST /v1/payments/{id}/refund`: a ledger refund entry against a completed,
 * recognized charge. The entry's insert grows the charge's `refunded_cents`
 * through a guarded write (a trigger) that fails the batch when it would pass
 * the recognized amount, so parallel refunds can never over-refund: the loser
 * re-reads and answers the balance error.
 */
export async function refundPayment(ctx: ServiceContext, id: string, input: PaymentRefundInput) {
  if (input.amount !== undefined && !(input.amount > 0 && toCents(input.amount) > 0)) throw PaymentErrors.refundNotPositive();
  const entryId = input.entry_id?.toLowerCase();
  return runOperation(ctx, {
    reads: paymentWithEntries(ctx.db, ctx.ws.id, id),
    decide: (read, batch) => {
      const [p] = read.payment;
      if (!p) throw PaymentErrors.notFound();
      const { entries } = read;
      const charges = entries.filter((e) => e.kind === 'charge');
      let charge: PaymentEntryRow | undefined;
      if (entryId) {
        charge = entries.find((e) => e.id === entryId);
        if (!charge) throw PaymentErrors.entryNotFound();
      } else {
        if (charges.length !== 1) throw PaymentErrors.entryRequired();
        charge = charges[0];
      }
      if (charge.kind === 'refund') throw PaymentErrors.chargeNotRefundable();
      if (charge.status === 'failed' || charge.status === 'refunded') throw PaymentErrors.chargeNoLongerRefundable();
      if (charge.status !== 'completed') throw PaymentErrors.chargeNotRefundable();
      if (charge.recognizedCents === null) throw PaymentErrors.chargeNotRecognized();
      const remaining = charge.recognizedCents - charge.refundedCents;
      if (remaining <= 0) throw PaymentErrors.chargeFullyRefunded();
      const cents = input.amount === undefined ? remaining : toCents(input.amount);
      if (cents > remaining) throw PaymentErrors.refundExceedsBalance({ balance: balance(remaining) });
      batch.write(...refundStatements(ctx, p, charge, cents, input.note ?? null));
      return paymentAsWritten(ctx, batch, p.id);
    },
    lostRaceOn: refundRacesLostOn,
  });
}

/** The number of an entry written after the payment's last one. */
const nextSequence = (paymentId: SQLWrapper) => sql`(SELECT coalesce(max(sequence), 0) + 1 FROM payment_entries WHERE payment_id = ${paymentId})`;

/** The refund entry, numbered after the payment's last entry. */
const refundEntryInsert = preparedInsert(paymentEntries, { sequence: nextSequence(sql.placeholder('paymentId')) });

/**
 * A refund of `cents` against a charge: the refund entry, which applies itself (migration 0018's
 * trigger grows the charge's `refunded_cents`, failing the batch with NOT NULL on
 * `payment_entries.refunded_cents` when that would pass the recognized amount, see
 * `refundRacesLostOn`, and cancels a one-time header once its charge is fully refunded), and the
 * contact timeline row.
 */
function refundStatements(ctx: ServiceContext, p: PaymentRow, charge: PaymentEntryRow, cents: number, note: string | null): Statement[] {
  const now = nowIso();
  const refundId = uuidv7();
  return [
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
    activity(
      ctx,
      p.contactId,
      'payment_refunded',
      'api',
      { payment_id: p.id, entry_id: refundId, refunds_entry_id: charge.id, amount: cents / 100, currency: charge.currency },
      now,
    ),
  ];
}

const [mirrorWs, mirrorEntry, mirrorCents, mirrorNow] = ['ws', 'entry', 'cents', 'now'].map((name) => sql.placeholder(name));

/** The refund entry `mirroredRefund` writes: decided and sized by the rows as its batch runs. */
const mirrorEntryInsert = builtOnce((reference: SQL) =>
  builtOnce((note: SQL) =>
    guardable((condition) =>
      preparedSql('run', () => {
        const given = sql`min(${mirrorCents}, c.recognized_cents - c.refunded_cents)`;
        return sql`INSERT INTO ${paymentEntries} (id, payment_id, workspace_id, contact_id, sequence, cycle, amount_cents, currency, status, due_date, paid_at,
            recognized_cents, recognized_at, refunded_cents, kind, refunds_entry_id, note, provider_refund_ref, refund_idempotency_key, credit_document, created_at, updated_at)
          SELECT ${mirrorEntry}, p.id, p.workspace_id, p.contact_id, ${nextSequence(sql`p.id`)}, NULL,
            -${given}, c.currency, 'refunded', ${sql.placeholder('dueDate')}, ${mirrorNow}, -${given}, ${mirrorNow}, 0, 'refund', c.id, ${note}, NULL, NULL, NULL, ${mirrorNow}, ${mirrorNow}
          FROM payments p JOIN payment_entries c
            ON c.id = (SELECT id FROM payment_entries WHERE workspace_id = p.workspace_id AND payment_id = p.id AND kind = 'charge' ORDER BY sequence LIMIT 1)
          WHERE p.workspace_id = ${mirrorWs} AND p.external_reference = ${reference} AND p.type = 'one_time'
            AND c.status = 'completed' AND c.recognized_cents IS NOT NULL AND c.recognized_cents > c.refunded_cents AND ${condition}`;
      }),
    ),
  ),
);

/** The mirrored refund's timeline row, from the entry the batch wrote. */
const mirrorTimeline: TimelineSource = {
  contact: sql`e.contact_id`,
  data: sql`json_object('payment_id', e.payment_id, 'entry_id', e.id, 'refunds_entry_id', e.refunds_entry_id, 'amount', ${fromCentsSql(sql`(-e.amount_cents)`)}, 'currency', e.currency)`,
  from: sql`FROM payment_entries e WHERE e.id = ${mirrorEntry} AND e.workspace_id = ${mirrorWs}`,
};

/**
 * A refund another module records (an order's) mirrored into the payment that backs it, decided
 * inside the caller's batch: `reference` is SQL naming the payment's `external_reference` from the
 * caller's rows, `note` SQL for the entry's note (both module constants; their placeholders'
 * values in `values`). A ledger refund of at most what the payment's first charge can still give
 * back, written only for a one-time payment whose charge is completed and recognized with a
 * balance left (and when `guard` holds), with its contact timeline row: nothing otherwise. The
 * entry applies itself to its charge as every refund entry does (migration 0018's trigger).
 */
export function mirroredRefund(
  ctx: ServiceContext,
  reference: SQL,
  note: SQL,
  cents: number,
  values: Record<string, unknown>,
  guard: RowGuard,
): Statement[] {
  const now = nowIso();
  const entry = uuidv7();
  return [
    mirrorEntryInsert(reference)(note).in(ctx.db, { ...values, ws: ctx.ws.id, entry, cents, now, dueDate: localDate(now, ctx.ws.timezone) }, guard),
    activityFrom(ctx, mirrorTimeline, 'payment_refunded', 'api', { entry }, now),
  ];
}
