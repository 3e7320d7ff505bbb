import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso, type Statement } from '../../platform/d1/db';
import { runOperation, runReads, type WriteBatch } from '../../platform/d1/operation';
import { guardOf, uniqueOn } from '../../platform/d1/constraints';
import { uuidv7 } from '../../platform/ids';
import { toCents } from '../../platform/money';
import { planContactReference, referencedContactExists, type ContactReferencePlan, activity } from '../contacts';
import { type ProductRow, productLookup, type ProductReference, attachableProduct } from '../products';
import { cycleDueAt, installmentDueDates, localDate } from '../../platform/calendar';
import type { PaymentCreateInput, PaymentPatchInput } from './dto';
import { checkAmount, checkMaxOccurrences, checkMetadata, parseEndAt, validateCreate, vatPair, type CreatePlan, type Vat } from './validate';
import {
  paymentOf,
  paymentWithEntries,
  selectEntries,
  selectEntriesByReference,
  selectPayment,
  selectPaymentByReference,
  serializePayment,
} from './read';
import {
  paymentEntries,
  payments,
  type ArrangementStatus,
  type EntryStatus,
  type PaymentEntryRow,
  type PaymentRow,
  type RecurringInterval,
  type VatMode,
} from './schema';
import { prepared, preparedInsert, preparedRowsInsert } from '../../platform/d1/prepared';
import { afterInsertOf, type RowGuard } from '../../platform/d1/row-guard';
import { PaymentErrors } from './errors';

const paymentInsert = preparedInsert(payments);
const entriesInsert = preparedRowsInsert(paymentEntries);

/** One-time header status from its entry's status. */
export const headerStatusFor = (status: EntryStatus): ArrangementStatus =>
  status === 'completed' ? 'completed' : status === 'pending' ? 'active' : 'cancelled';

// ---------------------------------------------------------------- products

function productReference(input: PaymentCreateInput): ProductReference {
  if (input.product_id !== undefined) return { product_id: input.product_id.toLowerCase() };
  if (input.product_sku !== undefined) return { product_sku: input.product_sku };
  if (input.product_external_id !== undefined) return { product_external_id: input.product_external_id };
  return {};
}

const productVat = (product: ProductRow | null): Vat | undefined =>
  product?.vatMode && product.vatRate !== null && product.vatRate !== undefined
    ? { mode: product.vatMode as VatMode, rate: product.vatRate }
    : undefined;

// ---------------------------------------------------------------- recurring end conditions

/** Whether cycle `n`, due at `dueAt`, is within the plan's end conditions. */
export const cycleAllowed = (p: { recurringEndAt: string | null; recurringMaxOccurrences: number | null }, n: number, dueAt: string) =>
  (p.recurringMaxOccurrences === null || n <= p.recurringMaxOccurrences) && (p.recurringEndAt === null || dueAt <= p.recurringEndAt);

/** The next cycle of an active plan, or null when its end conditions allow none (the plan completes). */
export function nextCycle(
  p: Pick<PaymentRow, 'purchaseDate' | 'recurringInterval' | 'recurringCycles' | 'recurringEndAt' | 'recurringMaxOccurrences'>,
  zone: string,
) {
  const n = p.recurringCycles + 1;
  const dueAt = cycleDueAt(p.purchaseDate, p.recurringInterval as RecurringInterval, n, zone);
  return cycleAllowed(p, n, dueAt) ? { n, dueAt } : null;
}

// ---------------------------------------------------------------- create

export const entryBase = (ctx: ServiceContext, paymentId: string, contactId: string, currency: string, now: string) => ({
  paymentId,
  workspaceId: ctx.ws.id,
  contactId,
  cycle: null,
  dueDate: null,
  paidAt: null,
  recognizedCents: null,
  recognizedAt: null,
  refundedCents: 0,
  kind: 'charge' as const,
  refundsEntryId: null,
  note: null,
  providerRefundRef: null,
  refundIdempotencyKey: null,
  creditDocument: null,
  currency,
  createdAt: now,
  updatedAt: now,
});

/** Splits `total` cents into `count` parts, the remainder cents on the first parts. */
export function splitCents(total: number, count: number): number[] {
  const base = Math.floor(total / count);
  const rest = total - base * count;
  return Array.from({ length: count }, (_, i) => base + (i < rest ? 1 : 0));
}

