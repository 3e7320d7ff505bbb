import { sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/db';
import { preparedSql } from '../../platform/prepared';
import { referencedContactExists } from '../contacts/resolve';
import { dealOfContact } from '../deals/read';
import { MAX_AMOUNT } from './dto';
import { lineRows, linesInsert, type Line, type LineTarget } from './lines';
import { fullOrderReadByReference } from './read';
import { orderItems, orders } from './schema';

const MAX_CENTS = MAX_AMOUNT * 100;

const p = (name: string) => sql.placeholder(name);
const [ws, reference, contact, deal, now] = ['ws', 'reference', 'contact', 'deal', 'now'].map(p);
const [subtotal, discount, shipping, tax] = ['subtotal', 'discount', 'shipping', 'tax'].map(p);

const pending = sql`o.financial_status = 'pending'`;
/** The totals a pending order takes: the lines' subtotal and the totals given, the stored ones otherwise. */
const newSubtotal = sql`coalesce(${subtotal}, o.subtotal_cents)`;
const newTotal = sql`max(0, ${newSubtotal} - coalesce(${discount}, o.discount_total_cents) + coalesce(${shipping}, o.shipping_total_cents) + coalesce(${tax}, o.tax_total_cents))`;

/**
 * Whether the replay applies to the order `o` as the batch runs, every rule the reads would check:
 * the workspace's order holding the reference, an API order, the `contact_id` a contact, the
 * `deal_id` (if any) a deal of the order's contact, and (pending only) totals within the maximum.
 */
const replayable = sql`o.workspace_id = ${ws} AND o.external_reference = ${reference} AND o.store_connection_id IS NULL
  AND ${referencedContactExists(ws, contact)} AND (${deal} IS NULL OR ${dealOfContact(ws, deal, sql`o.contact_id`)})
  AND (NOT ${pending} OR (${newSubtotal} <= ${MAX_CENTS} AND ${newTotal} <= ${MAX_CENTS}))`;

const linesDelete = preparedSql(
  'run',
  () => sql`DELETE FROM ${orderItems} WHERE workspace_id = ${ws} AND order_id = (SELECT o.id FROM orders o WHERE ${replayable} AND ${pending})`,
);
const replayedOrderLines: LineTarget = { order: sql`o.id`, contact: sql`o.contact_id`, from: sql`JOIN orders o ON ${replayable} AND ${pending}` };

/** `value` while the order is pending, the stored column otherwise. */
const whilePending = (column: string, value: SQL) => sql`CASE WHEN ${pending} THEN ${value} ELSE ${sql.raw(`o.${column}`)} END`;
/** A column summing up the lines: placeholder `value` when the body sent items (placeholder `lines`) and the order is pending. */
const withLines = (column: string, value: string) => whilePending(column, sql`CASE WHEN ${p('lines')} THEN ${p(value)} ELSE ${sql.raw(`o.${column}`)} END`);

const replayUpdate = preparedSql(
  'run',
  () => sql`UPDATE ${orders} AS o SET
      note = CASE WHEN ${p('setNote')} THEN ${p('note')} ELSE o.note END,
      coupon_codes = coalesce(${p('couponCodes')}, o.coupon_codes),
      placed_at = coalesce(${p('placedAt')}, o.placed_at),
      deal_id = coalesce(${deal}, o.deal_id),
      currency = ${whilePending('currency', sql`coalesce(${p('currency')}, o.currency)`)},
      subtotal_cents = ${whilePending('subtotal_cents', newSubtotal)},
      discount_total_cents = ${whilePending('discount_total_cents', sql`coalesce(${discount}, o.discount_total_cents)`)},
      shipping_total_cents = ${whilePending('shipping_total_cents', sql`coalesce(${shipping}, o.shipping_total_cents)`)},
      tax_total_cents = ${whilePending('tax_total_cents', sql`coalesce(${tax}, o.tax_total_cents)`)},
      total_cents = ${whilePending('total_cents', newTotal)},
      item_count = ${withLines('item_count', 'itemCount')},
      first_item_name = ${withLines('first_item_name', 'firstItemName')},
      revision = o.revision + 1, updated_at = ${now}
    WHERE ${replayable}`,
);

/** What a replay sets: each field undefined to keep the stored one; `lines` null when the body sent no items. */
export type ReplayChange = {
  reference: string;
  contactId: string;
  dealId?: string;
  note?: string | null;
  couponCodes?: string[];
  placedAt?: string;
  currency?: string;
  discountCents?: number;
  shippingCents?: number;
  taxCents?: number;
  lines: { lines: Line[]; subtotalCents: number; itemCount: number } | null;
};

/**
 * An `external_reference` replay sent along with the create's reads (one round trip): the
 * lines replaced and the order updated, each deciding in SQL as the batch runs (see
 * `replayable`), the money fields only while the order is pending, then the order read by
 * its reference. When the rules do not hold, nothing is written and the reads decide.
 */
export function replayAlongStatements(ctx: ServiceContext, change: ReplayChange): Statement[] {
  const values = {
    ws: ctx.ws.id,
    reference: change.reference,
    contact: change.contactId,
    deal: change.dealId ?? null,
    now: nowIso(),
    subtotal: change.lines?.subtotalCents ?? null,
    discount: change.discountCents ?? null,
    shipping: change.shippingCents ?? null,
    tax: change.taxCents ?? null,
  };
  const { lines } = change;
  return [
    ...(lines
      ? [linesDelete.in(ctx.db, values), ...(lines.lines.length ? [linesInsert(replayedOrderLines).in(ctx.db, { ...values, rows: lineRows(lines.lines) })] : [])]
      : []),
    replayUpdate.in(ctx.db, {
      ...values,
      setNote: change.note !== undefined ? 1 : 0,
      note: change.note ?? null,
      couponCodes: change.couponCodes ? JSON.stringify(change.couponCodes) : null,
      placedAt: change.placedAt ?? null,
      currency: change.currency ?? null,
      lines: lines ? 1 : 0,
      itemCount: lines?.itemCount ?? null,
      firstItemName: lines?.lines[0]?.title ?? null,
    }),
    fullOrderReadByReference(ctx.db, ctx.ws.id, change.reference),
  ];
}
