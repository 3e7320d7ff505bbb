import { and, asc, eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import type { Db } from '../../platform/d1/db';
import { runReads, type WriteBatch } from '../../platform/d1/operation';
import { fromCents } from '../../platform/money';
import { prepared } from '../../platform/d1/prepared';
import { contactIdentityColumns, contactIdentityJoin, serializeContactIdentity, type ContactIdentity } from '../contacts';
import { paymentEntries, payments, type PaymentEntryRow, type PaymentRow } from './schema';
import { PaymentErrors } from './errors';

const money = (cents: number | null) => (cents === null ? null : fromCents(cents));

export function serializeEntry(e: PaymentEntryRow) {
  return {
    id: e.id,
    payment_id: e.paymentId,
    workspace_id: e.workspaceId,
    contact_id: e.contactId,
    sequence: e.sequence,
    amount: fromCents(e.amountCents),
    currency: e.currency,
    status: e.status,
    due_date: e.dueDate,
    paid_at: e.paidAt,
    recognized_amount: money(e.recognizedCents),
    recognized_at: e.recognizedAt,
    kind: e.kind,
    refunds_entry_id: e.refundsEntryId,
    note: e.note,
    provider_refund_ref: e.providerRefundRef,
    refund_idempotency_key: e.refundIdempotencyKey,
    credit_document: e.creditDocument ?? null,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

export function serializeHeader(p: PaymentRow) {
  const recurring = p.type === 'recurring';
  return {
    id: p.id,
    workspace_id: p.workspaceId,
    contact_id: p.contactId,
    product_id: p.productId,
    type: p.type,
    title: p.title,
    note: p.note,
    currency: p.currency,
    total_amount: fromCents(p.totalCents),
    arrangement_status: p.arrangementStatus,
    method: p.method,
    purchase_date: p.purchaseDate,
    recurring_interval: p.recurringInterval,
    recurring_next_due_at: p.recurringNextDueAt,
    recurring_auto_generate: recurring ? Boolean(p.recurringAutoGenerate) : null,
    recurring_cancelled_at: p.recurringCancelledAt,
    recurring_end_at: p.recurringEndAt,
    recurring_max_occurrences: p.recurringMaxOccurrences,
    recurring_payment_method_id: p.recurringPaymentMethodId,
    recurring_last_attempt_at: p.recurringLastAttemptAt,
    recurring_failure_count: p.recurringFailureCount,
    recurring_paused_at: p.recurringPausedAt,
    recurring_next_retry_at: p.recurringNextRetryAt,
    recurring_dunning_started_at: p.recurringDunningStartedAt,
    vat_mode: recurring ? p.vatMode : null,
    vat_rate: recurring ? p.vatRate : null,
    installment_count: p.installmentCount,
    external_reference: p.externalReference,
    source: p.source,
    metadata: p.metadata ?? null,
    created_by: p.createdBy,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
  };
}

export const serializePayment = (p: PaymentRow, entries: PaymentEntryRow[]) => ({ ...serializeHeader(p), entries: entries.map(serializeEntry) });

export type PaymentWithContactRow = { payment: PaymentRow } & ContactIdentity;

export const serializeListRow = (r: PaymentWithContactRow) => ({
  ...serializeHeader(r.payment),
  ...serializeContactIdentity(r),
});

/** Payment headers with their contact's name, phone and email: one query, the join scoped to the payment's workspace too; `where` names the workspace. */
export function selectPaymentsWithContact(db: Db, where: SQL | undefined) {
  return db
    .select({ payment: payments, ...contactIdentityColumns })
    .from(payments)
    .leftJoin(...contactIdentityJoin(payments.contactId, payments.workspaceId))
    .where(where);
}

const paymentRead = prepared((db) =>
  db
    .select()
    .from(payments)
    .where(and(eq(payments.workspaceId, sql.placeholder('ws')), eq(payments.id, sql.placeholder('id'))))
    .limit(1),
);

/** A payment of the workspace, for a batch (its result: the rows). */
export const selectPayment = (db: Db, workspaceId: string, id: string) => paymentRead.in(db, { ws: workspaceId, id });

/** The same, read on its own. */
export const readPayment = (db: Db, workspaceId: string, id: string) => paymentRead.all(db, { ws: workspaceId, id });

const entriesOf = (db: Db, workspaceId: string | SQLWrapper, paymentId: string | SQLWrapper) =>
  db
    .select()
    .from(paymentEntries)
    .where(and(eq(paymentEntries.workspaceId, workspaceId), eq(paymentEntries.paymentId, paymentId)))
    .orderBy(asc(paymentEntries.sequence));
const entriesRead = prepared((db) => entriesOf(db, sql.placeholder('ws'), sql.placeholder('payment')));

/** A payment's entries by `sequence`, for a batch. */
export const selectEntries = (db: Db, workspaceId: string, paymentId: string) => entriesRead.in(db, { ws: workspaceId, payment: paymentId });

/** A payment and its entries, as named reads (of a read batch, or at the end of a write batch). */
export const paymentWithEntries = (db: Db, workspaceId: string, id: string) => ({
  payment: selectPayment(db, workspaceId, id),
  entries: selectEntries(db, workspaceId, id),
});

/** The payment those reads found, serialized (the row must be there). */
export const paymentOf = (read: { payment: PaymentRow[]; entries: PaymentEntryRow[] }) => serializePayment(read.payment[0], read.entries);

/** The answer of a payment write: the payment and its entries as the batch left them. */
export const paymentAsWritten = (ctx: ServiceContext, batch: WriteBatch, id: string) =>
  batch.answerFrom(paymentWithEntries(ctx.db, ctx.ws.id, id), paymentOf);

/** `GET /v1/payments/{id}`. */
export async function getPayment(ctx: ServiceContext, id: string) {
  const read = await runReads(ctx, paymentWithEntries(ctx.db, ctx.ws.id, id));
  if (!read.payment[0]) throw PaymentErrors.notFound();
  return paymentOf(read);
}

const ws = sql.placeholder('ws');

/**
 * The reads of the workspace's payment whose `external_reference` is `reference` (SQL with
 * placeholders, evaluated in the batch: another module's column, say) and of its entries by
 * `sequence`, built once; each takes the placeholders' values, the workspace's as `ws`.
 */
export function paymentReadsByReference(reference: SQLWrapper) {
  const payment = prepared((db) =>
    db
      .select()
      .from(payments)
      .where(and(eq(payments.workspaceId, ws), eq(payments.externalReference, reference)))
      .limit(1),
  );
  const entries = prepared((db) =>
    entriesOf(db, ws, sql`(SELECT id FROM payments WHERE workspace_id = ${ws} AND external_reference = ${reference})`),
  );
  return {
    payment: (db: Db, values: Record<string, unknown>) => payment.in(db, values),
    entries: (db: Db, values: Record<string, unknown>) => entries.in(db, values),
  };
}

const byReference = paymentReadsByReference(sql.placeholder('reference'));

/** The payment whose `external_reference` is `reference`, for read batches. */
export const selectPaymentByReference = (db: Db, workspaceId: string, reference: string) => byReference.payment(db, { ws: workspaceId, reference });

/** The entries of the payment whose `external_reference` is `reference`, ordered by `sequence`. */
export const selectEntriesByReference = (db: Db, workspaceId: string, reference: string) => byReference.entries(db, { ws: workspaceId, reference });
