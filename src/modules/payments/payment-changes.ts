import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guardOf } from '../../platform/d1/constraints';
import { guarded, nowIso, type Statement } from '../../platform/d1/db';
import { runOperation, type WriteBatch } from '../../platform/d1/operation';
import { cycleDueAt } from '../../platform/calendar';
import { toCents } from '../../platform/money';
import { attachableProduct, productLookup, type ProductRow } from '../products';
import type { PaymentPatchInput } from './dto';
import { paymentAsWritten, paymentWithEntries } from './read';
import { headerStatusFor } from './record-payment';
import { cycleAllowed } from './recurring-cycles';
import { paymentEntries, payments, type EntryStatus, type PaymentEntryRow, type PaymentRow, type RecurringInterval } from './schema';
import { checkAmount, checkMaxOccurrences, checkMetadata, parseEndAt, vatPair, type Vat } from './validate';
import { PaymentErrors } from './errors';

/* A payment's mutable fields, changed by PATCH and by a create whose reference a payment holds. */

type Changes = {
  /** A product to attach (already checked); null detaches. */
  product?: ProductRow | null;
  title?: string;
  note?: string;
  method?: PaymentRow['method'];
  metadata?: Record<string, unknown> | null;
  amountCents?: number;
  status?: EntryStatus;
  autoGenerate?: boolean;
  endAt?: string | null;
  maxOccurrences?: number | null;
  vat?: Vat;
};

/** The mutable fields a body (an upsert's create body or a PATCH) sends, as `Changes`. */
type MutableInput = {
  title?: string;
  note?: string;
  method?: PaymentRow['method'];
  metadata?: Record<string, unknown> | null;
  amount?: number;
  status?: EntryStatus;
  auto_generate?: boolean;
  recurring_end_at?: string | null;
  recurring_max_occurrences?: number | null;
};

export const changesFrom = (input: MutableInput, product: ProductRow | null | undefined, vat: Vat | undefined): Changes => ({
  product,
  title: input.title,
  note: input.note,
  method: input.method,
  metadata: input.metadata,
  amountCents: input.amount === undefined ? undefined : toCents(input.amount),
  status: input.status,
  autoGenerate: input.auto_generate,
  endAt: input.recurring_end_at,
  maxOccurrences: input.recurring_max_occurrences,
  vat,
});

/**
 * Applies mutable fields to a payment in one batch. The header write is
 * guarded on the `updated_at` that was read, so a change made meanwhile (a
 * parallel PATCH, a sweep recording a cycle) fails the batch and the caller
 * re-reads; a one-time entry's status change is guarded on it having no refunds.
 */
