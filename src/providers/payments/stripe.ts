import type { Checkout, CheckoutRequest, DocumentQuery, LiveListing, PaymentConfirmation, PaymentProvider } from './types';
import { ProviderError, WebhookRejected } from './types';
import { hex } from '../../platform/ids';

export const STRIPE_API = 'https://api.stripe.com';
/** Stripe's own default tolerance for webhook timestamps (seconds). */
export const STRIPE_SIGNATURE_TOLERANCE = 300;
/** Checkout Sessions live at least 30 minutes and at most 24 hours (Stripe's limits). */
const SESSION_MIN_SECONDS = 31 * 60;
const SESSION_MAX_SECONDS = 24 * 60 * 60 - 60;

type Fetch = typeof fetch;

/** Stripe's form encoding: nested keys in brackets (`line_items[0][price_data][currency]`). */
export function formEncode(value: Record<string, unknown>): string {
  const params = new URLSearchParams();
  const walk = (prefix: string, v: unknown) => {
    if (v === undefined || v === null) return;
    if (typeof v === 'object') {
      for (const [k, child] of Array.isArray(v) ? v.entries() : Object.entries(v)) walk(prefix ? `${prefix}[${k}]` : String(k), child);
      return;
    }
    params.append(prefix, String(v));
  };
  walk('', value);
  return params.toString();
}

function timingSafeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Checks a `Stripe-Signature` header (`t=<unix>,v1=<hex>[,v1=...]`): one `v1`
 * must equal HMAC-SHA256(secret, `${t}.${payload}`) and `t` must lie within
 * the tolerance of now. Anything else throws `WebhookRejected`.
 */
