import { and, eq, isNotNull, or, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { runBatch } from '../../platform/d1/db';
import { prepared } from '../../platform/d1/prepared';
import { fromCents } from '../../platform/money';
import { hex } from '../../platform/ids';
import type { LiveDocument, PaymentProvider } from '../../providers/payments';
import { selectReferencedContact, ContactErrors } from '../contacts';
import { contactDocumentPointerReads, type EntryDocumentRow, type PaymentDocumentRow } from '../payments';
import type { z } from '@hono/zod-openapi';
import { type ContactDocument as ContactDocumentSchema, type ContactDocuments, DOCUMENT_KINDS } from './dto';
import { paymentRequests, type PaymentRequestRow } from './schema';

/** How long the live listing may take before the stored listing is answered alone. */
export const LIVE_TIMEOUT_MS = 2500;

/** The contact's requests that can show a document: a stored pointer, or (for the live listing) paid. */
const contactRequests = prepared((db) =>
  db
    .select({
      id: paymentRequests.id,
      status: paymentRequests.status,
      document: paymentRequests.document,
      createdAt: paymentRequests.createdAt,
      paidAt: paymentRequests.paidAt,
      amountCents: paymentRequests.amountCents,
      currency: paymentRequests.currency,
    })
    .from(paymentRequests)
    .where(
      and(
        eq(paymentRequests.workspaceId, sql.placeholder('ws')),
        eq(paymentRequests.contactId, sql.placeholder('contact')),
        or(isNotNull(paymentRequests.document), eq(paymentRequests.status, 'paid')),
      ),
    ),
);
type RequestDocumentRow = Pick<PaymentRequestRow, 'id' | 'status' | 'document' | 'createdAt' | 'paidAt' | 'amountCents' | 'currency'>;

type Kind = (typeof DOCUMENT_KINDS)[number];
export type ContactDocument = z.infer<typeof ContactDocumentSchema>;
type Source = ContactDocument['sources'][number];
export type LiveStatus = z.infer<typeof ContactDocuments>['live'];

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

/** Only URLs a person can open: http(s), no embedded credentials. */
export function openUrl(v: unknown): string | null {
  const s = text(v);
  if (!s) return null;
  try {
    const u = new URL(s);
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password ? u.href : null;
  } catch {
    return null;
  }
}

const kindOf = (type: string | null): Kind | null => (type !== null && (DOCUMENT_KINDS as readonly string[]).includes(type) ? (type as Kind) : null);

/** A stored pointer as found (whoever wrote it): an object with a document id or at least a number; anything else is not a document. */
function pointer(raw: unknown) {
  let value = raw;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const p = value as Record<string, unknown>;
  const id = text(p.id);
  const number = text(p.number);
  if (!id && !number) return null;
  return { provider: text(p.provider), id, number, type: text(p.type), url: openUrl(p.url) };
}

/** A document's key: a digest of its identity, stable across listings. */
async function renderKey(identity: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(identity));
  return hex(new Uint8Array(digest, 0, 12));
}

type Draft = Omit<ContactDocument, 'key'> & { identity: string };

type Stored = { drafts: Map<string, Draft>; paidRequests: PaidRequest[] };
type PaidRequest = { id: string; document: RequestDocumentRow['document']; paidAt: string | null; amountCents: number; currency: string };

/**
 * One read batch: the contact, the pointers of its payments, refund entries and payment
 * requests; the stored documents deduplicated by provider + document id.
 */
async function readStored(ctx: ServiceContext, values: { ws: string; contact: string }): Promise<Stored> {
  const [contactRows, paymentRows, entryRows, requestRows] = (await runBatch(ctx.db, [
    selectReferencedContact(ctx, values.contact),
    ...contactDocumentPointerReads(ctx, values.contact),
    contactRequests.in(ctx.db, values),
  ])) as [unknown[], PaymentDocumentRow[], EntryDocumentRow[], RequestDocumentRow[]];
  if (!contactRows[0]) throw ContactErrors.idNotFound({ id: values.contact });

  const drafts = new Map<string, Draft>();
  const addStored = (raw: unknown, host: { date: string; cents: number; currency: string }, source: Source, credit: boolean) => {
    const p = pointer(raw);
    if (!p) return;
    const identity = p.id ? `doc|${p.provider ?? ''}|${p.id}` : `src|${source.type}|${'id' in source ? source.id : ''}`;
    const known = drafts.get(identity);
    if (known) {
      known.sources.push(source);
      known.number ??= p.number;
      known.url ??= p.url;
      known.isCredit ||= credit;
      return;
    }
    const kind = kindOf(p.type);
    drafts.set(identity, {
      identity,
      kind,
      rawType: p.type,
      isCredit: credit || (kind?.startsWith('credit_') ?? false),
      provider: p.provider,
      documentId: p.id,
      number: p.number,
      url: p.url,
      date: host.date,
      amount: fromCents(host.cents),
      currency: host.currency,
      origin: 'stored',
      sources: [source],
    });
  };
  for (const r of paymentRows) addStored(r.document, r, { type: 'contact_payment', id: r.id }, false);
  for (const r of entryRows) addStored(r.document, r, { type: 'payment_entry', id: r.id, paymentId: r.paymentId }, true);
  for (const r of requestRows)
    if (r.document)
      addStored(r.document, { date: r.createdAt, cents: r.amountCents, currency: r.currency }, { type: 'payment_request', id: r.id }, false);
  const paidRequests = requestRows
    .filter((r) => r.status === 'paid')
    .map((r) => ({ id: r.id, document: r.document ?? null, paidAt: r.paidAt, amountCents: r.amountCents, currency: r.currency }));
  return { drafts, paidRequests };
}

