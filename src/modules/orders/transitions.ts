import { and, eq, ne, sql } from 'drizzle-orm';
import type { SQLiteUpdateSetSource } from 'drizzle-orm/sqlite-core';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import { runOperation, unchanged } from '../../platform/d1/operation';
import type { RowsOf } from '../../platform/d1/typed-read';
import { uuidv7 } from '../../platform/ids';
import { fromCentsSql, toCents } from '../../platform/money';
import { parseIsoInZone } from '../../platform/calendar';
import { selectEntriesByReference, selectPaymentByReference, mirroredRefund } from '../payments';
import { activity, activityFrom, type TimelineSource } from '../contacts';
import { MAX_AMOUNT, type OrderMarkPaidInput, type OrderRefundInputT } from './dto';
import { orderEventData, refundedEventDataSql } from './event-payload';
import { fullOrderRead, fullOrderRowOf, orderAsWritten, serializeFullOrder, type FullOrder, type FullOrderRow } from './read';
import { orderRefunds, orders, type FinancialStatus } from './schema';
import { orderPaymentStatements } from './order-payment';
import { orderAfterGuardedWrite, orderRacesLostOn, revisionGuard } from './order-revision';
import { preparedSql } from '../../platform/d1/prepared';
import { afterInsertOf, guardable } from '../../platform/d1/row-guard';
import { OrderErrors } from './errors';

/** The order a full order's read found; 404 when absent, 409 for store-synced orders (read-only through the API). */
function writableOrder(rows: RowsOf<ReturnType<typeof fullOrderRead>>): FullOrderRow {
  const read = fullOrderRowOf(rows);
  if (!read) throw OrderErrors.notFound();
  if (read.order.storeConnectionId) throw OrderErrors.storeSyncedReadOnly();
  return read;
}

const updateOrder = (ctx: ServiceContext, id: string, set: SQLiteUpdateSetSource<typeof orders>) =>
  ctx.db
    .update(orders)
    .set(set)
    .where(and(eq(orders.workspaceId, ctx.ws.id), eq(orders.id, id)));

// ---------------------------------------------------------------- refunds

const [ws, orderId, refundId, cents, external, refundedAt, now] = ['ws', 'order', 'refund', 'cents', 'external', 'refundedAt', 'now'].map((name) =>
  sql.placeholder(name),
);

/**
 * The refund row, written only when the order, as the batch runs, can take it: an API order,
 * paid, with `cents` left of its total, and no refund of it holding the `external_refund_id`.
 * Batches run one at a time, so parallel refunds see each other's rows: none passes the total.
 */
const refundInsert = preparedSql(
  'run',
  () => sql`INSERT INTO ${orderRefunds} (id, workspace_id, order_id, contact_id, external_refund_id, amount_cents, currency, reason, refunded_at, created_at)
    SELECT ${refundId}, o.workspace_id, o.id, o.contact_id, ${external}, ${cents}, o.currency, ${sql.placeholder('reason')}, ${refundedAt}, ${now}
    FROM orders o
    WHERE o.workspace_id = ${ws} AND o.id = ${orderId} AND o.store_connection_id IS NULL AND o.paid_at IS NOT NULL
      AND o.total_cents - o.refunded_total_cents >= ${cents}
      AND (${external} IS NULL OR NOT EXISTS (SELECT 1 FROM order_refunds x WHERE x.order_id = o.id AND x.workspace_id = o.workspace_id AND x.external_refund_id = ${external}))`,
);

/** The order's refunded total, status and `refunded_at` (the later one), under the guard that its refund row was written. */
const refundedUpdate = guardable((condition) =>
  preparedSql(
    'run',
    () => sql`UPDATE ${orders} SET refunded_total_cents = refunded_total_cents + ${cents},
        financial_status = CASE WHEN refunded_total_cents + ${cents} >= total_cents THEN 'refunded' ELSE 'partially_refunded' END,
        refunded_at = CASE WHEN refunded_at > ${refundedAt} THEN refunded_at ELSE ${refundedAt} END,
        revision = revision + 1, updated_at = ${now}
      WHERE workspace_id = ${ws} AND id = ${orderId} AND ${condition}`,
  ),
);

