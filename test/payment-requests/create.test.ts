import { describe, expect, it } from 'vitest';
import { makeWorkspace, uuidRe } from '../support/harness';
import { rowsIn } from '../support/db';
import { expectStatus, freshPhone, mint, requestEvents } from './helpers';

const SNAPSHOT_KEYS = [
  'payment_request_id',
  'status',
  'contact_id',
  'deal_id',
  'provider',
  'amount',
  'currency',
  'title',
  'vat_mode',
  'vat_rate',
  'test_mode',
  'pay_url',
  'contact_payment_id',
  'expires_at',
  'paid_at',
  'cancelled_at',
  'created_at',
].sort();

describe('POST /v1/payment-requests', () => {
  it('mints a pending link with the documented record and fires payment_request.created', async () => {
    const ws = await makeWorkspace({ currency: 'EUR', vat: { mode: 'inclusive', rate: 20 } });
    const before = Date.now();
    const res = await ws.api('POST', '/v1/payment-requests', {
      email: 'Payer@Example.com',
      name: 'Pat Payer',
      amount: 19.999,
      title: 'Workshop seat',
    });
    expectStatus(res, 201);
    const r = res.body;
    expect(Object.keys(r).sort()).toEqual(
      [...SNAPSHOT_KEYS, 'id', 'workspace_id', 'provider_session_id', 'provider_payment_ref', 'updated_at'].sort(),
    );
    expect(r).toMatchObject({
      id: expect.stringMatching(uuidRe),
      payment_request_id: r.id,
      workspace_id: ws.id,
      status: 'pending',
      deal_id: null,
      provider: 'sandbox',
      amount: 20,
      currency: 'EUR',
      title: 'Workshop seat',
      vat_mode: 'inclusive',
      vat_rate: 20,
      test_mode: false,
      contact_payment_id: null,
      paid_at: null,
      cancelled_at: null,
      provider_session_id: null,
      provider_payment_ref: null,
    });
    // Default expiry: 7 days.
    const expires = Date.parse(r.expires_at) - before;
    expect(expires).toBeGreaterThan(7 * 86_400_000 - 5_000);
    expect(expires).toBeLessThan(7 * 86_400_000 + 60_000);
    // The link is this service's own page with an unguessable token, never the id.
    expect(r.pay_url).toMatch(/^https:\/\/api\.test\/pay\/[A-Za-z0-9_-]{54}$/);
    expect(r.pay_url).not.toContain(r.id);
    const contact = (await ws.api('GET', `/v1/contacts/${r.contact_id}`)).body;
    expect(contact).toMatchObject({ email: 'payer@example.com', name: 'Pat Payer' });
    // Read back.
    expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).body).toEqual(r);
    const events = await requestEvents(ws.id, r.id);
    expect(events.map((e) => e.type)).toEqual(['payment_request.created']);
    expect(Object.keys(events[0].data).sort()).toEqual(SNAPSHOT_KEYS);
    const { id, workspace_id, provider_session_id, provider_payment_ref, updated_at, ...snapshot } = r;
    expect(events[0].data).toEqual(snapshot);
  });

  it('is not idempotent: the same body mints a new link every time', async () => {
    const ws = await makeWorkspace();
    const body = { phone: freshPhone(), amount: 10, title: 'Same' };
    const a = await mint(ws, body);
    const b = await mint(ws, body);
    expect(a.id).not.toBe(b.id);
    expect(a.pay_url).not.toBe(b.pay_url);
    expect(a.contact_id).toBe(b.contact_id);
  });

  it('takes an explicit VAT pair, currency, expiry and test_mode', async () => {
    const ws = await makeWorkspace();
    const expires = new Date(Date.now() + 3_600_000).toISOString();
    const r = await mint(ws, { currency: 'gbp', vat_mode: 'exclusive', vat_rate: 7.25, expires_at: expires, test_mode: true });
    expect(r).toMatchObject({ currency: 'GBP', vat_mode: 'exclusive', vat_rate: 7.25, expires_at: expires, test_mode: true });
    // The workspace default pair when none is given.
    expect(await mint(ws)).toMatchObject({ vat_mode: 'exclusive', vat_rate: 0, currency: 'USD' });
  });

  it('rejects bad amounts, VAT pairs and expiries with 400 and writes nothing', async () => {
    const ws = await makeWorkspace();
    const cases: [Record<string, unknown>, string | string[]][] = [
      [{ amount: 0 }, 'amount must be greater than 0'],
      [{ amount: -5 }, 'amount must be greater than 0'],
      [{ amount: 0.001 }, 'amount must be greater than 0'],
      [{ amount: 10_000_000_000 }, 'amount must be at most 9999999999'],
      [{ amount: 5, vat_mode: 'inclusive' }, 'vat_mode and vat_rate must be provided together'],
      [{ amount: 5, vat_rate: 5 }, 'vat_mode and vat_rate must be provided together'],
      [{ amount: 5, vat_mode: 'inclusive', vat_rate: 100.5 }, 'vat_rate must be a percent from 0 to 100 with at most 2 decimals'],
      [{ amount: 5, vat_mode: 'inclusive', vat_rate: 1.234 }, 'vat_rate must be a percent from 0 to 100 with at most 2 decimals'],
      [{ amount: 5, expires_at: '2020-01-01T00:00:00Z' }, 'expires_at must be in the future'],
      [{ amount: 5, expires_at: '2099-01-01' }, 'expires_at must be an ISO 8601 instant with a time zone'],
      [{ amount: 5, expires_at: 'soon' }, 'expires_at must be an ISO 8601 instant with a time zone'],
    ];
    for (const [body, message] of cases) {
      const res = await ws.api('POST', '/v1/payment-requests', { phone: freshPhone(), ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toEqual(message);
    }
    expect((await ws.api('POST', '/v1/payment-requests', { amount: 5, currency: 'EURO', phone: freshPhone() })).status).toBe(400);
    expect((await ws.api('POST', '/v1/payment-requests', { amount: 5 })).body.message).toBe(
      'Provide contact_id, or a phone/email to attach the payment request to a contact',
    );
    expect((await ws.api('GET', '/v1/payment-requests')).body.total).toBe(0);
    expect((await ws.api('GET', '/v1/contacts')).body.total).toBe(0);
  });

  it('resolves the contact like deals: contact_id wins, unknown 404, a merge conflict writes nothing', async () => {
    const ws = await makeWorkspace();
    const a = (await ws.api('POST', '/v1/contacts', { phone: freshPhone() })).body;
    const b = (await ws.api('POST', '/v1/contacts', { email: 'b@example.com' })).body;
    expect((await mint(ws, { contact_id: a.id.toUpperCase(), phone: undefined, email: 'b@example.com' })).contact_id).toBe(a.id);
    const missing = await ws.api('POST', '/v1/payment-requests', { contact_id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c', amount: 5 });
    expect(missing).toMatchObject({ status: 404, body: { message: 'Contact not found' } });
    const conflict = await ws.api('POST', '/v1/payment-requests', { phone: a.phone, email: b.email, amount: 5 });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ error_code: 'CONTACT_MERGE_REQUIRED', merge_request_id: expect.stringMatching(uuidRe) });
    expect((await ws.api('GET', '/v1/payment-requests')).body.total).toBe(1);
    expect(await rowsIn(ws.id, "SELECT id FROM event_outbox WHERE workspace_id = ?1 AND type = 'payment_request.created'", ws.id)).toHaveLength(1);
  });

  it("links a deal of the same contact; another contact's deal is 409, an unknown one 404, and neither writes", async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const deal = (await ws.api('POST', '/v1/deals', { title: 'Deal', phone })).body;
    expect((await mint(ws, { phone, deal_id: deal.id })).deal_id).toBe(deal.id);
    const other = freshPhone();
    const mismatch = await ws.api('POST', '/v1/payment-requests', { phone: other, amount: 5, deal_id: deal.id });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body).toMatchObject({ statusCode: 409, error_code: 'PAYMENT_REQUEST_DEAL_CONTACT_MISMATCH' });
    const unknown = await ws.api('POST', '/v1/payment-requests', { phone, amount: 5, deal_id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c' });
    expect(unknown).toMatchObject({ status: 404, body: { message: 'Deal not found' } });
    // The mismatching contact was never created.
    expect((await ws.api('GET', `/v1/contacts?search=${encodeURIComponent(other.slice(2))}`)).body.total).toBe(0);
    expect((await ws.api('GET', '/v1/payment-requests')).body.total).toBe(1);
    // A deal of another workspace is unknown here.
    const ws2 = await makeWorkspace();
    const foreign = await ws2.api('POST', '/v1/payment-requests', { phone, amount: 5, deal_id: deal.id });
    expect(foreign).toMatchObject({ status: 404, body: { message: 'Deal not found' } });
  });
});