export function applyChanges(ctx: ServiceContext, batch: WriteBatch, p: PaymentRow, entries: PaymentEntryRow[], c: Changes) {
  const now = nowIso();
  const set: Partial<PaymentRow> = {};
  const statements: Statement[] = [];
  if (c.product) {
    set.productId = c.product.id;
    set.title = c.product.name;
  } else if (c.product === null) {
    set.productId = null;
  }
  const attached = (set.productId !== undefined ? set.productId : p.productId) !== null;
  if (c.title !== undefined && !attached) set.title = c.title || null;
  if (c.note !== undefined) set.note = c.note.trim() || null;
  if (c.method !== undefined) set.method = c.method;
  if (c.metadata !== undefined) set.metadata = c.metadata;

  if (p.type === 'one_time' && (c.amountCents !== undefined || c.status !== undefined)) {
    const entry = entries.find((e) => e.kind === 'charge');
    if (entry) {
      const status = c.status ?? entry.status;
      const amountCents = c.amountCents ?? entry.amountCents;
      if (c.status !== undefined && (status === 'failed' || status === 'refunded') && entry.refundedCents > 0) throw PaymentErrors.hasRefunds();
      if (status === 'completed' && amountCents < entry.refundedCents) throw PaymentErrors.amountBelowRefunded();
      const done = status === 'completed';
      statements.push(
        ctx.db
          .update(paymentEntries)
          .set({
            status: guarded(sql`${paymentEntries.refundedCents} = ${entry.refundedCents}`, sql`${status}`),
            amountCents,
            paidAt: done ? (entry.paidAt ?? now) : null,
            recognizedCents: done ? amountCents : null,
            recognizedAt: done ? (entry.recognizedAt ?? now) : null,
            updatedAt: now,
          })
          .where(and(eq(paymentEntries.workspaceId, ctx.ws.id), eq(paymentEntries.id, entry.id))),
      );
      set.totalCents = amountCents;
      set.arrangementStatus = done && entry.refundedCents > 0 && entry.refundedCents >= amountCents ? 'cancelled' : headerStatusFor(status);
    }
  }

  if (p.type !== 'recurring') {
    // Ignored off a recurring plan, yet held to its rules: a value a plan refuses is not a value a client can rely on being ignored.
    parseEndAt(c.endAt, p.purchaseDate, ctx.ws.timezone);
    checkMaxOccurrences(c.maxOccurrences);
  } else {
    if (c.autoGenerate !== undefined) set.recurringAutoGenerate = c.autoGenerate;
    if (c.endAt !== undefined) set.recurringEndAt = parseEndAt(c.endAt, p.purchaseDate, ctx.ws.timezone);
    if (c.maxOccurrences !== undefined) {
      checkMaxOccurrences(c.maxOccurrences);
      set.recurringMaxOccurrences = c.maxOccurrences;
    }
    if (c.vat) {
      set.vatMode = c.vat.mode;
      set.vatRate = c.vat.rate;
    }
    // Shortening may complete an active plan; extending never reactivates one.
    if (p.arrangementStatus === 'active' && (c.endAt !== undefined || c.maxOccurrences !== undefined)) {
      const merged = { ...p, ...set };
      const n = merged.recurringCycles + 1;
      const dueAt = merged.recurringNextDueAt ?? cycleDueAt(merged.purchaseDate, merged.recurringInterval as RecurringInterval, n, ctx.ws.timezone);
      if (!cycleAllowed(merged, n, dueAt)) {
        set.arrangementStatus = 'completed';
        set.recurringNextDueAt = null;
      }
    }
  }

  batch.write(
    ctx.db
      .update(payments)
      .set({ ...set, updatedAt: guarded(sql`${payments.updatedAt} = ${p.updatedAt}`, sql`${now}`) })
      .where(and(eq(payments.workspaceId, ctx.ws.id), eq(payments.id, p.id))),
    ...statements,
  );
}

/** A change made to the payment since it was read (a parallel PATCH, a sweep recording a cycle, a refund of the entry). */
export const updateRacesLostOn = [guardOf(payments.updatedAt), guardOf(paymentEntries.status)];

/** `PATCH /v1/payments/{id}`. */
export function patchPayment(ctx: ServiceContext, id: string, input: PaymentPatchInput) {
  checkMetadata(input.metadata);
  if (input.amount !== undefined) checkAmount(input.amount);
  const productId = input.product_id?.toLowerCase();
  return runOperation(ctx, {
    reads: { ...paymentWithEntries(ctx.db, ctx.ws.id, id), product: !!productId && productLookup(ctx, { product_id: productId }) },
    decide: (read, batch) => {
      const [p] = read.payment;
      if (!p) throw PaymentErrors.notFound();
      const vatGiven = input.vat_mode !== undefined || input.vat_rate !== undefined;
      const vat = vatGiven ? vatPair(p.type, input.vat_mode, input.vat_rate) : undefined;
      const product = productId ? attachableProduct(read.product[0], p.productId) : input.product_id === null ? null : undefined;
      applyChanges(ctx, batch, p, read.entries, changesFrom(input, product, vat));
      return paymentAsWritten(ctx, batch, p.id);
    },
    lostRaceOn: updateRacesLostOn,
  });
}
