import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guardOf } from '../../platform/d1/constraints';
import { nowIso, type Statement } from '../../platform/d1/db';
import { runOperation, type WriteBatch } from '../../platform/d1/operation';
import { preparedInsert, preparedSql } from '../../platform/d1/prepared';
import { afterInsertOf, guardable, type RowGuard } from '../../platform/d1/row-guard';
import { eventDataPatch } from '../../platform/outbox';
import { uuidv7 } from '../../platform/ids';
import { fromCents } from '../../platform/money';
import { activity, planContactReference, referencedContactExists, type ContactReferencePlan } from '../contacts';
import { dealOfContact, selectDeal, type DealRow } from '../deals';
import { productsLookup } from '../products';
import type { OrderCreateInput } from './dto';
import { orderEventData } from './event-payload';
import { lineRows, linesInsert, type Line } from './lines';
import { itemCount } from './money';
import { buildLines, money, namesProducts, validateOrderBody, type OrderPlan } from './order-body';
import { orderPaymentStatements } from './order-payment';
import { orderRacesLostOn, revisionGuard } from './order-revision';
import { fullOrder, fullOrderOf, fullOrderRead, selectOrderByReference, type FullOrder } from './read';
import { orderCounters, orderItems, orders, type OrderRow } from './schema';
import { OrderErrors } from './errors';
import { SharedErrors } from '../../platform/shared-errors';

/** The number comes from the workspace's counter, bumped by the statement before it in the same batch. */
const orderInsert = preparedInsert(orders, {
  orderNumber: sql`(SELECT last_number FROM order_counters WHERE workspace_id = ${sql.placeholder('workspaceId')})`,
});
/** Takes the workspace's next order number (the counter row starts at 1). */
const counterBump = guardable((condition) =>
  preparedSql(
    'run',
    () => sql`INSERT INTO ${orderCounters} (${sql.identifier(orderCounters.workspaceId.name)}, ${sql.identifier(orderCounters.lastNumber.name)})
      SELECT ${sql.placeholder('ws')}, 1 WHERE ${condition}
      ON CONFLICT (${sql.identifier(orderCounters.workspaceId.name)}) DO UPDATE SET ${sql.identifier(orderCounters.lastNumber.name)} = ${sql.identifier(orderCounters.lastNumber.name)} + 1`,
  ),
);
/** The number the batch gave the order, into the data of its events. */
const numberIntoEvents = eventDataPatch('$.number', sql`(SELECT CAST(order_number AS TEXT) FROM orders WHERE id = ${sql.placeholder('order')})`);

/** The line rows of an order in one statement, after deleting the old ones. */
function replaceItems(
  ctx: ServiceContext,
  orderId: string,
  contactId: string,
  lines: Line[],
  now: string,
  fresh: boolean,
  guard?: RowGuard,
): Statement[] {
  const statements: Statement[] = [];
  if (!fresh) statements.push(ctx.db.delete(orderItems).where(and(eq(orderItems.workspaceId, ctx.ws.id), eq(orderItems.orderId, orderId))));
  if (lines.length) statements.push(linesInsert.in(ctx.db, { ws: ctx.ws.id, order: orderId, contact: contactId, now, rows: lineRows(lines) }, guard));
  return statements;
}

function checkDealContact(deal: DealRow, contactId: string) {
  if (deal.contactId !== contactId) throw OrderErrors.dealContactMismatch();
}

/**
 * `POST /v1/orders`: one read batch (the `external_reference` match, every
 * product the lines name, the deal, the contact reference's reads) and one
 * write batch. A create takes its `order_number` from the workspace's counter
 * row, advanced in the same batch (so numbers are gap-free and distinct: a
 * batch that fails leaves the counter as it was). A parallel create of the
 * same reference fails the unique index and is retried as the replay.
 * A new order whose lines name no product is also sent along with the reads
 * (see `insertAlongReads`): one round trip.
 */
