import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { createPayment, expectMessage, freshPhone } from './helpers';

describe('PATCH /v1/payments/{id}', () => {
  it('flows one-time status and amount into the single entry and re-maps the header', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { status: 'pending', amount: 20 });
    expect(p.arrangement_status).toBe('active');
    const done = await ws.api('PATCH', `/v1/payments/${p.id}`, { status: 'completed', amount: 25.5 });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ arrangement_status: 'completed', total_amount: 25.5 });
    expect(done.body.entries).toHaveLength(1);
    expect(done.body.entries[0]).toMatchObject({ status: 'completed', amount: 25.5, recognized_amount: 25.5 });
    expect(done.body.entries[0].paid_at).not.toBeNull();
    expect(done.body.duplicate).toBeUndefined();
    const failed = await ws.api('PATCH', `/v1/payments/${p.id}`, { status: 'failed' });
    expect(failed.body).toMatchObject({ arrangement_status: 'cancelled' });
    expect(failed.body.entries[0]).toMatchObject({ status: 'failed', recognized_amount: null });
  });

  it('ignores one-time fields on other types, refuses the VAT pair there, and keeps fields that are omitted', async () => {
    const ws = await makeWorkspace();
    const inst = await createPayment(ws, { type: 'installments', amount: 90, installment_count: 3, metadata: { a: 1 }, note: 'keep' });
    const res = await ws.api('PATCH', `/v1/payments/${inst.id}`, { amount: 5, status: 'failed', auto_generate: true, recurring_max_occurrences: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      total_amount: 90,
      arrangement_status: 'active',
      recurring_auto_generate: null,
      recurring_max_occurrences: null,
      metadata: { a: 1 },
      note: 'keep',
    });
    expectMessage(
      await ws.api('PATCH', `/v1/payments/${inst.id}`, { vat_mode: 'inclusive', vat_rate: 10 }),
      400,
      'vatMode/vatRate apply to recurring plans only',
    );
    const cleared = await ws.api('PATCH', `/v1/payments/${inst.id}`, { metadata: null });
    expect(cleared.body.metadata).toBeNull();
    const replaced = await ws.api('PATCH', `/v1/payments/${inst.id}`, { metadata: { b: 2 } });
    expect(replaced.body.metadata).toEqual({ b: 2 });
    expectMessage(
      await ws.api('PATCH', `/v1/payments/${inst.id}`, { metadata: { b: 'x'.repeat(2100) } }),
      400,
      'metadata exceeds 2048 bytes serialized',
    );
  });

  it('refuses on every type the recurring end conditions a recurring plan refuses, then ignores valid ones off a plan', async () => {
    const ws = await makeWorkspace();
    const plan = await createPayment(ws, { type: 'recurring', amount: 10 });
    const oneTime = await createPayment(ws, { amount: 10 });
    const inst = await createPayment(ws, { type: 'installments', amount: 90, installment_count: 3 });
    const refused: [Record<string, unknown>, string][] = [
      [{ recurring_max_occurrences: -1 }, 'recurringMaxOccurrences must be a whole number of at least 1'],
      [{ recurring_max_occurrences: 1.5 }, 'recurringMaxOccurrences must be a whole number of at least 1'],
      [{ recurring_end_at: 'not a date' }, 'recurringEndAt is not a valid date'],
      [{ recurring_end_at: '2001-01-01' }, 'recurringEndAt must be after the purchase date'],
    ];
    for (const p of [plan, oneTime, inst]) {
      for (const [body, message] of refused) expectMessage(await ws.api('PATCH', `/v1/payments/${p.id}`, body), 400, message);
    }
    const valid = { recurring_max_occurrences: 3, recurring_end_at: '2099-01-01', auto_generate: false };
    const ignored = await ws.api('PATCH', `/v1/payments/${oneTime.id}`, { ...valid, note: 'kept' });
    expect([ignored.status, ignored.body]).toEqual([
      200,
      expect.objectContaining({ note: 'kept', recurring_max_occurrences: null, recurring_end_at: null, recurring_auto_generate: null }),
    ]);
    // A create checks them the same way whatever its type.
    for (const [body, message] of refused)
      expectMessage(await ws.api('POST', '/v1/payments', { phone: freshPhone(), type: 'one_time', amount: 5, ...body }), 400, message);
    const created = await createPayment(ws, valid);
    expect([created.recurring_max_occurrences, created.recurring_end_at]).toEqual([null, null]);
  });

  it('applies the product title lock and detaches keeping the title', async () => {
    const ws = await makeWorkspace();
    const product = (await ws.api('POST', '/v1/products', { name: 'Silver', price: 10 })).body;
    const p = await createPayment(ws, { title: 'Own title' });
    const attached = await ws.api('PATCH', `/v1/payments/${p.id}`, { product_id: product.id, title: 'ignored' });
    expect(attached.body).toMatchObject({ product_id: product.id, title: 'Silver', total_amount: 10 });
    const ignored = await ws.api('PATCH', `/v1/payments/${p.id}`, { title: 'still ignored' });
    expect(ignored.body.title).toBe('Silver');
    const detached = await ws.api('PATCH', `/v1/payments/${p.id}`, { product_id: null });
    expect(detached.body).toMatchObject({ product_id: null, title: 'Silver' });
    expect((await ws.api('PATCH', `/v1/payments/${p.id}`, { title: 'New' })).body.title).toBe('New');
    expect((await ws.api('PATCH', `/v1/payments/${p.id}`, { product_id: crypto.randomUUID() })).body.error_code).toBe('INVALID_PRODUCT');
  });

  it('answers 404 and refuses unknown and read-only properties', async () => {
    const ws = await makeWorkspace();
    expectMessage(await ws.api('PATCH', `/v1/payments/${crypto.randomUUID()}`, { note: 'x' }), 404, 'Payment not found');
    const p = await createPayment(ws);
    for (const body of [
      { type: 'recurring' },
      { interval: 'weekly' },
      { installment_count: 3 },
      { purchase_date: '2026-01-01' },
      { contact_id: crypto.randomUUID() },
      { recurring_failure_count: 1 },
      { recurring_paused_at: null },
      { currency: 'EUR' },
    ]) {
      expect((await ws.api('PATCH', `/v1/payments/${p.id}`, body)).status, JSON.stringify(body)).toBe(400);
    }
  });
});

