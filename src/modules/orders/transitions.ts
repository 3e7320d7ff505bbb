import { and, eq, ne, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso, retryOnConflict, runBatch, type Statement } from '../../platform/db';
import { badRequest, codedError } from '../../platform/errors';
import { uuidv7 } from '../../platform/ids';
import { toCents } from '../../platform/money';
import { parseIsoInZone } from '../payments/dates';
import { paymentChargeColumn, selectEntriesByReference, selectPaymentByReference, type PaymentWithCharge } from '../payments/read';
import type { PaymentEntryRow, PaymentRow } from '../payments/schema';
import { refundLostRace, refundStatements } from '../payments/refunds';
import { activities, activity, activityRow, type ActivityRow } from '../contacts/service';
import { MAX_AMOUNT, type OrderMarkPaidInput, type OrderRefundInputT } from './dto';
import { orderEventData } from './events';
import { fullOrderRead, fullOrderRowOf, orderAsWritten, selectFullOrder, serializeFullOrder, type FullOrder, type FullOrderRow } from './read';
import { orderRefunds, orders, type FinancialStatus, type OrderRefundRow, type OrderRow } from './schema';
import { orderAfterGuardedWrite, orderLostRace, orderNotFound, orderPaymentStatements, revisionGuard, storeSyncedReadOnly } from './service';
import { prepared, preparedInsert } from '../../platform/prepared';

const refundInsert = preparedInsert(orderRefunds);

/** The order a batch ending with a `selectFullOrder` read found; 404 when absent, 409 for store-synced orders (read-only through the API). */
function writableOrder<E = unknown>(results: unknown[]): FullOrderRow & E {
  const read = fullOrderRowOf<E>(results);
  if (!read) throw orderNotFound();
  if (read.order.storeConnectionId) throw storeSyncedReadOnly();
  return read;
}

const updateOrder = (ctx: ServiceContext, id: string, set: Partial<OrderRow>) =>
  ctx.db.update(orders).set(set).where(and(eq(orders.workspaceId, ctx.ws.id), eq(orders.id, id)));

// ---------------------------------------------------------------- refunds

const [ws, orderId] = [sql.placeholder('ws'), sql.placeholder('order')];

/** The payment the order's `payment_reference` names, with its charge: a column of the refund's read of the order. */
const heldPayment = paymentChargeColumn(orders.paymentReference, orders.workspaceId);
const orderWithPayment = prepared((db) => selectFullOrder(db, { held: heldPayment.column }));

/** A refund's change of the order, guarded on the revision that was read (see `revisionGuard`). */
const refundedUpdate = prepared((db) =>
  db
    .update(orders)
    .set({
      refundedTotalCents: sql.placeholder('refundedTotalCents') as unknown as number,
      financialStatus: sql.placeholder('financialStatus') as unknown as FinancialStatus,
      refundedAt: sql.placeholder('refundedAt') as unknown as string,
      revision: sql`${orders.revision} + 1` as unknown as number,
      updatedAt: guarded(sql`${orders.revision} = ${sql.placeholder('revision')}`, sql`${sql.placeholder('now')}`) as unknown as string,
    })
    .where(and(eq(orders.workspaceId, ws), eq(orders.id, orderId))),
);

/**
 * The ledger refund mirroring an order refund into the order's recorded
 * one-time payment: at most what the charge can still give back (a linked
 * payment may hold less than the order total); nothing when the order has no
 * payment or its charge is no longer refundable.
 */
function mirrorRefund(ctx: ServiceContext, held: PaymentWithCharge | null, cents: number, note: string | null): { statements: Statement[]; timeline: ActivityRow[] } {
  const none = { statements: [], timeline: [] };
  if (!held || held.payment.type !== 'one_time') return none;
  const { id, currency, status, recognizedCents, refundedCents } = held.charge;
  if (id === null || currency === null || status !== 'completed' || recognizedCents === null) return none;
  const balance = recognizedCents - (refundedCents ?? 0);
  if (balance <= 0) return none;
  const { statements, timeline } = refundStatements(ctx, held.payment, { id, currency }, Math.min(cents, balance), note);
  return { statements, timeline: [timeline] };
}

const balanceText = (cents: number) => (cents / 100).toFixed(2);

/**
 * `POST /v1/orders/{id}/refunds`: one read (the order with its lines and
 * refunds and its recorded payment with its charge) and one write batch: the
 * refund row, the order's refunded total and status (guarded on the revision
 * that was read, so parallel refunds never pass the order total: a loser
 * re-reads and answers the remaining-total message), the mirrored ledger
 * refund and `order.refunded`; the answer is the order as written. An
 * `external_refund_id` among the refunds read applies nothing; a parallel
 * repeat loses on the unique index and, re-read, finds it there.
 */
