import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { runOperation } from '../../platform/d1/operation';
import { preparedInsert } from '../../platform/d1/prepared';
import { afterInsertOf, type RowGuard } from '../../platform/d1/row-guard';
import { uuidv7 } from '../../platform/ids';
import { hasAtMostTwoDecimals, toCents } from '../../platform/money';
import type { PaymentProviderName } from '../../providers/payments';
import { planContactReference, referencedContactExists } from '../contacts';
import { dealOfContact, DealErrors, selectDeal } from '../deals';
import { MAX_AMOUNT, type VatMode } from '../payments';
import { DEFAULT_EXPIRY_DAYS, type PaymentRequestCreateInput } from './dto';
import { mintToken, payUrlFor } from './pay-link';
import { paymentRequestEventData, selectPaymentRequest, serializePaymentRequest } from './read';
import { paymentRequests, type PaymentRequestRow } from './schema';
import { PaymentRequestErrors } from './errors';

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;
const DAY_MS = 86_400_000;

/** Every create rule that needs no read: amount, VAT pair, expiry. */
function validateCreateInput(ctx: ServiceContext, input: PaymentRequestCreateInput) {
  if (!(input.amount > 0) || toCents(input.amount) <= 0) throw PaymentRequestErrors.amountNotPositive();
  if (input.amount > MAX_AMOUNT) throw PaymentRequestErrors.amountTooLarge();
  let vat: { mode: VatMode; rate: number } = { mode: ctx.ws.vatMode, rate: ctx.ws.vatRate };
  if (input.vat_mode !== undefined || input.vat_rate !== undefined) {
    if (input.vat_mode === undefined || input.vat_rate === undefined) throw PaymentRequestErrors.vatHalf();
    if (!(input.vat_rate >= 0 && input.vat_rate <= 100) || !hasAtMostTwoDecimals(input.vat_rate)) {
      throw PaymentRequestErrors.invalidVatRate();
    }
    vat = { mode: input.vat_mode, rate: input.vat_rate };
  }
  const now = Date.now();
  let expiresAt = new Date(now + DEFAULT_EXPIRY_DAYS * DAY_MS).toISOString();
  if (input.expires_at !== undefined) {
    const ms = INSTANT.test(input.expires_at.trim()) ? Date.parse(input.expires_at.trim()) : NaN;
    if (Number.isNaN(ms)) throw PaymentRequestErrors.invalidExpiresAt();
    if (ms <= now) throw PaymentRequestErrors.expiresInPast();
    expiresAt = new Date(ms).toISOString();
  }
  return { amountCents: toCents(input.amount), vat, expiresAt };
}

type NewLink = { checked: ReturnType<typeof validateCreateInput>; baseUrl: string; provider: PaymentProviderName };

/**
 * `POST /v1/payment-requests`: not idempotent, every call mints a new link.
 * One read batch (the contact reference's reads and the deal) and one write
 * batch (the contact's own create or update, the request, its
 * `payment_request.created` outbox row and the re-read): a rejected request
 * (merge conflict, deal of another contact) writes nothing of its own.
 * The request is also written in the read batch itself, guarded on its
 * contact existing and the deal (if any) being one of its own: one round
 * trip. A phone/email reference sends the contact's create along first (see
 * `along`). When a guard does not hold, the batch wrote nothing and its reads
 * decide as always.
 */
export function createPaymentRequest(
  ctx: ServiceContext,
  input: PaymentRequestCreateInput,
  link: { baseUrl: string; provider: PaymentProviderName },
) {
  const made: NewLink = { checked: validateCreateInput(ctx, input), ...link };
  const dealId = input.deal_id?.toLowerCase();
  const contactRef = { contact_id: input.contact_id?.toLowerCase(), phone: input.phone, email: input.email, name: input.name };
  return runOperation(ctx, () => {
    const plan = planContactReference(ctx, contactRef, { missing: PaymentRequestErrors.noContact, source: 'api' });
    // A deal of a contact only the reads know (a phone/email reference) cannot be checked along.
    const contact = dealId !== undefined && contactRef.contact_id === undefined ? null : plan.along();
    const bet = contact && newRequestStatements(ctx, input, made, contact.id, dealId ?? null, true);
    return {
      along: bet && {
        statements: [...contact.statements, ...bet.statements],
        events: [...contact.events, bet.event],
        done: (read) => (read.created[0] ? serializePaymentRequest(read.created[0]) : null),
      },
      // The deal is read only when one is named.
      reads: {
        created: bet && selectPaymentRequest(ctx.db, ctx.ws.id, bet.id),
        deal: dealId !== undefined && selectDeal(ctx.db, ctx.ws.id, dealId),
        contact: plan,
      },
      decide: async (read, batch) => {
        const [deal] = read.deal;
        const planned = await read.contact();
        if (dealId && !deal) throw DealErrors.notFound();
        if (deal && deal.contactId !== planned.contact.id) throw PaymentRequestErrors.dealContactMismatch();
        const { id, statements, event } = newRequestStatements(ctx, input, made, planned.contact.id, deal?.id ?? null, false);
        batch.join(planned).join({ writes: statements, events: [event] });
        return batch.answer(selectPaymentRequest(ctx.db, ctx.ws.id, id), ([row]) => serializePaymentRequest(row));
      },
    };
  });
}

const requestInsert = preparedInsert(paymentRequests);

/** The request is written only if its contact exists and its deal (if any) is one of that contact's. */
const newRequestCondition = (() => {
  const [ws, contact, deal] = ['newWs', 'newContact', 'newDeal'].map((name) => sql.placeholder(name));
  return sql`${referencedContactExists(ws, contact)} AND (${deal} IS NULL OR ${dealOfContact(ws, deal, contact)})`;
})();

/**
 * A new request's row and its `payment_request.created` outbox row; `speculative`,
 * the row is written only if `newRequestCondition` holds as the batch runs, the event only if
 * the row was.
 */
function newRequestStatements(
  ctx: ServiceContext,
  input: PaymentRequestCreateInput,
  link: NewLink,
  contactId: string,
  dealId: string | null,
  speculative: boolean,
) {
  const { checked } = link;
  const now = nowIso();
  const token = mintToken(ctx.ws.id);
  const row: PaymentRequestRow = {
    id: uuidv7(),
    workspaceId: ctx.ws.id,
    contactId,
    dealId,
    provider: link.provider,
    status: 'pending',
    amountCents: checked.amountCents,
    currency: input.currency?.toUpperCase() ?? ctx.ws.currency,
    title: input.title || null,
    vatMode: checked.vat.mode,
    vatRate: checked.vat.rate,
    testMode: input.test_mode ?? false,
    token,
    payUrl: payUrlFor(link.baseUrl, token),
    contactPaymentId: null,
    providerSessionId: null,
    providerPaymentRef: null,
    document: null,
    expiresAt: checked.expiresAt,
    paidAt: null,
    cancelledAt: null,
    sweepClaim: null,
    createdAt: now,
    updatedAt: now,
  };
  const guard: RowGuard | undefined = speculative
    ? { condition: newRequestCondition, values: { newWs: ctx.ws.id, newContact: contactId, newDeal: dealId } }
    : undefined;
  const { event, statement } = ctx.events.emit(
    ctx.db,
    ctx.ws.id,
    'payment_request.created',
    paymentRequestEventData(row),
    guard && afterInsertOf(paymentRequests, row.id),
  );
  return { id: row.id, event, statements: [requestInsert.in(ctx.db, row, guard), statement] };
}