describe('GET /v1/payments', () => {
  it('filters by type and status, searches title and contact fields, joins the contact, omits entries, newest purchase first', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const a = await createPayment(ws, { title: 'Alpha lesson', purchase_date: '2026-01-01', phone, name: 'Searchable Sam' });
    const b = await createPayment(ws, {
      type: 'installments',
      installment_count: 2,
      amount: 10,
      purchase_date: '2026-03-01',
      email: 'find-me@example.com',
      phone: undefined,
    });
    const c = await createPayment(ws, { type: 'recurring', purchase_date: '2026-02-01', status: 'pending' });
    const all = await ws.api('GET', '/v1/payments');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 3, limit: 25, offset: 0 });
    expect(all.body.data.map((r: any) => r.id)).toEqual([b.id, c.id, a.id]);
    expect(all.body.data[0].entries).toBeUndefined();
    expect(all.body.data.find((r: any) => r.id === a.id)).toMatchObject({
      contact_name: 'Searchable Sam',
      contact_phone: phone,
      contact_email: null,
    });
    const ids = async (q: string) => (await ws.api('GET', `/v1/payments?${q}`)).body.data.map((r: any) => r.id);
    expect(await ids('type=installments')).toEqual([b.id]);
    expect(await ids('type=weird')).toHaveLength(3);
    expect(await ids('status=active')).toEqual([b.id, c.id]);
    expect(await ids('status=completed')).toEqual([a.id]);
    expect(await ids('status=nope')).toHaveLength(3);
    expect(await ids('search=ALPHA')).toEqual([a.id]);
    expect(await ids('search=sam')).toEqual([a.id]);
    // The total counts what the search matches, the contact's fields included.
    expect((await ws.api('GET', '/v1/payments?search=sam&status=completed')).body.total).toBe(1);
    expect((await ws.api('GET', '/v1/payments?status=active')).body.total).toBe(2);
    expect(await ids(`search=${encodeURIComponent(phone.slice(-6))}`)).toEqual([a.id]);
    expect(await ids('search=FIND-ME')).toEqual([b.id]);
    expect(await ids('limit=1&offset=1')).toEqual([c.id]);
    expect((await ws.api('GET', '/v1/payments?limit=1000')).body.limit).toBe(100);
    expectMessage(await ws.api('GET', '/v1/payments?limit=-1'), 400, 'Invalid limit: must be a non-negative integer');
    expectMessage(await ws.api('GET', '/v1/payments?offset=x'), 400, 'Invalid offset: must be a non-negative integer');
  });

  it('answers 404 for unknown and foreign payments', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const p = await createPayment(other);
    expectMessage(await ws.api('GET', `/v1/payments/${p.id}`), 404, 'Payment not found');
    expectMessage(await ws.api('GET', `/v1/payments/${crypto.randomUUID()}`), 404, 'Payment not found');
  });
});