/** What another module passes to record a payment in its own batch: a create body (already validated by `validateCreate`) and the resolved contact and product. */
export type RecordPaymentInput = { input: PaymentCreateInput; plan: CreatePlan; product: ProductRow | null; contactId: string };

/**
 * The statements that record a payment (header, entries in one statement, the
 * timeline row), for the caller's write batch, and the rows they write; with
 * `guard`, the header is written only when it holds as that batch runs, the rest
 * only when the header was. `createPayment` is built on it; payment requests and
 * orders put the same statements into their own batches.
 */
export function recordPaymentStatements(
  ctx: ServiceContext,
  r: RecordPaymentInput,
  guard?: RowGuard,
): { statements: Statement[]; header: PaymentRow; entries: PaymentEntryRow[] } {
  const { header, entries, now } = buildPayment(ctx, r.input, r.plan, r.product, r.contactId);
  const written = guard && afterInsertOf(payments, header.id);
  const statements: Statement[] = [
    paymentInsert.in(ctx.db, header, guard),
    entriesInsert.in(ctx.db, entries, written),
    activity(
      ctx,
      header.contactId,
      'payment_recorded',
      'api',
      { payment_id: header.id, type: header.type, title: header.title, amount: header.totalCents / 100, currency: header.currency },
      now,
      written,
    ),
  ];
  if (entries.some((e) => e.status === 'completed'))
    statements.push(...ctx.events.signal(ctx.db, ctx.ws.id, header.contactId, 'payment.completed', written));
  return { statements, header, entries };
}

function buildPayment(ctx: ServiceContext, input: PaymentCreateInput, plan: CreatePlan, product: ProductRow | null, contactId: string) {
  const now = nowIso();
  const zone = ctx.ws.timezone;
  const id = uuidv7();
  const currency = input.currency?.toUpperCase() ?? ctx.ws.currency;
  const header: PaymentRow = {
    id,
    workspaceId: ctx.ws.id,
    contactId,
    productId: product?.id ?? null,
    type: plan.type,
    title: product ? product.name : input.title || null,
    note: input.note?.trim() || null,
    currency,
    totalCents: plan.amountCents,
    arrangementStatus: 'active',
    method: input.method ?? null,
    purchaseDate: plan.purchaseDate,
    recurringInterval: null,
    recurringNextDueAt: null,
    recurringAutoGenerate: null,
    recurringCancelledAt: null,
    recurringEndAt: null,
    recurringMaxOccurrences: null,
    recurringCycles: 0,
    recurringPaymentMethodId: null,
    recurringLastAttemptAt: null,
    recurringFailureCount: 0,
    recurringPausedAt: null,
    recurringNextRetryAt: null,
    recurringDunningStartedAt: null,
    vatMode: null,
    vatRate: null,
    installmentCount: plan.installmentCount,
    externalReference: input.external_reference ?? null,
    source: 'api',
    metadata: input.metadata ?? null,
    createdBy: null,
    createdAt: now,
    updatedAt: now,
  };
  const base = entryBase(ctx, id, contactId, currency, now);
  const entries: PaymentEntryRow[] = [];
  if (plan.type === 'one_time') {
    const status = input.status ?? 'completed';
    const done = status === 'completed';
    header.arrangementStatus = headerStatusFor(status);
    entries.push({
      ...base,
      id: uuidv7(),
      sequence: 1,
      amountCents: plan.amountCents,
      status,
      dueDate: localDate(plan.purchaseDate, zone),
      paidAt: done ? plan.purchaseDate : null,
      recognizedCents: done ? plan.amountCents : null,
      recognizedAt: done ? plan.purchaseDate : null,
    });
  } else if (plan.type === 'installments') {
    const dates = installmentDueDates(plan.purchaseDate, plan.installmentCount!, zone);
    splitCents(plan.amountCents, plan.installmentCount!).forEach((cents, i) =>
      entries.push({
        ...base,
        id: uuidv7(),
        sequence: i + 1,
        amountCents: cents,
        status: 'pending',
        dueDate: dates[i],
        recognizedCents: cents,
        recognizedAt: now,
      }),
    );
  } else {
    const vat = plan.vat ?? productVat(product) ?? { mode: ctx.ws.vatMode as VatMode, rate: ctx.ws.vatRate };
    Object.assign(header, {
      recurringInterval: input.interval ?? 'monthly',
      recurringAutoGenerate: input.auto_generate ?? true,
      recurringEndAt: plan.endAt,
      recurringMaxOccurrences: plan.maxOccurrences,
      vatMode: vat.mode,
      vatRate: vat.rate,
    });
    if (input.record_first_payment ?? true) {
      header.recurringCycles = 1;
      entries.push({
        ...base,
        id: uuidv7(),
        sequence: 1,
        cycle: 1,
        amountCents: plan.amountCents,
        status: 'completed',
        dueDate: localDate(plan.purchaseDate, zone),
        paidAt: plan.purchaseDate,
        recognizedCents: plan.amountCents,
        recognizedAt: plan.purchaseDate,
      });
    }
    const next = nextCycle(header, zone);
    header.recurringNextDueAt = next?.dueAt ?? null;
    header.arrangementStatus = next ? 'active' : 'completed';
  }
  return { header, entries, now };
}