type DocumentsAnswer = { documents: ContactDocument[]; live: LiveStatus };

const notAttempted: LiveStatus = { attempted: false, ok: null, complete: null, error: null };

/**
 * `GET /v1/contacts/{id}/documents`: the stored documents (`readStored`), then (with `live`) the
 * provider's own listing merged in, sorted by date descending, nulls last.
 */
export async function listContactDocuments(
  ctx: ServiceContext,
  contactId: string,
  opts: { live: boolean; provider: PaymentProvider | null },
): Promise<DocumentsAnswer> {
  const values = { ws: ctx.ws.id, contact: contactId };
  const stored = await readStored(ctx, values);
  if (!opts.live) return finish(stored.drafts, notAttempted);
  const answer = opts.provider ? await askProvider(opts.provider, { contactId, paidRequests: stored.paidRequests }) : { listing: null, error: null };
  const live: LiveStatus = answer.error
    ? { attempted: true, ok: false, complete: false, error: answer.error }
    : { attempted: true, ok: true, complete: answer.listing?.complete ?? true, error: null };
  for (const d of answer.listing?.documents ?? []) mergeLive(stored.drafts, d);
  return finish(stored.drafts, live);
}

/** Each document's key, and the order: date descending with nulls last, then key. */
async function finish(drafts: Map<string, Draft>, live: LiveStatus): Promise<DocumentsAnswer> {
  const documents = await Promise.all(
    [...drafts.values()].map(async ({ identity, ...d }) => ({ key: await renderKey(identity), ...d }) as ContactDocument),
  );
  documents.sort((a, b) => {
    if (a.date !== b.date) {
      if (a.date === null) return 1;
      if (b.date === null) return -1;
      return a.date < b.date ? 1 : -1;
    }
    return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
  });
  return { documents, live };
}

/** A live document: merged into the stored one with the same provider + id (the provider's own values win), else listed on its own. */
function mergeLive(drafts: Map<string, Draft>, d: LiveDocument) {
  const id = text(d.id);
  const number = text(d.number);
  if (!id && !number) return;
  const provider = text(d.provider);
  const identity = id ? `doc|${provider ?? ''}|${id}` : `live|${provider ?? ''}|${number}`;
  const source: Source = { type: 'provider', provider: provider ?? 'unknown' };
  const type = text(d.type);
  const kind = kindOf(type);
  const own = { date: text(d.date), amount: typeof d.amount === 'number' ? d.amount : null, currency: text(d.currency) };
  const known = drafts.get(identity);
  if (known) {
    Object.assign(known, own, {
      origin: 'merged',
      kind: kind ?? known.kind,
      rawType: type ?? known.rawType,
      number: number ?? known.number,
      url: openUrl(d.url) ?? known.url,
      isCredit: known.isCredit || d.isCredit || (kind?.startsWith('credit_') ?? false),
    });
    known.sources.push(source);
    return;
  }
  drafts.set(identity, {
    identity,
    kind,
    rawType: type,
    isCredit: d.isCredit || (kind?.startsWith('credit_') ?? false),
    provider,
    documentId: id,
    number,
    url: openUrl(d.url),
    ...own,
    origin: 'live',
    sources: [source],
  });
}

/** The provider's listing within `LIVE_TIMEOUT_MS`: a timeout or a failure degrades to none, with the reason. */
async function askProvider(provider: PaymentProvider, query: Parameters<PaymentProvider['listDocuments']>[0]) {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve('timeout');
    }, LIVE_TIMEOUT_MS);
  });
  try {
    const answer = await Promise.race([provider.listDocuments(query, controller.signal), timeout]);
    if (answer === 'timeout') return { listing: null, error: 'timeout' as const };
    return { listing: answer, error: null };
  } catch (err) {
    if (controller.signal.aborted) return { listing: null, error: 'timeout' as const };
    console.error('live document listing failed', provider.name, err);
    return { listing: null, error: 'provider_error' as const };
  } finally {
    clearTimeout(timer);
  }
}
