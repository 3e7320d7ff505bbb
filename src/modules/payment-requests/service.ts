import { and, desc, eq, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso } from '../../platform/d1/db';
import { runOperation, unchanged, type WriteBatch } from '../../platform/d1/operation';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import type { OutboxEvent } from '../../platform/events';
import { uuidText, uuidv7 } from '../../platform/ids';
import { envelope, parsePaging } from '../../platform/list';
import { hasAtMostTwoDecimals, toCents } from '../../platform/money';
import { preparedInsert, preparedList, testedOnRows } from '../../platform/d1/prepared';
import { afterInsertOf, type RowGuard } from '../../platform/d1/row-guard';
import { shardDb, shardNames } from '../../platform/d1/shards';
import { isUuid } from '../../platform/validation';
import type { PaymentConfirmation, PaymentProvider, PaymentProviderName } from '../../providers/payments';
import { planContactReference, referencedContactExists } from '../contacts';
import { dealOfContact, selectDeal, DealErrors } from '../deals';
import { MAX_AMOUNT, paymentReferenceKey, type VatMode, recordPaymentStatements, validateCreate } from '../payments';
import { DEFAULT_EXPIRY_DAYS, type PaymentRequestCreateInput } from './dto';
import { paymentRequestEventData, selectPaymentRequest, serializePaymentRequest } from './read';
import { PAYMENT_REQUEST_STATUSES, paymentRequests, type PaymentRequestRow, type PaymentRequestStatus } from './schema';
import { SharedErrors } from '../../platform/shared-errors';
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

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/**
 * The pay-link token: the workspace id's 16 bytes (so the public page finds
 * the workspace's database without a global index) and 24 random bytes (what
 * makes it unguessable), base64url: 54 characters.
 */
export function mintToken(workspaceId: string): string {
  const bytes = new Uint8Array(40);
  const hex = workspaceId.replace(/-/g, '');
  for (let i = 0; i < 16; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  crypto.getRandomValues(bytes.subarray(16));
  return base64url(bytes);
}

/** The workspace id a token names, or null for anything that is not a token. */
export function tokenWorkspace(token: string): string | null {
  if (!/^[A-Za-z0-9_-]{54}$/.test(token)) return null;
  const bin = atob(`${token.replace(/-/g, '+').replace(/_/g, '/')}==`);
  const id = uuidText(Uint8Array.from(bin.slice(0, 16), (ch) => ch.charCodeAt(0)));
  return isUuid(id) ? id : null;
}

export const payUrlFor = (baseUrl: string, token: string) => `${baseUrl.replace(/\/+$/, '')}/pay/${token}`;

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

export async function findPaymentRequest(ctx: ServiceContext, id: string): Promise<PaymentRequestRow> {
  const [row] = await selectPaymentRequest(ctx.db, ctx.ws.id, id);
  if (!row) throw PaymentRequestErrors.notFound();
  return row;
}

export async function getPaymentRequest(ctx: ServiceContext, id: string) {
  return serializePaymentRequest(await findPaymentRequest(ctx, id));
}

export type PaymentRequestListParams = Partial<Record<'status' | 'contact_id' | 'deal_id' | 'limit' | 'offset', string>>;

function uuidParam(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!isUuid(raw)) throw SharedErrors.invalidUuidParam({ name });
  return raw.toLowerCase();
}

const runList = preparedList<'status' | 'contact_id' | 'deal_id', PaymentRequestRow>(
  // `status` leads `payment_requests_due`, the expiry sweep's index over the shard.
  { status: testedOnRows(paymentRequests.status), contact_id: paymentRequests.contactId, deal_id: paymentRequests.dealId },
  (_, filtered, ws) => {
    const where = and(eq(paymentRequests.workspaceId, ws), filtered);
    return {
      count: (db) => db.select({ total: sql<number>`count(*)` }).from(paymentRequests).where(where),
      page: (db) => db.select().from(paymentRequests).where(where).orderBy(desc(paymentRequests.createdAt), desc(paymentRequests.id)),
    };
  },
);