export async function verifyStripeSignature(
  payload: string,
  header: string | null,
  secret: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<void> {
  if (!header) throw new WebhookRejected('Missing Stripe-Signature header');
  const parts = header.split(',').map((p) => p.trim().split('='));
  const t = parts.find(([k]) => k === 't')?.[1];
  const signatures = parts.filter(([k]) => k === 'v1').map(([, v]) => v ?? '');
  if (!t || !/^\d+$/.test(t) || signatures.length === 0) throw new WebhookRejected('Malformed Stripe-Signature header');
  if (Math.abs(nowSeconds - Number(t)) > STRIPE_SIGNATURE_TOLERANCE) throw new WebhookRejected('Stripe-Signature timestamp outside the tolerance');
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const expected = hex(new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${t}.${payload}`))));
  if (!signatures.some((s) => timingSafeEqual(s, expected))) throw new WebhookRejected('No matching Stripe signature');
}

type StripeSession = {
  id: string;
  object: string;
  url?: string | null;
  client_reference_id?: string | null;
  payment_status?: string;
  status?: string;
  payment_intent?: string | { id: string } | null;
  metadata?: Record<string, string>;
};

/** Events that confirm a payment of a Checkout Session. */
const PAID_EVENTS = new Set(['checkout.session.completed', 'checkout.session.async_payment_succeeded']);

/**
 * Stripe over its REST API with `fetch`: Checkout Sessions (form-encoded,
 * `Idempotency-Key` on every create), session expiry, `Stripe-Signature`
 * webhooks, and the contact's charges (with their receipts) as the live
 * document listing, found through the `contact_id` metadata every checkout sets.
 */
export class StripeProvider implements PaymentProvider {
  readonly name = 'stripe' as const;

  constructor(
    private readonly secretKey: string | undefined,
    private readonly webhookSecret: string | undefined,
    private readonly fetchImpl: Fetch = (input, init) => fetch(input, init),
    private readonly apiBase = STRIPE_API,
  ) {}

  private async call<T>(
    method: 'GET' | 'POST',
    path: string,
    opts: { form?: Record<string, unknown>; idempotencyKey?: string; signal?: AbortSignal } = {},
  ): Promise<T> {
    if (!this.secretKey) throw new ProviderError('STRIPE_SECRET_KEY is not set');
    const headers: Record<string, string> = { authorization: `Bearer ${this.secretKey}` };
    if (opts.form) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.apiBase}${path}`, {
        method,
        headers,
        body: opts.form ? formEncode(opts.form) : undefined,
        signal: opts.signal,
      });
    } catch (err) {
      if (opts.signal?.aborted) throw err;
      throw new ProviderError(`Stripe unreachable: ${err instanceof Error ? err.message : String(err)}`);
    }
    const text = await res.text();
    // biome-ignore lint/suspicious/noExplicitAny: Stripe's JSON is read field by field below, each field checked where it is used.
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    if (!res.ok) {
      const error = body?.error ?? {};
      throw new ProviderError(`Stripe answered ${res.status}: ${error.message ?? text.slice(0, 200)}`, res.status, error.code ?? error.type ?? null);
    }
    return body as T;
  }

  async createCheckout(r: CheckoutRequest): Promise<Checkout> {
    const now = Math.floor(Date.now() / 1000);
    const wanted = Math.floor(Date.parse(r.expiresAt) / 1000);
    const expiresAt = Math.min(Math.max(wanted, now + SESSION_MIN_SECONDS), now + SESSION_MAX_SECONDS);
    const metadata = { payment_request_id: r.id, workspace_id: r.workspaceId, contact_id: r.contactId, test_mode: String(r.testMode) };
    const session = await this.call<StripeSession>('POST', '/v1/checkout/sessions', {
      idempotencyKey: `payment_request:${r.id}:${crypto.randomUUID()}`,
      form: {
        mode: 'payment',
        client_reference_id: r.id,
        success_url: r.returnUrl,
        cancel_url: r.returnUrl,
        expires_at: expiresAt,
        line_items: [
          {
            quantity: 1,
            price_data: { currency: r.currency.toLowerCase(), unit_amount: r.amountCents, product_data: { name: r.title ?? 'Payment' } },
          },
        ],
        metadata,
        // Test-mode links authorise only: the card is never charged.
        payment_intent_data: { metadata, ...(r.testMode ? { capture_method: 'manual' } : {}) },
      },
    });
    if (!session?.id || !session.url) throw new ProviderError('Stripe answered a Checkout Session without id or url');
    return { redirectUrl: session.url, sessionId: session.id };
  }

  async expireCheckout(sessionId: string): Promise<void> {
    await this.call('POST', `/v1/checkout/sessions/${encodeURIComponent(sessionId)}/expire`, { form: {} });
  }

  async verifyWebhook(rawBody: string, headers: Headers): Promise<PaymentConfirmation | null> {
    if (!this.webhookSecret) throw new WebhookRejected('STRIPE_WEBHOOK_SECRET is not set');
    await verifyStripeSignature(rawBody, headers.get('stripe-signature'), this.webhookSecret);
    let event: { type?: string; data?: { object?: StripeSession } };
    try {
      event = JSON.parse(rawBody);
    } catch {
      throw new WebhookRejected('The webhook body is not JSON');
    }
    const session = event.data?.object;
    if (!event.type || !PAID_EVENTS.has(event.type) || session?.object !== 'checkout.session') return null;
    const testMode = session.metadata?.test_mode === 'true';
    // Authorise-only (test-mode) sessions complete unpaid: the authorisation is the confirmation.
    const paid = session.payment_status === 'paid' || session.payment_status === 'no_payment_required' || (testMode && session.status === 'complete');
    const requestId = session.metadata?.payment_request_id ?? session.client_reference_id;
    const workspaceId = session.metadata?.workspace_id;
    if (!paid || !requestId || !workspaceId) return null;
    const intent = session.payment_intent;
    return {
      workspaceId,
      paymentRequestId: requestId,
      provider: 'stripe',
      sessionId: session.id,
      paymentRef: typeof intent === 'string' ? intent : (intent?.id ?? null),
      document: null,
    };
  }

  async listDocuments(query: DocumentQuery, signal: AbortSignal): Promise<LiveListing | null> {
    if (!this.secretKey) return null;
    const q = new URLSearchParams({ query: `metadata['contact_id']:'${query.contactId}'`, limit: '100' });
    const page = await this.call<{ data: StripeCharge[]; has_more: boolean }>('GET', `/v1/charges/search?${q}`, { signal });
    const documents = (page.data ?? [])
      .filter((c) => c.receipt_url || c.receipt_number)
      .map((c) => ({
        provider: 'stripe',
        id: c.id,
        number: c.receipt_number ?? null,
        type: 'receipt',
        url: c.receipt_url ?? null,
        date: typeof c.created === 'number' ? new Date(c.created * 1000).toISOString() : null,
        amount: typeof c.amount === 'number' ? c.amount / 100 : null,
        currency: c.currency ? c.currency.toUpperCase() : null,
        isCredit: false,
      }));
    return { documents, complete: !page.has_more };
  }
}

type StripeCharge = { id: string; amount?: number; currency?: string; created?: number; receipt_url?: string | null; receipt_number?: string | null };
