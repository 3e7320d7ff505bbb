import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso, type Statement } from '../../platform/d1/db';
import { guardOf, uniqueOn } from '../../platform/d1/constraints';
import { runOperation, unchanged, type WriteBatch } from '../../platform/d1/operation';
import type { RowsOf } from '../../platform/d1/typed-read';
import { eventDataPatch } from '../../platform/events';
import { uuidv7 } from '../../platform/ids';
import { fromCents, toCents } from '../../platform/money';
import { planContactReference, referencedContactExists, type ContactReferencePlan, activity } from '../contacts';
import { dealOfContact, selectDeal, type DealRow } from '../deals';
import { parseIsoInZone } from '../../platform/calendar';
import { type PaymentCreateInput, recordPaymentStatements, validateCreate } from '../payments';
import { type ProductRow, pickProduct, productsLookup, type ProductReference, lineProduct } from '../products';
import { MAX_AMOUNT, MAX_QUANTITY, type OrderCreateInput, type OrderItemInputT } from './dto';
import { orderEventData } from './events';
import { itemCount, lineTotalCents, orderTotals } from './money';
import { fullOrderOf, fullOrderRead, selectOrderByReference, type FullOrder } from './read';
import { orderCounters, orderItems, orders, type OrderRow } from './schema';
import { lineRows, linesInsert, type Line } from './lines';
import { preparedInsert, preparedSql } from '../../platform/d1/prepared';
import { afterInsertOf, guardable, type RowGuard } from '../../platform/d1/row-guard';
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
const MAX_CENTS = MAX_AMOUNT * 100;

/** A write guarded on the revision that was read: a change made in between fails the batch on `orders.updated_at` and the caller re-reads. */
export const revisionGuard = (o: OrderRow, now: string, extra?: SQL) => ({
  revision: sql`${orders.revision} + 1`,
  updatedAt: guarded(extra ? sql`${orders.revision} = ${o.revision} AND ${extra}` : sql`${orders.revision} = ${o.revision}`, sql`${now}`),
});
/** The order's row once a write guarded by `revisionGuard` has committed `changes` at `now`. */
export const orderAfterGuardedWrite = (o: OrderRow, changes: Partial<OrderRow>, now: string): OrderRow => ({
  ...o,
  ...changes,
  revision: o.revision + 1,
  updatedAt: now,
});
/** A write lost a race: the order changed since it was read, or a parallel write took its `external_reference` or the payment it links. */
export const orderRacesLostOn = [
  guardOf(orders.updatedAt),
  uniqueOn(orders.workspaceId, orders.externalReference),
  uniqueOn(orders.workspaceId, orders.paymentReference),
];

/** The full order a full order's read found; 404 when it found none. */
export function fullOrder(rows: RowsOf<ReturnType<typeof fullOrderRead>>): FullOrder {
  const order = fullOrderOf(rows);
  if (!order) throw OrderErrors.notFound();
  return order;
}

// ---------------------------------------------------------------- validation without reads

function moneyCents(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!(value >= 0)) throw OrderErrors.negativeAmount({ field: name });
  if (value > MAX_AMOUNT) throw OrderErrors.amountTooLarge({ field: name });
  return toCents(value);
}

function checkItem(item: OrderItemInputT, i: number) {
  const at = `items[${i}]`;
  if (item.quantity !== undefined) {
    if (!(item.quantity > 0)) throw OrderErrors.quantityNotPositive({ item: at });
    if (item.quantity > MAX_QUANTITY) throw OrderErrors.quantityTooLarge({ item: at });
  }
  moneyCents(`${at}.unit_price`, item.unit_price);
  const d = item.discount_percent;
  if (d !== undefined && d !== null && !(d >= 0 && d <= 100)) throw OrderErrors.discountOutOfRange({ item: at });
}

export type OrderPlan = {
  discountCents?: number;
  shippingCents?: number;
  taxCents?: number;
  placedAt?: string;
  currency?: string;
  productRefs: ProductReference[];
};

const itemReference = (item: OrderItemInputT): ProductReference =>
  item.product_id !== undefined
    ? { product_id: item.product_id.toLowerCase() }
    : item.product_sku !== undefined
      ? { product_sku: item.product_sku }
      : item.product_external_id !== undefined
        ? { product_external_id: item.product_external_id }
        : {};

/** Whether the body's lines name a product (by id, sku or external id): their rows must be read. */
const namesProducts = (plan: OrderPlan) => plan.productRefs.some((ref) => Object.keys(ref).length > 0);