export function createOrder(ctx: ServiceContext, input: OrderCreateInput): Promise<FullOrder> {
  const plan = validateOrderBody(ctx, input);
  const contactRef = { contact_id: input.contact_id?.toLowerCase(), phone: input.phone, email: input.email, name: input.name };
  const dealId = input.deal_id?.toLowerCase();
  const cap = ctx.ws.caps.orders;
  return runOperation(ctx, () => {
    const contactPlan = planContactReference(ctx, contactRef, { missing: OrderErrors.noContact, source: 'api' });
    const along = insertAlongReads(ctx, input, plan, contactPlan);
    return {
      along: along && { ...along, done: (read) => read.created && fullOrderOf(read.created) },
      // Each read only when the body asks for it: a statement less is a statement less to send and run.
      reads: {
        created: along && fullOrderRead(ctx.db, ctx.ws.id, along.id),
        existing: input.external_reference !== undefined && selectOrderByReference(ctx.db, ctx.ws.id, input.external_reference),
        products: namesProducts(plan) && productsLookup(ctx, plan.productRefs),
        deal: dealId !== undefined && selectDeal(ctx.db, ctx.ws.id, dealId),
        contact: contactPlan,
      },
      decide: async (read, batch) => {
        const [existing] = read.existing;
        if (existing?.storeConnectionId) throw OrderErrors.storeSyncedReadOnly();
        const applyMoney = !existing || existing.financialStatus === 'pending';
        const lines = input.items !== undefined && applyMoney ? buildLines(input.items, plan.productRefs, read.products) : null;
        if (dealId && !read.deal[0]) throw OrderErrors.dealNotFound();
        const contact = await read.contact();
        if (dealId) checkDealContact(read.deal[0], existing?.contactId ?? contact.contact.id);
        batch.join(contact);
        const id = existing
          ? replay(ctx, batch, { existing, input, plan, lines })
          : newOrder(ctx, batch, input, plan, lines ?? [], contact.contact.id);
        return batch.answer(fullOrderRead(ctx.db, ctx.ws.id, id), fullOrder);
      },
      lostRaceOn: orderRacesLostOn,
      refusedOn: [[guardOf(orders.workspaceId), () => SharedErrors.planLimitExceeded.orders({ cap })]],
    };
  });
}

/**
 * A new order's statements, put in the batch of the create's reads: the counter and the order
 * are written only if, as the batch runs, the contact exists, no order holds the
 * `external_reference` and the `deal_id` (if any) is a deal of that contact; the rest only if
 * the order was. A phone/email reference sends the contact's create along first (see `along`),
 * itself guarded on the reference being free, so a contact is created only with the order.
 * Otherwise the batch wrote nothing and its reads decide as always (a held reference: the
 * replay). None when the lines name products (their rows decide the lines), under an order cap (the count decides), for a deal and
 * a phone/email (only the reads know that contact), or when the body cannot make an order (its
 * error comes from the reads' path, in the documented order). The last reads re-read the order: a
 * header means it was created.
 */
function insertAlongReads(ctx: ServiceContext, input: OrderCreateInput, plan: OrderPlan, contactPlan: ContactReferencePlan) {
  if (ctx.ws.caps.orders !== undefined || namesProducts(plan)) return null;
  if (input.deal_id !== undefined && input.contact_id === undefined) return null;
  let lines: Line[];
  try {
    lines = buildLines(input.items ?? [], plan.productRefs, []);
  } catch {
    return null;
  }
  const values = { newWs: ctx.ws.id, newReference: input.external_reference ?? null };
  const contact = contactPlan.along({ condition: referenceFree, values });
  if (!contact) return null;
  const guard: RowGuard = {
    condition: newOrderCondition,
    values: { ...values, newContact: contact.id, newDeal: input.deal_id?.toLowerCase() ?? null },
  };
  const built = newOrderStatements(ctx, input, plan, lines, contact.id, guard);
  return { id: built.id, statements: [...contact.statements, ...built.statements], events: [...contact.events, ...built.events] };
}

const [newWs, newContact, newReference, newDeal] = ['newWs', 'newContact', 'newReference', 'newDeal'].map((name) => sql.placeholder(name));
const referenceFree = sql`NOT EXISTS (SELECT 1 FROM ${orders} WHERE ${orders.workspaceId} = ${newWs} AND ${orders.externalReference} = ${newReference})`;
const newOrderCondition = sql`${referencedContactExists(newWs, newContact)} AND ${referenceFree}
  AND (${newDeal} IS NULL OR ${dealOfContact(newWs, newDeal, newContact)})`;

/** A new order's writes into `batch`; answers its id. */
function newOrder(ctx: ServiceContext, batch: WriteBatch, input: OrderCreateInput, plan: OrderPlan, lines: Line[], contactId: string): string {
  const built = newOrderStatements(ctx, input, plan, lines, contactId);
  batch.add(built);
  return built.id;
}

/**
 * A new order's write statements: the counter, the order (under a cap, only while the count
 * is below it), its lines, the payment a paid order records, the timeline row and the events.
 * With `guard`, the counter and the order are written only when it holds, the rest only
 * when the order was.
 */
