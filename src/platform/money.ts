import { sql, type SQLWrapper } from 'drizzle-orm';

/**
 * Money is stored as integer cents. Conversion rounds half away from zero at the
 * second decimal, working on the decimal text so 1.005 becomes 1.01 (binary
 * floating point would see 1.00499...).
 */
export function toCents(amount: number): number {
  if (!Number.isFinite(amount)) throw new RangeError('amount must be finite');
  const negative = amount < 0;
  const [intPart, frac = ''] = Math.abs(amount).toFixed(10).split('.');
  const cents = Number(intPart) * 100 + Number(frac.slice(0, 2).padEnd(2, '0'));
  const roundUp = Number(frac[2] ?? '0') >= 5;
  const result = cents + (roundUp ? 1 : 0);
  return negative ? -result : result;
}

export const fromCents = (cents: number): number => cents / 100;

/**
 * `fromCents` in SQL, for JSON a statement builds: an integer when whole (as JSON.stringify
 * writes it), else the REAL of the same division, which SQLite writes with the digits of that
 * double, so the JSON reads back as the number `fromCents` gives.
 */
export const fromCentsSql = (cents: SQLWrapper) => sql`(CASE WHEN ${cents} % 100 = 0 THEN ${cents} / 100 ELSE ${cents} / 100.0 END)`;

/** Half-up rounding to 2 decimals for values that stay numbers (e.g. rates). */
export const round2 = (value: number): number => fromCents(toCents(value));

/** True when the number has at most two decimals (e.g. a VAT rate of 17.5 or 7.25). */
export const hasAtMostTwoDecimals = (value: number): boolean => Math.abs(round2(value) - value) < 1e-9;