export async function refundOrder(ctx: ServiceContext, id: string, input: OrderRefundInputT): Promise<{ duplicate: boolean; order: FullOrder }> {
  if (!(input.amount > 0 && toCents(Math.min(input.amount, MAX_AMOUNT + 1)) > 0)) throw badRequest('Refund amount must be a positive number');
  const cents = toCents(Math.min(input.amount, MAX_AMOUNT + 1));
  let refundedAt: string | undefined;
  if (input.refunded_at !== undefined) {
    refundedAt = parseIsoInZone(input.refunded_at, ctx.ws.timezone) ?? undefined;
    if (!refundedAt) throw badRequest('refundedAt is not a valid date');
  }
  const reason = input.reason?.trim() || null;
  return retryOnConflict(
    async () => {
      const read = writableOrder<{ held: string | null }>(await runBatch(ctx.db, [orderWithPayment.in(ctx.db, { ws: ctx.ws.id, order: id })]));
      const { order } = read;
      const held = heldPayment.parse(read.held);
      if (input.external_refund_id !== undefined && read.refunds.some((r) => r.externalRefundId === input.external_refund_id)) {
        return { duplicate: true, order: serializeFullOrder(read) };
      }
      if (!order.paidAt) throw codedError(400, 'ORDER_NEVER_PAID', 'This order was never paid; only paid orders can be refunded');
      const remaining = order.totalCents - order.refundedTotalCents;
      if (cents > remaining) throw badRequest(`Refund amount exceeds the order's remaining total (${balanceText(remaining)})`);

      const now = nowIso();
      const refund: OrderRefundRow = {
        id: uuidv7(),
        workspaceId: ctx.ws.id,
        orderId: order.id,
        contactId: order.contactId,
        externalRefundId: input.external_refund_id ?? null,
        amountCents: cents,
        currency: order.currency,
        reason,
        refundedAt: refundedAt ?? now,
        createdAt: now,
      };
      const refundedTotalCents = order.refundedTotalCents + cents;
      const after = orderAfterGuardedWrite(
        order,
        {
          refundedTotalCents,
          financialStatus: refundedTotalCents >= order.totalCents ? 'refunded' : 'partially_refunded',
          refundedAt: order.refundedAt && order.refundedAt > refund.refundedAt ? order.refundedAt : refund.refundedAt,
        },
        now,
      );
      const { event, statement } = ctx.events.emit(ctx.db, ctx.ws.id, 'order.refunded', orderEventData(after, refund));
      const mirror = mirrorRefund(ctx, held, cents, reason ?? `Refund of order ${order.orderNumber}`);
      const orderTimeline = activityRow(ctx, order.contactId, 'order_refunded', 'api', { order_id: order.id, refund_id: refund.id, amount: cents / 100, currency: order.currency }, now);
      await runBatch(ctx.db, [
        refundedUpdate.in(ctx.db, {
          ws: ctx.ws.id,
          order: order.id,
          refundedTotalCents,
          financialStatus: after.financialStatus,
          refundedAt: after.refundedAt,
          revision: order.revision,
          now,
        }),
        refundInsert.in(ctx.db, refund),
        ...mirror.statements,
        activities(ctx, [...mirror.timeline, orderTimeline]),
        statement,
      ]);
      ctx.events.committedAfter([event]);
      return { duplicate: false, order: orderAsWritten(read, after, [refund]) };
    },
    (err) => orderLostRace(err) || refundLostRace(err),
  );
}

// ---------------------------------------------------------------- mark-paid

const ILLEGAL_FROM: FinancialStatus[] = ['refunded', 'partially_refunded', 'voided'];

/**
 * `POST /v1/orders/{id}/mark-paid`, the transition table: `pending` (cancelled
 * or not) and `partially_paid` become `paid` (`paid_at` stamped on first
 * entry) with a recorded payment, or the existing payment `payment_reference`
 * names (linked, its amount untouched); `paid` is a no-op; refunded, partially
 * refunded and voided orders answer 409 `ORDER_ILLEGAL_TRANSITION`. A
 * `payment_reference` other than the one already linked answers
 * `ORDER_PAYMENT_ALREADY_LINKED`; so does a payment backing another order
 * (one payment backs one order: a unique index, so parallel links cannot both win).
 */