function newOrderStatements(ctx: ServiceContext, input: OrderCreateInput, plan: OrderPlan, lines: Line[], contactId: string, guard?: RowGuard) {
  const now = nowIso();
  const id = uuidv7();
  const paid = input.financial_status === 'paid';
  const zero = { subtotalCents: 0, totalCents: 0, discountTotalCents: 0, shippingTotalCents: 0, taxTotalCents: 0 };
  const order: OrderRow = {
    id,
    workspaceId: ctx.ws.id,
    contactId,
    orderNumber: 0, // assigned by the batch
    number: null,
    platform: 'api',
    source: 'api',
    storeConnectionId: null,
    storeDomain: null,
    externalOrderId: null,
    externalUpdatedAt: null,
    externalReference: input.external_reference ?? null,
    dealId: input.deal_id?.toLowerCase() ?? null,
    financialStatus: paid ? 'paid' : 'pending',
    fulfillmentStatus: 'unfulfilled',
    currency: plan.currency ?? ctx.ws.currency,
    ...money(
      lines.map((l) => l.lineTotalCents),
      zero,
      plan,
    ),
    refundedTotalCents: 0,
    itemCount: itemCount(lines.map((l) => l.quantity)),
    firstItemName: lines[0]?.title ?? null,
    couponCodes: input.coupon_codes ?? [],
    placedAt: plan.placedAt ?? now,
    paidAt: paid ? now : null,
    cancelledAt: null,
    refundedAt: null,
    paymentReference: paid ? `order:${id}` : null,
    paymentSyncedAt: paid ? now : null,
    note: input.note?.trim() || null,
    metadata: null,
    createdBy: null,
    revision: 0,
    createdAt: now,
    updatedAt: now,
  };
  const cap = ctx.ws.caps.orders;
  const written = guard && afterInsertOf(orders, id);
  const events = [ctx.events.emit(ctx.db, ctx.ws.id, 'order.created', orderEventData(order), written)];
  if (paid) events.push(ctx.events.emit(ctx.db, ctx.ws.id, 'order.paid', orderEventData(order), written));
  const statements: Statement[] = [
    counterBump.in(ctx.db, { ws: ctx.ws.id }, guard),
    cap === undefined
      ? orderInsert.in(ctx.db, order, guard)
      : ctx.db.insert(orders).values({
          ...order,
          orderNumber: sql`(SELECT last_number FROM order_counters WHERE workspace_id = ${ctx.ws.id})`,
          // Under a cap the insert itself checks the count, so parallel creates cannot overshoot it.
          workspaceId: sql`CASE WHEN (SELECT count(*) FROM orders WHERE workspace_id = ${ctx.ws.id}) < ${cap} THEN ${ctx.ws.id} ELSE NULL END`,
        }),
    ...replaceItems(ctx, id, contactId, lines, now, true, written),
    ...(paid ? orderPaymentStatements(ctx, order, written).statements : []),
    activity(
      ctx,
      contactId,
      'order_created',
      'api',
      { order_id: id, total: fromCents(order.totalCents), currency: order.currency, financial_status: order.financialStatus },
      now,
      written,
    ),
    ...events.map((e) => e.statement),
    ...(paid ? ctx.events.signal(ctx.db, ctx.ws.id, contactId, 'order.paid', written || undefined) : []),
    numberIntoEvents(
      ctx.db,
      events.map((e) => e.event.id),
      { order: id },
    ),
  ];
  return { id, statements, events: events.map((e) => e.event) };
}

/**
 * An `external_reference` match: `note`, `coupon_codes`, `placed_at` and
 * `deal_id` always; the money fields (`items`, `currency`, the three totals)
 * only while the order is `pending`; `financial_status` and the contact never.
 * Guarded on the revision read, so a refund or mark-paid in between re-reads.
 */
function replay(
  ctx: ServiceContext,
  batch: WriteBatch,
  change: { existing: OrderRow; input: OrderCreateInput; plan: OrderPlan; lines: Line[] | null },
): string {
  const { existing, input, plan, lines } = change;
  const now = nowIso();
  const set: Partial<OrderRow> = {};
  if (input.note !== undefined) set.note = input.note.trim() || null;
  if (input.coupon_codes !== undefined) set.couponCodes = input.coupon_codes;
  if (plan.placedAt !== undefined) set.placedAt = plan.placedAt;
  if (input.deal_id !== undefined) set.dealId = input.deal_id.toLowerCase();
  const items: Statement[] = [];
  if (existing.financialStatus === 'pending') {
    if (plan.currency !== undefined) set.currency = plan.currency;
    Object.assign(set, money(lines ? lines.map((l) => l.lineTotalCents) : null, existing, plan));
    if (lines) {
      set.itemCount = itemCount(lines.map((l) => l.quantity));
      set.firstItemName = lines[0]?.title ?? null;
      items.push(...replaceItems(ctx, existing.id, existing.contactId, lines, now, false));
    }
  }
  batch.write(
    ctx.db
      .update(orders)
      .set({ ...set, ...revisionGuard(existing, now) })
      .where(and(eq(orders.workspaceId, ctx.ws.id), eq(orders.id, existing.id))),
    ...items,
  );
  return existing.id;
}