/** The order's payment (`payment_reference`) and the note of the refund mirrored into it. */
const orderPaymentReference = sql`(SELECT payment_reference FROM orders WHERE workspace_id = ${ws} AND id = ${orderId})`;
const mirrorNote = sql`coalesce(${sql.placeholder('reason')}, (SELECT 'Refund of order ' || order_number FROM orders WHERE workspace_id = ${ws} AND id = ${orderId}))`;

const refundTimeline: TimelineSource = {
  contact: sql`r.contact_id`,
  data: sql`json_object('order_id', r.order_id, 'refund_id', r.id, 'amount', ${fromCentsSql(sql`r.amount_cents`)}, 'currency', r.currency)`,
  from: sql`FROM order_refunds r WHERE r.id = ${refundId} AND r.workspace_id = ${ws}`,
};

const balanceText = (cents: number) => (cents / 100).toFixed(2);

/**
 * `POST /v1/orders/{id}/refunds`: one batch, one round trip. Its writes decide themselves as it
 * runs (see `refundInsert`): the refund row; then, only if it was written, the order's refunded
 * total and status, the refund mirrored into the order's recorded one-time payment (at most what
 * its charge can still give back: a linked payment may hold less than the order total; nothing
 * when the charge is no longer refundable), both timeline rows and `order.refunded`, its data
 * computed from the rows as written. The batch ends with the full order: the answer when the
 * refund is among its refunds, otherwise what it holds says why not, in the documented order (an
 * `external_refund_id` already recorded answers that order, `duplicate: true`).
 */