/** The answer of a payment write: the payment and its entries as the batch left them. */
export const paymentAsWritten = (ctx: ServiceContext, batch: WriteBatch, id: string) =>
  batch.answerFrom(paymentWithEntries(ctx.db, ctx.ws.id, id), paymentOf);

/**
 * `POST /v1/payments`: one read batch (the `external_reference` match with its
 * entries, the product, the contact reference's reads) and one write batch
 * (the contact's own create or update first, then the payment, its entries,
 * the timeline row and the re-read). A parallel create of the same reference
 * fails the unique index and is retried as the update. A new payment without
 * a product is also sent along with the reads (see `recordAlongReads`): one
 * round trip.
 */
export function createPayment(ctx: ServiceContext, input: PaymentCreateInput) {
  const plan = validateCreate(ctx, input);
  const productRef = productReference(input);
  const namesProduct = Object.keys(productRef).length > 0;
  const contactRef = { contact_id: input.contact_id?.toLowerCase(), phone: input.phone, email: input.email, name: input.name };
  return runOperation(ctx, () => {
    const contactPlan = planContactReference(ctx, contactRef, { missing: PaymentErrors.noContact, source: 'api' });
    const along = namesProduct ? null : recordAlongReads(ctx, input, plan, contactPlan);
    return {
      along: along && {
        ...along,
        done: (read) => (read.created[0] ? { ...paymentOf({ payment: read.created, entries: read.createdEntries }), duplicate: false } : null),
      },
      // The reference's payment and the product are read only when the body names them.
      reads: {
        created: along && selectPayment(ctx.db, ctx.ws.id, along.id),
        createdEntries: along && selectEntries(ctx.db, ctx.ws.id, along.id),
        existing: input.external_reference !== undefined && selectPaymentByReference(ctx.db, ctx.ws.id, input.external_reference),
        existingEntries: input.external_reference !== undefined && selectEntriesByReference(ctx.db, ctx.ws.id, input.external_reference),
        product: namesProduct && productLookup(ctx, productRef),
        contact: contactPlan,
      },
      decide: async (read, batch) => {
        const [existing] = read.existing;
        const product = namesProduct ? attachableProduct(read.product[0], existing?.productId ?? null) : null;
        if (existing) {
          applyChanges(
            ctx,
            batch,
            existing,
            read.existingEntries,
            changesFrom(input, product ?? undefined, existing.type === 'recurring' ? plan.vat : undefined),
          );
          return batch.answerFrom(paymentWithEntries(ctx.db, ctx.ws.id, existing.id), (written) => ({ ...paymentOf(written), duplicate: true }));
        }
        const contact = await read.contact();
        const { statements, header } = recordPaymentStatements(ctx, { input, plan, product, contactId: contact.contact.id });
        batch.join(contact).write(...statements);
        return batch.answerFrom(paymentWithEntries(ctx.db, ctx.ws.id, header.id), (written) => ({ ...paymentOf(written), duplicate: false }));
      },
      lostRaceOn: [paymentReferenceKey, ...updateRacesLostOn],
    };
  });
}

/** A parallel write recorded a payment with the same `external_reference` first. */
export const paymentReferenceKey = uniqueOn(payments.workspaceId, payments.externalReference);

/**
 * A new payment's statements, put in the batch of the create's reads: the payment is written
 * only if, as the batch runs, its contact exists and no payment holds the `external_reference`;
 * its entries and timeline row only if it was. A phone/email reference sends the contact's
 * create along first (see `along`), itself guarded on the reference being free, so a contact is
 * created only with the payment. Otherwise the batch wrote nothing and its reads decide as
 * always (a held reference: the update). The last reads re-read the payment: a header means it was created.
 */
