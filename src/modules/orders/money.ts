/**
 * Order money math (docs/orders.md), exact: every input is
 * read as the decimal it is written as (JSON numbers reach us as doubles whose
 * shortest text is that decimal) and computed with BigInt, so half-up rounding
 * at the cent never suffers binary floating point (1.005 is 1.005, not
 * 1.00499...).
 *
 *   line_total = round2(quantity * unit_price * (1 - discount_percent / 100))
 *   subtotal   = sum of the rounded line totals
 *   total      = max(0, subtotal - discount_total + shipping_total + tax_total)
 *   item_count = round(sum of quantities)
 *
 * `unit_price` enters in cents (the stored, displayed value) so a line always
 * recomputes from what the order shows.
 */

/** A finite non-negative number as an exact decimal: `digits / 10^scale`. */
export type Decimal = { digits: bigint; scale: number };

export function toDecimal(value: number): Decimal {
  if (!Number.isFinite(value) || value < 0) throw new RangeError('expected a finite non-negative number');
  const text = String(value);
  const [mantissa, exponentText] = text.split('e');
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  const [intPart, fracPart = ''] = mantissa.split('.');
  let digits = BigInt(intPart + fracPart);
  let scale = fracPart.length - exponent;
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits, scale };
}

const pow10 = (n: number) => 10n ** BigInt(n);

/** `numerator / denominator` rounded half-up (both non-negative). */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  const quotient = numerator / denominator;
  return (numerator % denominator) * 2n >= denominator ? quotient + 1n : quotient;
}

/** The line total in cents: `quantity * unitPriceCents * (1 - discountPercent / 100)`, half-up at the cent. */
export function lineTotalCents(quantity: number, unitPriceCents: number, discountPercent: number | null): number {
  const q = toDecimal(quantity);
  const d = toDecimal(discountPercent ?? 0);
  // (1 - d/100) = (100 * 10^ds - dd) / (100 * 10^ds)
  const hundred = 100n * pow10(d.scale);
  const numerator = q.digits * BigInt(unitPriceCents) * (hundred - d.digits);
  const denominator = pow10(q.scale) * hundred;
  return Number(divideHalfUp(numerator, denominator));
}

/** The sum of quantities rounded half-up to an integer. */
export function itemCount(quantities: number[]): number {
  if (quantities.length === 0) return 0;
  const parts = quantities.map(toDecimal);
  const scale = Math.max(...parts.map((p) => p.scale));
  const sum = parts.reduce((acc, p) => acc + p.digits * pow10(scale - p.scale), 0n);
  return Number(divideHalfUp(sum, pow10(scale)));
}

export type Totals = { subtotalCents: number; totalCents: number };

export function orderTotals(lineTotals: number[], discountTotalCents: number, shippingTotalCents: number, taxTotalCents: number): Totals {
  const subtotalCents = lineTotals.reduce((a, b) => a + b, 0);
  return { subtotalCents, totalCents: Math.max(0, subtotalCents - discountTotalCents + shippingTotalCents + taxTotalCents) };
}
