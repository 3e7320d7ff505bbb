import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { jsonBoundsProblem } from '../../platform/json-bounds';
import { hasAtMostTwoDecimals, toCents } from '../../platform/money';
import { parseIsoInZone } from '../../platform/calendar';
import { MAX_AMOUNT, METADATA_MAX_BYTES, type PaymentCreateInput } from './dto';
import { PaymentErrors } from './errors';
import { PAYMENT_TYPES, type PaymentType, type VatMode } from './schema';

/* The create and PATCH rules that need no read, with the documented messages. */

const METADATA_BOUNDS = { maxDepth: 16, maxKeys: 1000, maxBytes: METADATA_MAX_BYTES };

export type Vat = { mode: VatMode; rate: number };

export function checkAmount(amount: number) {
  if (!(amount >= 0)) throw PaymentErrors.negativeAmount();
  if (amount > MAX_AMOUNT) throw PaymentErrors.amountTooLarge();
}

export function checkMetadata(value: Record<string, unknown> | null | undefined) {
  if (value === null || value === undefined) return;
  const problem = jsonBoundsProblem(value, METADATA_BOUNDS);
  if (problem) throw problem.includes('bytes') ? PaymentErrors.metadataTooLarge() : PaymentErrors.metadataOutOfBounds({ problem });
}

export function checkMaxOccurrences(value: number | null | undefined) {
  if (value === null || value === undefined) return;
  if (!Number.isInteger(value) || value < 1) throw PaymentErrors.invalidMaxOccurrences();
}

export function parseEndAt(value: string | null | undefined, purchaseDate: string, zone: string): string | null | undefined {
  if (value === null || value === undefined) return value;
  const endAt = parseIsoInZone(value, zone, true);
  if (!endAt) throw PaymentErrors.invalidEndAt();
  if (endAt <= purchaseDate) throw PaymentErrors.endBeforePurchase();
  return endAt;
}

/** The VAT pair of a body: both legs or neither, recurring plans only. */
export function vatPair(type: PaymentType, mode: VatMode | null | undefined, rate: number | null | undefined): Vat | undefined {
  if (mode === undefined && rate === undefined) return undefined;
  if (type !== 'recurring') throw PaymentErrors.vatNotRecurring();
  if (mode === undefined || rate === undefined || mode === null || rate === null) throw PaymentErrors.vatHalf();
  if (!(rate >= 0 && rate <= 100) || !hasAtMostTwoDecimals(rate)) throw PaymentErrors.invalidVatRate();
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
  if (!(PAYMENT_TYPES as readonly string[]).includes(input.type)) throw PaymentErrors.invalidType();
  const type = input.type as PaymentType;
  checkAmount(input.amount);
  let installmentCount: number | null = null;
  if (type === 'installments') {
    const n = input.installment_count;
    if (n === undefined || !(n >= 2) || !Number.isInteger(n)) throw PaymentErrors.installmentsTooFew();
    if (n > 360) throw PaymentErrors.installmentsTooMany();
    installmentCount = n;
  }
  let purchaseDate = nowIso();
  if (input.purchase_date !== undefined) {
    const parsed = parseIsoInZone(input.purchase_date, ctx.ws.timezone);
    if (!parsed) throw PaymentErrors.invalidPurchaseDate();
    purchaseDate = parsed;
  }
  // Checked whatever the type, as PATCH does; kept only by a recurring plan.
  const endAt = parseEndAt(input.recurring_end_at, purchaseDate, ctx.ws.timezone) ?? null;
  checkMaxOccurrences(input.recurring_max_occurrences);
  const recurring = type === 'recurring';
  const vat = vatPair(type, input.vat_mode, input.vat_rate);
  checkMetadata(input.metadata);
  return {
    type,
    amountCents: toCents(input.amount),
    purchaseDate,
    endAt: recurring ? endAt : null,
    maxOccurrences: recurring ? (input.recurring_max_occurrences ?? null) : null,
    installmentCount,
    vat,
  };
}
