import Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { StripeProvider, verifyStripeSignature } from '../../src/providers/payments/stripe';
import { ProviderError, WebhookRejected } from '../../src/providers/payments/types';
import { admin, makeWorkspace, type TestWorkspace } from '../support/harness';
import { appWith, backdate, freshPhone, payPath, requestEvents } from './helpers';
import { PROTOTYPE_NAMES } from '../quality/fuzz-inputs';

const SECRET = 'whsec_test_payreq_secret';
const STRIPE_ENV = {
  PAYMENT_PROVIDER: 'stripe',
  STRIPE_SECRET_KEY: 'sk_test_123',
  STRIPE_WEBHOOK_SECRET: SECRET,
  PUBLIC_BASE_URL: 'https://pay.example.com',
};
const stripeApp = appWith(STRIPE_ENV);
const stripe = new Stripe('sk_test_123', { httpClient: Stripe.createFetchHttpClient() });

type Seen = { url: string; method: string; headers: Record<string, string>; form: URLSearchParams };

/** A fake Stripe: records every request (form decoded) and answers like the documented API. */
function fakeStripe(answer: (req: Seen) => Response | Promise<Response> = () => json({})) {
  const seen: Seen[] = [];
  vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const req: Seen = {
      url: input instanceof Request ? input.url : String(input),
      method: init.method ?? 'GET',
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      form: new URLSearchParams(typeof init.body === 'string' ? init.body : ''),
    };
    seen.push(req);
    return answer(req);
  });
  return seen;
}
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const session = (id: string) => json({ id, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/${id}` });

async function stripeLink(ws: TestWorkspace, body: Record<string, unknown> = {}) {
  const res = await stripeApp('POST', '/v1/payment-requests', {
    key: ws.key,
    ip: ws.ip,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ amount: 12.34, currency: 'eur', title: 'Seat', phone: freshPhone(), ...body }),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** A Checkout Session event as Stripe sends it, signed with the stripe package's own test-header helper. */
async function delivery(
  link: { id: string; workspace_id: string; contact_id: string },
  over: Record<string, unknown> = {},
  opts: { secret?: string; timestamp?: number; type?: string } = {},
) {
  const payload = JSON.stringify({
    id: `evt_${crypto.randomUUID().slice(0, 8)}`,
    object: 'event',
    type: opts.type ?? 'checkout.session.completed',
    data: {
      object: {
        id: 'cs_test_paid',
        object: 'checkout.session',
        client_reference_id: link.id,
        payment_status: 'paid',
        status: 'complete',
        payment_intent: 'pi_test_1',
        metadata: { payment_request_id: link.id, workspace_id: link.workspace_id, contact_id: link.contact_id, test_mode: 'false' },
        ...over,
      },
    },
  });
  const header = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: opts.secret ?? SECRET, timestamp: opts.timestamp });
  return { payload, header };
}

const post = (d: { payload: string; header: string | null }) =>
  stripeApp('POST', '/providers/payments/stripe', {
    body: d.payload,
    headers: { 'content-type': 'application/json', ...(d.header ? { 'stripe-signature': d.header } : {}) },
  });

describe('Stripe checkout', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await makeWorkspace();
  });
  afterEach(() => vi.restoreAllMocks());

  it('mints the link on this service (PUBLIC_BASE_URL) and opening it redirects to a fresh Checkout Session created field by field', async () => {
    const link = await stripeLink(ws, { vat_mode: 'inclusive', vat_rate: 10 });
    expect(link.provider).toBe('stripe');
    expect(link.pay_url).toMatch(/^https:\/\/pay\.example\.com\/pay\/[A-Za-z0-9_-]{54}$/);
    const seen = fakeStripe(() => session('cs_test_1'));
    const res = await stripeApp('GET', payPath(link.pay_url));
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('https://checkout.stripe.com/c/pay/cs_test_1');
    expect(seen).toHaveLength(1);
    const [req] = seen;
    expect(req.url).toBe('https://api.stripe.com/v1/checkout/sessions');
    expect(req.method).toBe('POST');
    expect(req.headers).toMatchObject({
      authorization: 'Bearer sk_test_123',
      'content-type': 'application/x-www-form-urlencoded',
      'idempotency-key': expect.stringMatching(new RegExp(`^payment_request:${link.id}:`)),
    });
    const f = Object.fromEntries(req.form.entries());
    const expiresAt = Number(f.expires_at);
    expect(expiresAt - Date.now() / 1000).toBeGreaterThan(30 * 60);
    expect(expiresAt - Date.now() / 1000).toBeLessThanOrEqual(24 * 3600);
    expect(f).toEqual({
      mode: 'payment',
      client_reference_id: link.id,
      success_url: link.pay_url,
      cancel_url: link.pay_url,
      expires_at: f.expires_at,
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'eur',
      'line_items[0][price_data][unit_amount]': '1234',
      'line_items[0][price_data][product_data][name]': 'Seat',
      'metadata[payment_request_id]': link.id,
      'metadata[workspace_id]': ws.id,
      'metadata[contact_id]': link.contact_id,
      'metadata[test_mode]': 'false',
      'payment_intent_data[metadata][payment_request_id]': link.id,
      'payment_intent_data[metadata][workspace_id]': ws.id,
      'payment_intent_data[metadata][contact_id]': link.contact_id,
      'payment_intent_data[metadata][test_mode]': 'false',
    });
    expect((await ws.api('GET', `/v1/payment-requests/${link.id}`)).body.provider_session_id).toBe('cs_test_1');
    // Every open is a fresh session with its own idempotency key.
    fakeStripe(() => session('cs_test_2'));
    expect((await stripeApp('GET', payPath(link.pay_url))).headers.get('location')).toContain('cs_test_2');
  });

  it('a test-mode link authorises only (manual capture)', async () => {
    const link = await stripeLink(ws, { test_mode: true });
    const seen = fakeStripe(() => session('cs_test_3'));
    await stripeApp('GET', payPath(link.pay_url));
    expect(seen[0].form.get('payment_intent_data[capture_method]')).toBe('manual');
    expect(seen[0].form.get('metadata[test_mode]')).toBe('true');
  });

  it('maps Stripe error answers: the page says the provider is unavailable (502) and the link stays pending', async () => {
    const link = await stripeLink(ws);
    fakeStripe(() => json({ error: { type: 'invalid_request_error', code: 'parameter_invalid_integer', message: 'Invalid integer' } }, 400));
    const res = await stripeApp('GET', payPath(link.pay_url));
    expect(res.status).toBe(502);
    expect(res.body).toContain('Payment temporarily unavailable');
    expect((await ws.api('GET', `/v1/payment-requests/${link.id}`)).body.status).toBe('pending');
    const provider = new StripeProvider('sk_test_123', SECRET);
    const err = await provider
      .createCheckout({
        id: link.id,
        workspaceId: ws.id,
        contactId: link.contact_id,
        amountCents: 100,
        currency: 'EUR',
        title: null,
        expiresAt: link.expires_at,
        testMode: false,
        returnUrl: link.pay_url,
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect(err).toMatchObject({ status: 400, code: 'parameter_invalid_integer' });
    vi.restoreAllMocks();
    vi.spyOn(globalThis, 'fetch').mockRejectedValue(new TypeError('network down'));
    expect(await provider.expireCheckout('cs_x').catch((e) => e)).toBeInstanceOf(ProviderError);
    expect(await new StripeProvider(undefined, undefined).expireCheckout('cs_x').catch((e) => e)).toMatchObject({
      message: 'STRIPE_SECRET_KEY is not set',
    });
  });

  it('cancel expires the open Checkout Session', async () => {
    const link = await stripeLink(ws);
    fakeStripe(() => session('cs_test_cancel'));
    await stripeApp('GET', payPath(link.pay_url));
    const seen = fakeStripe(() => json({ id: 'cs_test_cancel', object: 'checkout.session', status: 'expired' }));
    const res = await stripeApp('POST', `/v1/payment-requests/${link.id}/cancel`, { key: ws.key, ip: ws.ip });
    expect(res.status).toBe(201);
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST https://api.stripe.com/v1/checkout/sessions/cs_test_cancel/expire']);
    expect(seen[0].headers.authorization).toBe('Bearer sk_test_123');
  });

  it("lists a contact's charges with receipts as live documents", async () => {
    const seen = fakeStripe(() =>
      json({
        object: 'search_result',
        has_more: true,
        data: [
          {
            id: 'ch_1',
            amount: 1234,
            currency: 'eur',
            created: 1_700_000_000,
            receipt_url: 'https://pay.stripe.com/receipts/ch_1',
            receipt_number: '1234-5678',
          },
          { id: 'ch_2', amount: 100, currency: 'eur', created: 1_700_000_100, receipt_url: null, receipt_number: null },
        ],
      }),
    );
    const contactId = '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c';
    const listing = await new StripeProvider('sk_test_123', SECRET).listDocuments({ contactId, paidRequests: [] }, new AbortController().signal);
    expect(new URL(seen[0].url).searchParams.get('query')).toBe(`metadata['contact_id']:'${contactId}'`);
    expect(seen[0].url.startsWith('https://api.stripe.com/v1/charges/search?')).toBe(true);
    expect(listing).toEqual({
      complete: false,
      documents: [
        {
          provider: 'stripe',
          id: 'ch_1',
          number: '1234-5678',
          type: 'receipt',
          url: 'https://pay.stripe.com/receipts/ch_1',
          date: '2023-11-14T22:13:20.000Z',
          amount: 12.34,
          currency: 'EUR',
          isCredit: false,
        },
      ],
    });
  });
});

describe('POST /providers/payments/stripe', () => {
  let ws: TestWorkspace;
  beforeEach(async () => {
    ws = await makeWorkspace();
  });

  it('a verified checkout.session.completed pays the link once, however often Stripe delivers it', async () => {
    const link = await stripeLink(ws);
    const d = await delivery(link);
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(d)));
    for (const a of answers) expect(a).toMatchObject({ status: 200, body: { received: true, payment_request_id: link.id, status: 'paid' } });
    const after = (await ws.api('GET', `/v1/payment-requests/${link.id}`)).body;
    expect(after).toMatchObject({
      status: 'paid',
      provider_session_id: 'cs_test_paid',
      provider_payment_ref: 'pi_test_1',
      contact_payment_id: expect.any(String),
    });
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(1);
    const paidEvents = (await requestEvents(ws.id, link.id)).filter((e) => e.type === 'payment_request.paid');
    expect(paidEvents).toHaveLength(1);
    // Events never carry the provider references.
    expect(JSON.stringify(paidEvents[0].data)).not.toMatch(/cs_test_paid|pi_test_1/);
  });

  it('a bad, stale or missing signature answers 400 and changes nothing', async () => {
    const link = await stripeLink(ws);
    const wrongSecret = await delivery(link, {}, { secret: 'whsec_other' });
    const stale = await delivery(link, {}, { timestamp: Math.floor(Date.now() / 1000) - 301 });
    const good = await delivery(link);
    const tampered = { payload: good.payload.replace('"paid"', '"paid" '), header: good.header };
    for (const d of [wrongSecret, stale, tampered, { payload: good.payload, header: null }, { payload: good.payload, header: 't=abc,v1=' }]) {
      const res = await post(d);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
    expect((await ws.api('GET', `/v1/payment-requests/${link.id}`)).body.status).toBe('pending');
    expect((await requestEvents(ws.id, link.id)).map((e) => e.type)).toEqual(['payment_request.created']);
  });

  it('events that confirm nothing, unpaid sessions and unknown links answer 200 without effect', async () => {
    const link = await stripeLink(ws);
    for (const d of [
      await delivery(link, {}, { type: 'checkout.session.expired' }),
      await delivery(link, { payment_status: 'unpaid' }),
      await delivery({ ...link, id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c' }),
    ]) {
      const res = await post(d);
      expect(res.status).toBe(200);
      expect(res.body.received).toBe(true);
    }
    expect((await ws.api('GET', `/v1/payment-requests/${link.id}`)).body.status).toBe('pending');
  });

  it('event types and session values named like inherited object properties answer 200 without effect', async () => {
    const link = await stripeLink(ws);
    for (const name of PROTOTYPE_NAMES) {
      for (const d of [
        await delivery(link, {}, { type: name }),
        await delivery(link, { object: name, payment_status: name, status: name }),
        await delivery(link, { client_reference_id: name, metadata: { [name]: link.id, workspace_id: name } }),
      ]) {
        const res = await post(d);
        expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(res.body).toEqual({ received: true, payment_request_id: null, status: null });
      }
    }
    expect((await ws.api('GET', `/v1/payment-requests/${link.id}`)).body.status).toBe('pending');
  });

  it('a Stripe event for a link the sandbox issued answers 200, records nothing and leaves the link unpaid', async () => {
    const sandboxLink = (await ws.api('POST', '/v1/payment-requests', { amount: 5, currency: 'eur', phone: freshPhone() })).body;
    expect(sandboxLink.provider).toBe('sandbox');
    for (const type of ['checkout.session.completed', 'checkout.session.async_payment_succeeded']) {
      const res = await post(await delivery(sandboxLink, {}, { type }));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ received: true, payment_request_id: null, status: null });
    }
    expect((await ws.api('GET', `/v1/payment-requests/${sandboxLink.id}`)).body).toMatchObject({
      status: 'pending',
      provider_session_id: null,
      contact_payment_id: null,
    });
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(0);
    expect((await requestEvents(ws.id, sandboxLink.id)).map((e) => e.type)).toEqual(['payment_request.created']);
    // The sandbox's own payer still pays it.
    expect((await admin('POST', `/payment-requests/${sandboxLink.id}/complete`)).body.status).toBe('paid');
  });

  it('async_payment_succeeded pays too; and a cancelled link completes late', async () => {
    const a = await stripeLink(ws);
    expect((await post(await delivery(a, {}, { type: 'checkout.session.async_payment_succeeded' }))).body.status).toBe('paid');
    const b = await stripeLink(ws);
    fakeStripe(() => json({}));
    await ws.api('POST', `/v1/payment-requests/${b.id}/cancel`, {});
    vi.restoreAllMocks();
    expect((await post(await delivery(b))).body.status).toBe('paid');
    expect((await requestEvents(ws.id, b.id)).map((e) => e.type)).toEqual([
      'payment_request.created',
      'payment_request.cancelled',
      'payment_request.paid',
    ]);
  });

  it('a payment for an expired link is recorded and Stripe gets a 2xx', async () => {
    const link = await stripeLink(ws);
    await backdate(ws.id, link.id);
    expect((await admin('POST', '/sweeps/expire-payment-requests')).status).toBe(200);
    expect((await ws.api('GET', `/v1/payment-requests/${link.id}`)).body.status).toBe('expired');
    const res = await post(await delivery(link));
    expect(res).toMatchObject({ status: 200, body: { received: true, payment_request_id: link.id, status: 'paid' } });
    expect((await ws.api('GET', `/v1/payment-requests/${link.id}`)).body).toMatchObject({ status: 'paid', contact_payment_id: expect.any(String) });
    expect((await requestEvents(ws.id, link.id)).map((e) => e.type)).toEqual([
      'payment_request.created',
      'payment_request.expired',
      'payment_request.paid',
    ]);
  });

  it('the sandbox and unknown providers have no webhook route', async () => {
    for (const p of ['sandbox', 'paypal']) expect((await stripeApp('POST', `/providers/payments/${p}`, { body: '{}' })).status).toBe(404);
  });
});

describe('verifyStripeSignature', () => {
  it("accepts the stripe package's own headers and rejects others", async () => {
    const payload = '{"a":1}';
    const header = await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET });
    await expect(verifyStripeSignature(payload, header, SECRET)).resolves.toBeUndefined();
    await expect(verifyStripeSignature(payload, header, 'whsec_other')).rejects.toBeInstanceOf(WebhookRejected);
    await expect(verifyStripeSignature('{"a":2}', header, SECRET)).rejects.toBeInstanceOf(WebhookRejected);
    const future = Math.floor(Date.now() / 1000) + 1000;
    await expect(
      verifyStripeSignature(payload, await stripe.webhooks.generateTestHeaderStringAsync({ payload, secret: SECRET, timestamp: future }), SECRET),
    ).rejects.toBeInstanceOf(WebhookRejected);
  });
});
