import type { ServiceContext } from '../../platform/context';
import { parseIsoInZone } from '../../platform/calendar';
import { toCents } from '../../platform/money';
import { lineProduct, pickProduct, type ProductReference, type ProductRow } from '../products';
import { MAX_AMOUNT, MAX_QUANTITY, type OrderCreateInput, type OrderItemInputT } from './dto';
import type { Line } from './lines';
import { lineTotalCents, orderTotals } from './money';
import type { OrderRow } from './schema';
import { OrderErrors } from './errors';

/* The rules of an order's body that need no read: its fields, its lines and its totals. */

const MAX_CENTS = MAX_AMOUNT * 100;

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
export const namesProducts = (plan: OrderPlan) => plan.productRefs.some((ref) => Object.keys(ref).length > 0);

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

export function money(subtotalFrom: number[] | null, stored: Money, plan: OrderPlan): Money {
  const discount = plan.discountCents ?? stored.discountTotalCents;
  const shipping = plan.shippingCents ?? stored.shippingTotalCents;
  const tax = plan.taxCents ?? stored.taxTotalCents;
  const { subtotalCents, totalCents } = subtotalFrom
    ? orderTotals(subtotalFrom, discount, shipping, tax)
    : { subtotalCents: stored.subtotalCents, totalCents: Math.max(0, stored.subtotalCents - discount + shipping + tax) };
  if (subtotalCents > MAX_CENTS || totalCents > MAX_CENTS) throw OrderErrors.totalTooLarge();
  return { subtotalCents, totalCents, discountTotalCents: discount, shippingTotalCents: shipping, taxTotalCents: tax };
}