export async function markOrderPaid(ctx: ServiceContext, id: string, input: OrderMarkPaidInput): Promise<FullOrder> {
  const reference = input.payment_reference;
  return retryOnConflict(async () => {
    const results = await runBatch(ctx.db, [
      selectPaymentByReference(ctx.db, ctx.ws.id, reference ?? ''),
      selectEntriesByReference(ctx.db, ctx.ws.id, reference ?? ''),
      ctx.db
        .select({ id: orders.id })
        .from(orders)
        .where(and(eq(orders.workspaceId, ctx.ws.id), eq(orders.paymentReference, reference ?? ''), ne(orders.id, id)))
        .limit(1),
      fullOrderRead(ctx.db, ctx.ws.id, id),
    ]);
    const [[payment], entries, linkedElsewhere] = results as [PaymentRow[], PaymentEntryRow[], unknown[]];
    const read = writableOrder(results);
    const { order } = read;
    if (ILLEGAL_FROM.includes(order.financialStatus)) {
      throw codedError(409, 'ORDER_ILLEGAL_TRANSITION', `An order that is ${order.financialStatus} cannot be marked paid`);
    }
    const alreadyLinked = () => codedError(409, 'ORDER_PAYMENT_ALREADY_LINKED', 'Another payment is already linked to this order, or this payment backs another order');
    if (reference !== undefined && order.paymentReference !== null && order.paymentReference !== reference) throw alreadyLinked();
    if (order.financialStatus === 'paid') return serializeFullOrder(read);

    const now = nowIso();
    const statements: Statement[] = [];
    let paymentReference = order.paymentReference;
    if (reference !== undefined) {
      if (!payment) throw codedError(404, 'ORDER_PAYMENT_REFERENCE_NOT_FOUND', 'No payment of this workspace has this external_reference');
      if (payment.contactId !== order.contactId) throw codedError(409, 'ORDER_PAYMENT_CONTACT_MISMATCH', 'The payment belongs to another contact than the order');
      const completedCharge = entries.some((e) => e.kind === 'charge' && e.status === 'completed');
      if (payment.type !== 'one_time' || !completedCharge) throw codedError(409, 'ORDER_PAYMENT_NOT_LINKABLE', 'Only a one-time payment with a completed charge can be linked');
      if (linkedElsewhere.length) throw alreadyLinked();
      paymentReference = reference;
    } else if (paymentReference === null) {
      const recorded = orderPaymentStatements(ctx, order);
      statements.push(...recorded.statements);
      paymentReference = recorded.header.externalReference;
    }
    const after = orderAfterGuardedWrite(order, { financialStatus: 'paid', paidAt: order.paidAt ?? now, paymentReference, paymentSyncedAt: now }, now);
    const { event, statement } = ctx.events.emit(ctx.db, ctx.ws.id, 'order.paid', orderEventData(after));
    await runBatch(ctx.db, [
      updateOrder(ctx, order.id, { financialStatus: 'paid', paidAt: after.paidAt, paymentReference, paymentSyncedAt: now, ...revisionGuard(order, now) }),
      ...statements,
      activity(ctx, order.contactId, 'order_paid', 'api', { order_id: order.id, payment_reference: paymentReference }, now),
      statement,
    ]);
    ctx.events.committedAfter([event]);
    return orderAsWritten(read, after);
  }, orderLostRace);
}

// ---------------------------------------------------------------- cancel

/** `POST /v1/orders/{id}/cancel`: stamps `cancelled_at` once (financial status unchanged); an already-cancelled order is a no-op without an event. */
export async function cancelOrder(ctx: ServiceContext, id: string): Promise<FullOrder> {
  return retryOnConflict(async () => {
    const read = writableOrder(await runBatch(ctx.db, [fullOrderRead(ctx.db, ctx.ws.id, id)]));
    const { order } = read;
    if (order.cancelledAt) return serializeFullOrder(read);
    const now = nowIso();
    const after = orderAfterGuardedWrite(order, { cancelledAt: now }, now);
    const { event, statement } = ctx.events.emit(ctx.db, ctx.ws.id, 'order.cancelled', orderEventData(after));
    await runBatch(ctx.db, [
      updateOrder(ctx, order.id, { cancelledAt: now, ...revisionGuard(order, now, sql`${orders.cancelledAt} IS NULL`) }),
      activity(ctx, order.contactId, 'order_cancelled', 'api', { order_id: order.id }, now),
      statement,
    ]);
    ctx.events.committedAfter([event]);
    return orderAsWritten(read, after);
  }, orderLostRace);
}