function recordAlongReads(ctx: ServiceContext, input: PaymentCreateInput, plan: CreatePlan, contactPlan: ContactReferencePlan) {
  const values = { newWs: ctx.ws.id, newReference: input.external_reference ?? null };
  const contact = contactPlan.along({ condition: referenceFree, values });
  if (!contact) return null;
  const guard: RowGuard = { condition: newPaymentCondition, values: { ...values, newContact: contact.id } };
  const { statements, header } = recordPaymentStatements(ctx, { input, plan, product: null, contactId: contact.id }, guard);
  return { id: header.id, statements: [...contact.statements, ...statements], events: contact.events };
}

const [newWs, newContact, newReference] = ['newWs', 'newContact', 'newReference'].map((name) => sql.placeholder(name));
const referenceFree = sql`NOT EXISTS (SELECT 1 FROM ${payments} WHERE ${payments.workspaceId} = ${newWs} AND ${payments.externalReference} = ${newReference})`;
const newPaymentCondition = sql`${referencedContactExists(newWs, newContact)} AND ${referenceFree}`;

// ---------------------------------------------------------------- updates (PATCH and the upsert)

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

const changesFrom = (input: MutableInput, product: ProductRow | null | undefined, vat: Vat | undefined): Changes => ({
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
function applyChanges(ctx: ServiceContext, batch: WriteBatch, p: PaymentRow, entries: PaymentEntryRow[], c: Changes) {
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

  if (p.type === 'recurring') {
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
const updateRacesLostOn = [guardOf(payments.updatedAt), guardOf(paymentEntries.status)];

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

// ---------------------------------------------------------------- reads

export async function getPayment(ctx: ServiceContext, id: string) {
  const { p, entries } = await readPaymentAndEntries(ctx, id);
  return serializePayment(p, entries);
}

// ---------------------------------------------------------------- cancel, mark, refund

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

export const readPaymentAndEntries = async (ctx: ServiceContext, id: string) => {
  const { payment, entries } = await runReads(ctx, paymentWithEntries(ctx.db, ctx.ws.id, id));
  if (!payment[0]) throw PaymentErrors.notFound();
  return { p: payment[0], entries };
};

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

// ---------------------------------------------------------------- document pointers (contact documents listing)

/**
 * Batchable reads of the document pointers a contact's payments hold: payments
 * whose `metadata.document` is an object (with the header's purchase date,
 * total and currency) and refund entries with a `credit_document` (with the
 * entry's creation time, amount and currency).
 */
const [documentWs, documentContact] = [sql.placeholder('ws'), sql.placeholder('contact')];
const paymentPointers = prepared((db) =>
  db
    .select({
      id: payments.id,
      date: payments.purchaseDate,
      cents: payments.totalCents,
      currency: payments.currency,
      document: sql<string>`json_extract(${payments.metadata}, '$.document')`.as('document'),
    })
    .from(payments)
    .where(
      and(
        eq(payments.workspaceId, documentWs),
        eq(payments.contactId, documentContact),
        sql`json_type(${payments.metadata}, '$.document') = 'object'`,
      ),
    ),
);
const entryPointers = prepared((db) =>
  db
    .select({
      id: paymentEntries.id,
      paymentId: paymentEntries.paymentId,
      date: paymentEntries.createdAt,
      cents: paymentEntries.amountCents,
      currency: paymentEntries.currency,
      document: paymentEntries.creditDocument,
    })
    .from(paymentEntries)
    .where(
      and(
        eq(paymentEntries.workspaceId, documentWs),
        eq(paymentEntries.contactId, documentContact),
        sql`${paymentEntries.creditDocument} IS NOT NULL`,
      ),
    ),
);

/** The document pointers of a contact's payments and refund entries, for the documents listing's read batch (built once: `prepared`). */
export const contactDocumentPointerReads = (ctx: ServiceContext, contactId: string) => [
  paymentPointers.in(ctx.db, { ws: ctx.ws.id, contact: contactId }),
  entryPointers.in(ctx.db, { ws: ctx.ws.id, contact: contactId }),
];

export type PaymentDocumentRow = { id: string; date: string; cents: number; currency: string; document: string };
export type EntryDocumentRow = { id: string; paymentId: string; date: string; cents: number; currency: string; document: unknown };
