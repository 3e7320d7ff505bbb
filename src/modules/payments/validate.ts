import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { badRequest } from '../../platform/errors';
import { jsonBoundsProblem } from '../../platform/json-bounds';
import { hasAtMostTwoDecimals, toCents } from '../../platform/money';
import { parseIsoInZone } from '../../platform/calendar';
import { MAX_AMOUNT, METADATA_MAX_BYTES, type PaymentCreateInput } from './dto';
import { PAYMENT_TYPES, type PaymentType, type VatMode } from './schema';

/* The create and PATCH rules that need no read, with the documented messages. */

export const METADATA_MESSAGE = `metadata exceeds ${METADATA_MAX_BYTES} bytes serialized`;
const METADATA_BOUNDS = { maxDepth: 16, maxKeys: 1000, maxBytes: METADATA_MAX_BYTES };

export type Vat = { mode: VatMode; rate: number };

export function checkAmount(amount: number) {
  if (!(amount >= 0)) throw badRequest('amount must be a non-negative number');
  if (amount > MAX_AMOUNT) throw badRequest(`amount must be at most ${MAX_AMOUNT}`);
}

export function checkMetadata(value: Record<string, unknown> | null | undefined) {
  if (value === null || value === undefined) return;
  const problem = jsonBoundsProblem(value, METADATA_BOUNDS);
  if (problem) throw badRequest(problem.includes('bytes') ? METADATA_MESSAGE : `metadata ${problem}`);
}

export function checkMaxOccurrences(value: number | null | undefined) {
  if (value === null || value === undefined) return;
  if (!Number.isInteger(value) || value < 1) throw badRequest('recurringMaxOccurrences must be a whole number of at least 1');
}

export function parseEndAt(value: string | null | undefined, purchaseDate: string, zone: string): string | null | undefined {
  if (value === null || value === undefined) return value;
  const endAt = parseIsoInZone(value, zone, true);
  if (!endAt) throw badRequest('recurringEndAt is not a valid date');
  if (endAt <= purchaseDate) throw badRequest('recurringEndAt must be after the purchase date');
  return endAt;
}

/** The VAT pair of a body: both legs or neither, recurring plans only. */
export function vatPair(type: PaymentType, mode: VatMode | null | undefined, rate: number | null | undefined): Vat | undefined {
  if (mode === undefined && rate === undefined) return undefined;
  if (type !== 'recurring') throw badRequest('vatMode/vatRate apply to recurring plans only');
  if (mode === undefined || rate === undefined || mode === null || rate === null) throw badRequest('vat_mode and vat_rate must be provided together');
  if (!(rate >= 0 && rate <= 100) || !hasAtMostTwoDecimals(rate)) throw badRequest('vat_rate must be a percent from 0 to 100 with at most 2 decimals');
  return { mode, rate };
}

export type CreatePlan = {
  type: PaymentType;
  amountCents: number;
  purchaseDate: string;
  endAt: string | null;
  maxOccurrences: number | null;
  installmentCount: number | null;
  vat: Vat | undefined;
};

/** Every create rule that needs no read, with the documented messages, in the documented order. */
export function validateCreate(ctx: ServiceContext, input: PaymentCreateInput): CreatePlan {
  if (!(PAYMENT_TYPES as readonly string[]).includes(input.type)) throw badRequest('Invalid payment type');
  const type = input.type as PaymentType;
  checkAmount(input.amount);
  let installmentCount: number | null = null;
  if (type === 'installments') {
    const n = input.installment_count;
    if (n === undefined || !(n >= 2) || !Number.isInteger(n)) throw badRequest('installmentCount must be at least 2 for an installment deal');
    if (n > 360) throw badRequest('installmentCount must be at most 360');
    installmentCount = n;
  }
  let purchaseDate = nowIso();
  if (input.purchase_date !== undefined) {
    const parsed = parseIsoInZone(input.purchase_date, ctx.ws.timezone);
    if (!parsed) throw badRequest('purchaseDate is not a valid date');
    purchaseDate = parsed;
  }
  let endAt: string | null = null;
  let maxOccurrences: number | null = null;
  if (type === 'recurring') {
    endAt = parseEndAt(input.recurring_end_at, purchaseDate, ctx.ws.timezone) ?? null;
    checkMaxOccurrences(input.recurring_max_occurrences);
    maxOccurrences = input.recurring_max_occurrences ?? null;
  }
  const vat = vatPair(type, input.vat_mode, input.vat_rate);
  checkMetadata(input.metadata);
  return { type, amountCents: toCents(input.amount), purchaseDate, endAt, maxOccurrences, installmentCount, vat };
}