/** `GET /v1/payment-requests`: newest first; total and page in one statement (`preparedList`). */
export async function listPaymentRequests(ctx: ServiceContext, params: PaymentRequestListParams) {
  const paging = parsePaging(params, { limit: 25, cap: 100 });
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  if (params.status !== undefined && params.status !== '') {
    if (!(PAYMENT_REQUEST_STATUSES as readonly string[]).includes(params.status)) {
      throw SharedErrors.notOneOf({ name: 'status', values: PAYMENT_REQUEST_STATUSES.join(', ') });
    }
    values.status = params.status;
  }
  const contactId = uuidParam('contact_id', params.contact_id);
  const dealId = uuidParam('deal_id', params.deal_id);
  if (contactId) values.contact_id = contactId;
  if (dealId) values.deal_id = dealId;
  const { total, rows } = await runList(ctx.db, values);
  return envelope(rows.map(serializePaymentRequest), total, paging);
}

/** A guarded status change: the batch fails (NOT NULL) unless the row still has the status it was read with. */
const statusFrom = (from: PaymentRequestStatus, to: PaymentRequestStatus) => guarded(sql`${paymentRequests.status} = ${from}`, sql`${to}`);

const statusGuard = guardOf(paymentRequests.status);

/** A transition of `row` to `next` with its event into `batch`. */
function transition(
  ctx: ServiceContext,
  batch: WriteBatch,
  change: { row: PaymentRequestRow; next: PaymentRequestRow; type: 'payment_request.paid' | 'payment_request.expired' | 'payment_request.cancelled' },
) {
  const { row, next, type } = change;
  const { id: _id, workspaceId: _ws, createdAt: _c, ...set } = next;
  batch
    .write(
      ctx.db
        .update(paymentRequests)
        .set({ ...set, status: statusFrom(row.status, next.status) })
        .where(and(eq(paymentRequests.workspaceId, ctx.ws.id), eq(paymentRequests.id, row.id))),
    )
    .emit(type, paymentRequestEventData(next));
  return batch;
}

/** The row as the batch wrote it. */
const asWritten = (ctx: ServiceContext, batch: WriteBatch, id: string) => batch.answer(selectPaymentRequest(ctx.db, ctx.ws.id, id), ([row]) => row);

/**
 * `POST /v1/payment-requests/{id}/cancel`: only `pending` (409
 * `payment_request_not_pending`). After the commit the provider's checkout is
 * expired where there is one (best effort: a failure is logged, the link is
 * cancelled either way and a later payment would be a late completion).
 */
export async function cancelPaymentRequest(ctx: ServiceContext, id: string, provider: (name: PaymentProviderName) => PaymentProvider) {
  const row = await runOperation(ctx, {
    reads: { current: selectPaymentRequest(ctx.db, ctx.ws.id, id) },
    decide: (read, batch) => {
      const [current] = read.current;
      if (!current) throw PaymentRequestErrors.notFound();
      if (current.status !== 'pending') throw PaymentRequestErrors.notPending({ status: current.status });
      const now = nowIso();
      transition(ctx, batch, {
        row: current,
        next: { ...current, status: 'cancelled', cancelledAt: now, updatedAt: now },
        type: 'payment_request.cancelled',
      });
      return asWritten(ctx, batch, current.id);
    },
    lostRaceOn: [statusGuard],
  });
  if (row.providerSessionId) await expireCheckoutQuietly(provider(row.provider as PaymentProviderName), row.providerSessionId);
  return serializePaymentRequest(row);
}

export async function expireCheckoutQuietly(provider: PaymentProvider, sessionId: string) {
  try {
    await provider.expireCheckout(sessionId);
  } catch (err) {
    console.error('expiring the provider checkout failed', provider.name, sessionId, err);
  }
}

/**
 * Lazy expiry: a pending link past `expires_at` becomes `expired` (one
 * `payment_request.expired`, whoever gets there first: the sweep or an
 * opener). Answers the current row either way.
 */
export function expireIfDue(ctx: ServiceContext, row: PaymentRequestRow): Promise<PaymentRequestRow> {
  return runOperation(ctx, {
    // The row the caller holds decides: nothing is read first; a row another write changed first is read again below.
    reads: {},
    decide: (_, batch) => {
      if (row.status !== 'pending' || row.expiresAt > nowIso()) return unchanged(row);
      transition(ctx, batch, { row, next: { ...row, status: 'expired', updatedAt: nowIso() }, type: 'payment_request.expired' });
      return asWritten(ctx, batch, row.id);
    },
  }).catch((err) => {
    if (!failedOn(err, statusGuard)) throw err;
    return findPaymentRequest(ctx, row.id);
  });
}