export async function refundOrder(ctx: ServiceContext, id: string, input: OrderRefundInputT): Promise<{ duplicate: boolean; order: FullOrder }> {
  if (!(input.amount > 0 && toCents(Math.min(input.amount, MAX_AMOUNT + 1)) > 0)) throw OrderErrors.refundNotPositive();
  const amount = toCents(Math.min(input.amount, MAX_AMOUNT + 1));
  let at: string | undefined;
  if (input.refunded_at !== undefined) {
    at = parseIsoInZone(input.refunded_at, ctx.ws.timezone) ?? undefined;
    if (!at) throw OrderErrors.invalidRefundedAt();
  }
  const reason = input.reason?.trim() || null;
  const stamp = nowIso();
  const refund = uuidv7();
  const values = {
    ws: ctx.ws.id,
    order: id,
    refund,
    cents: amount,
    external: input.external_refund_id ?? null,
    reason,
    refundedAt: at ?? stamp,
    now: stamp,
  };
  const written = afterInsertOf(orderRefunds, refund);
  const { event, statement } = ctx.events.emitFrom(ctx.db, ctx.ws.id, 'order.refunded', refundedEventDataSql, { refund }, written);
  return runOperation<{ order: ReturnType<typeof fullOrderRead> }, { duplicate: boolean; order: FullOrder }>(ctx, {
    along: {
      statements: [
        refundInsert.in(ctx.db, values),
        refundedUpdate.in(ctx.db, values, written),
        ...mirroredRefund(ctx, orderPaymentReference, mirrorNote, amount, { order: id, reason }, written),
        activityFrom(ctx, refundTimeline, 'order_refunded', 'api', { refund }, stamp),
        statement,
      ],
      events: [event],
      done: (read) => {
        const order = writableOrder(read.order);
        return order.refunds.some((r) => r.id === refund) ? { duplicate: false, order: serializeFullOrder(order) } : null;
      },
    },
    reads: { order: fullOrderRead(ctx.db, ctx.ws.id, id) },
    decide: (read) => {
      const full = writableOrder(read.order);
      const { order } = full;
      // A repeat of a recorded external_refund_id applies nothing and answers the order, whatever amount it names, but its
      // body is still checked as a body: an amount no order could hold is refused as it would be on a first request.
      const possible = amount <= MAX_AMOUNT * 100;
      if (possible && input.external_refund_id !== undefined && full.refunds.some((r) => r.externalRefundId === input.external_refund_id)) {
        return unchanged({ duplicate: true, order: serializeFullOrder(full) });
      }
      if (!order.paidAt) throw OrderErrors.neverPaid();
      const remaining = order.totalCents - order.refundedTotalCents;
      throw OrderErrors.refundExceedsTotal({ remaining: balanceText(remaining) });
    },
  });
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
export function markOrderPaid(ctx: ServiceContext, id: string, input: OrderMarkPaidInput): Promise<FullOrder> {
  const reference = input.payment_reference;
  return runOperation(ctx, {
    reads: {
      payment: reference !== undefined && selectPaymentByReference(ctx.db, ctx.ws.id, reference),
      entries: reference !== undefined && selectEntriesByReference(ctx.db, ctx.ws.id, reference),
      linkedElsewhere:
        reference !== undefined &&
        ctx.db
          .select({ id: orders.id })
          .from(orders)
          .where(and(eq(orders.workspaceId, ctx.ws.id), eq(orders.paymentReference, reference), ne(orders.id, id)))
          .limit(1),
      order: fullOrderRead(ctx.db, ctx.ws.id, id),
    },
    decide: (read, batch) => {
      const full = writableOrder(read.order);
      const { order } = full;
      if (ILLEGAL_FROM.includes(order.financialStatus)) {
        throw OrderErrors.illegalTransition({ status: order.financialStatus });
      }
      if (reference !== undefined && order.paymentReference !== null && order.paymentReference !== reference)
        throw OrderErrors.paymentAlreadyLinked();
      if (order.financialStatus === 'paid') return unchanged(serializeFullOrder(full));

      const now = nowIso();
      let paymentReference = order.paymentReference;
      const recording: Statement[] = [];
      if (reference !== undefined) {
        const [payment] = read.payment;
        if (!payment) throw OrderErrors.paymentReferenceNotFound();
        if (payment.contactId !== order.contactId) throw OrderErrors.paymentContactMismatch();
        const completedCharge = read.entries.some((e) => e.kind === 'charge' && e.status === 'completed');
        if (payment.type !== 'one_time' || !completedCharge) throw OrderErrors.paymentNotLinkable();
        if (read.linkedElsewhere.length) throw OrderErrors.paymentAlreadyLinked();
        paymentReference = reference;
      } else if (paymentReference === null) {
        const recorded = orderPaymentStatements(ctx, order);
        recording.push(...recorded.statements);
        paymentReference = recorded.header.externalReference;
      }
      const after = orderAfterGuardedWrite(
        order,
        { financialStatus: 'paid', paidAt: order.paidAt ?? now, paymentReference, paymentSyncedAt: now },
        now,
      );
      batch
        .write(
          updateOrder(ctx, order.id, {
            financialStatus: 'paid',
            paidAt: after.paidAt,
            paymentReference,
            paymentSyncedAt: now,
            ...revisionGuard(order, now),
          }),
          ...recording,
          activity(ctx, order.contactId, 'order_paid', 'api', { order_id: order.id, payment_reference: paymentReference }, now),
        )
        .emit('order.paid', orderEventData(after))
        .signal(order.contactId, 'order.paid');
      return batch.answerWith(orderAsWritten(full, after));
    },
    lostRaceOn: orderRacesLostOn,
  });
}

// ---------------------------------------------------------------- cancel

/** `POST /v1/orders/{id}/cancel`: stamps `cancelled_at` once (financial status unchanged); an already-cancelled order is a no-op without an event. */
export function cancelOrder(ctx: ServiceContext, id: string): Promise<FullOrder> {
  return runOperation(ctx, {
    reads: { order: fullOrderRead(ctx.db, ctx.ws.id, id) },
    decide: (read, batch) => {
      const full = writableOrder(read.order);
      const { order } = full;
      if (order.cancelledAt) return unchanged(serializeFullOrder(full));
      const now = nowIso();
      const after = orderAfterGuardedWrite(order, { cancelledAt: now }, now);
      batch
        .write(
          updateOrder(ctx, order.id, { cancelledAt: now, ...revisionGuard(order, now, sql`${orders.cancelledAt} IS NULL`) }),
          activity(ctx, order.contactId, 'order_cancelled', 'api', { order_id: order.id }, now),
        )
        .emit('order.cancelled', orderEventData(after));
      return batch.answerWith(orderAsWritten(full, after));
    },
    lostRaceOn: orderRacesLostOn,
  });
}