/** Every create rule that needs no read, with the documented messages. */
export function validateOrderBody(ctx: ServiceContext, input: OrderCreateInput): OrderPlan {
  (input.items ?? []).forEach(checkItem);
  let placedAt: string | undefined;
  if (input.placed_at !== undefined) {
    placedAt = parseIsoInZone(input.placed_at, ctx.ws.timezone) ?? undefined;
    if (!placedAt) throw OrderErrors.invalidPlacedAt();
  }
  return {
    discountCents: moneyCents('discount_total', input.discount_total),
    shippingCents: moneyCents('shipping_total', input.shipping_total),
    taxCents: moneyCents('tax_total', input.tax_total),
    placedAt,
    currency: input.currency?.trim().toUpperCase(),
    productRefs: (input.items ?? []).map(itemReference),
  };
}

// ---------------------------------------------------------------- lines and totals

/** The order's lines with products resolved: strict `product_id`, tolerant sku / external id. */
export function buildLines(items: OrderItemInputT[], refs: ProductReference[], productRows: ProductRow[]): Line[] {
  return items.map((item, i) => {
    const at = `items[${i}]`;
    const product = lineProduct(pickProduct(productRows, refs[i]), refs[i].product_id !== undefined, at);
    const title = product ? product.name : item.title;
    if (!title) throw OrderErrors.itemTitleRequired();
    let unitPriceCents = 0;
    if (item.unit_price !== undefined) unitPriceCents = toCents(item.unit_price);
    else if (product) {
      if (product.priceCents === null) throw OrderErrors.itemPriceRequired({ item: at });
      unitPriceCents = product.priceCents;
    }
    const quantity = item.quantity ?? 1;
    const discountPercent = item.discount_percent ?? null;
    const total = lineTotalCents(quantity, unitPriceCents, discountPercent);
    if (total > MAX_CENTS) throw OrderErrors.lineTotalTooLarge({ item: at });
    return {
      productId: product?.id ?? null,
      title,
      sku: item.sku ?? item.product_sku ?? product?.sku ?? null,
      quantity,
      unitPriceCents,
      discountPercent,
      lineTotalCents: total,
    };
  });
}

type Money = Pick<OrderRow, 'subtotalCents' | 'totalCents' | 'discountTotalCents' | 'shippingTotalCents' | 'taxTotalCents'>;

function money(subtotalFrom: number[] | null, stored: Money, plan: OrderPlan): Money {
  const discount = plan.discountCents ?? stored.discountTotalCents;
  const shipping = plan.shippingCents ?? stored.shippingTotalCents;
  const tax = plan.taxCents ?? stored.taxTotalCents;
  const { subtotalCents, totalCents } = subtotalFrom
    ? orderTotals(subtotalFrom, discount, shipping, tax)
    : { subtotalCents: stored.subtotalCents, totalCents: Math.max(0, stored.subtotalCents - discount + shipping + tax) };
  if (subtotalCents > MAX_CENTS || totalCents > MAX_CENTS) throw OrderErrors.totalTooLarge();
  return { subtotalCents, totalCents, discountTotalCents: discount, shippingTotalCents: shipping, taxTotalCents: tax };
}

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

// ---------------------------------------------------------------- create and replay

function checkDealContact(deal: DealRow, contactId: string) {
  if (deal.contactId !== contactId) throw OrderErrors.dealContactMismatch();
}

/** The payment a paid order records: one-time, completed, the full total, `external_reference` `order:<id>`. */
export function orderPaymentStatements(ctx: ServiceContext, o: Pick<OrderRow, 'id' | 'contactId' | 'currency' | 'totalCents'>, guard?: RowGuard) {
  const input: PaymentCreateInput = {
    type: 'one_time',
    amount: fromCents(o.totalCents),
    currency: o.currency,
    status: 'completed',
    external_reference: `order:${o.id}`,
    contact_id: o.contactId,
  };
  return recordPaymentStatements(ctx, { input, plan: validateCreate(ctx, input), product: null, contactId: o.contactId }, guard);
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

// ---------------------------------------------------------------- reads

export async function getOrder(ctx: ServiceContext, id: string): Promise<FullOrder> {
  return runOperation(ctx, { reads: { order: fullOrderRead(ctx.db, ctx.ws.id, id) }, decide: (read) => unchanged(fullOrder(read.order)) });
}