export type Settlement = { row: PaymentRequestRow; changed: boolean };

/**
 * A verified payment (sandbox page, operator route or provider webhook, all
 * the same path). `pending`, `cancelled` (late completion) and `expired`
 * (money the provider already took is recorded, see docs/payment-requests.md)
 * become `paid`: `paid_at`, the provider references, and, unless the link is
 * in test mode, a completed one-time ledger payment (external reference
 * `payment_request:<id>`) whose id lands in `contact_payment_id`, all in one
 * batch with `payment_request.paid`. The status update is guarded and the
 * ledger reference unique, so duplicate webhooks and parallel completes pay
 * once; the others find the link paid and change nothing. A confirmation
 * from another provider than the one that issued the link is about a link
 * that provider does not know: 404, and nothing changes.
 */
export async function settlePaymentRequest(
  ctx: ServiceContext,
  id: string,
  confirmation: Omit<PaymentConfirmation, 'workspaceId' | 'paymentRequestId'>,
): Promise<Settlement> {
  return runOperation(ctx, {
    reads: { current: selectPaymentRequest(ctx.db, ctx.ws.id, id) },
    decide: (read, batch) => {
      const [row] = read.current;
      if (!row) throw PaymentRequestErrors.notFound();
      if (row.provider !== confirmation.provider) throw PaymentRequestErrors.notFound();
      if (row.status === 'paid') return unchanged<Settlement>({ row, changed: false });
      const now = nowIso();
      const document = confirmation.document ?? row.document;
      let contactPaymentId: string | null = null;
      if (!row.testMode) {
        const input = {
          type: 'one_time',
          contact_id: row.contactId,
          amount: row.amountCents / 100,
          currency: row.currency,
          title: row.title ?? 'Payment request',
          status: 'completed' as const,
          external_reference: `payment_request:${row.id}`,
          metadata: { payment_request_id: row.id, provider: row.provider, ...(document ? { document } : {}) },
        };
        const recorded = recordPaymentStatements(ctx, { input, plan: validateCreate(ctx, input), product: null, contactId: row.contactId });
        batch.write(...recorded.statements);
        contactPaymentId = recorded.header.id;
      }
      const next: PaymentRequestRow = {
        ...row,
        status: 'paid',
        paidAt: now,
        contactPaymentId,
        providerSessionId: confirmation.sessionId ?? row.providerSessionId,
        providerPaymentRef: confirmation.paymentRef ?? row.providerPaymentRef,
        document,
        updatedAt: now,
      };
      transition(ctx, batch, { row, next, type: 'payment_request.paid' });
      return batch.answer(selectPaymentRequest(ctx.db, ctx.ws.id, row.id), ([written]): Settlement => ({ row: written, changed: true }));
    },
    // A parallel completion recorded the link's ledger payment (`payment_request:<id>`) first.
    lostRaceOn: [statusGuard, paymentReferenceKey],
  });
}

/** Records the provider's checkout session on a still pending row (the latest one opened; a settled link keeps the session that paid it). */
export async function rememberSession(ctx: ServiceContext, row: PaymentRequestRow, sessionId: string) {
  await ctx.db
    .update(paymentRequests)
    .set({ providerSessionId: sessionId, updatedAt: nowIso() })
    .where(and(eq(paymentRequests.workspaceId, ctx.ws.id), eq(paymentRequests.id, row.id), eq(paymentRequests.status, 'pending')));
}

export type { OutboxEvent };

/** The workspace of a payment request known only by id (operator route): every shard is asked at once; null when none holds it. */
export async function locatePaymentRequest(env: Bindings, id: string): Promise<string | null> {
  const found = await Promise.all(
    shardNames(env).map(async (shard) => {
      const [row] = await shardDb(env, shard)
        .select({ workspaceId: paymentRequests.workspaceId })
        .from(paymentRequests)
        .where(eq(paymentRequests.id, id))
        .limit(1);
      return row?.workspaceId ?? null;
    }),
  );
  return found.find((w) => w !== null) ?? null;
}
