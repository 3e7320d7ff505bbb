import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import { preparedInsert, preparedRowsInsert } from '../../platform/d1/prepared';
import { afterInsertOf, type RowGuard } from '../../platform/d1/row-guard';
import { installmentDueDates, localDate } from '../../platform/calendar';
import { uuidv7 } from '../../platform/ids';
import { activity } from '../contacts';
import type { ProductRow } from '../products';
import type { PaymentCreateInput } from './dto';
import { nextCycle } from './recurring-cycles';
import { paymentEntries, payments, type ArrangementStatus, type EntryStatus, type PaymentEntryRow, type PaymentRow, type VatMode } from './schema';
import type { CreatePlan, Vat } from './validate';

const paymentInsert = preparedInsert(payments);
const entriesInsert = preparedRowsInsert(paymentEntries);

/** One-time header status from its entry's status. */
export const headerStatusFor = (status: EntryStatus): ArrangementStatus =>
  status === 'completed' ? 'completed' : status === 'pending' ? 'active' : 'cancelled';

const productVat = (product: ProductRow | null): Vat | undefined =>
  product?.vatMode && product.vatRate !== null && product.vatRate !== undefined
    ? { mode: product.vatMode as VatMode, rate: product.vatRate }
    : undefined;

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
