import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace, uuidRe } from '../support/harness';
import { rowsOnShards } from '../support/db';
import { createPayment, expectMessage, freshPhone } from './helpers';

describe('POST /v1/payments', () => {
  it('records a one-time payment with its single entry, the contact and the timeline row', async () => {
    const ws = await makeWorkspace({ currency: 'eur' });
    const phone = freshPhone();
    const res = await ws.api('POST', '/v1/payments', {
      type: 'one_time',
      phone,
      name: 'Pia Payer',
      amount: 10.005,
      title: 'Lesson',
      method: 'cash',
      note: ' hi ',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      workspace_id: ws.id,
      type: 'one_time',
      title: 'Lesson',
      note: 'hi',
      currency: 'EUR',
      total_amount: 10.01,
      arrangement_status: 'completed',
      method: 'cash',
      recurring_interval: null,
      recurring_auto_generate: null,
      recurring_failure_count: 0,
      recurring_payment_method_id: null,
      vat_mode: null,
      vat_rate: null,
      installment_count: null,
      external_reference: null,
      source: 'api',
      metadata: null,
      duplicate: false,
    });
    expect(res.body.id).toMatch(uuidRe);
    expect(res.body.entries).toHaveLength(1);
    expect(res.body.entries[0]).toMatchObject({
      payment_id: res.body.id,
      contact_id: res.body.contact_id,
      sequence: 1,
      amount: 10.01,
      currency: 'EUR',
      status: 'completed',
      recognized_amount: 10.01,
      kind: 'charge',
      refunds_entry_id: null,
      provider_refund_ref: null,
      refund_idempotency_key: null,
      credit_document: null,
    });
    expect(res.body.entries[0].paid_at).toBe(res.body.purchase_date);
    expect(res.body.entries[0].due_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const contact = await ws.api('GET', `/v1/contacts/${res.body.contact_id}`);
    expect(contact.body).toMatchObject({ name: 'Pia Payer', phone });
    const timeline = await rowsOnShards(
      "SELECT type FROM contact_activities WHERE contact_id = ? AND json_extract(data, '$.payment_id') = ?",
      res.body.contact_id,
      res.body.id,
    );
    expect(timeline).toEqual([{ type: 'payment_recorded' }]);
    const got = await ws.api('GET', `/v1/payments/${res.body.id}`);
    expect(got.status).toBe(200);
    const { duplicate, ...rest } = res.body;
    expect(duplicate).toBe(false);
    expect(got.body).toEqual(rest);
  });

  it('maps the one-time status onto the header', async () => {
    const ws = await makeWorkspace();
    const cases = { completed: 'completed', pending: 'active', failed: 'cancelled', refunded: 'cancelled' } as const;
    for (const [status, header] of Object.entries(cases)) {
      const p = await createPayment(ws, { status });
      expect(p.arrangement_status, status).toBe(header);
      expect(p.entries[0].status).toBe(status);
      expect(p.entries[0].recognized_amount).toBe(status === 'completed' ? 10 : null);
    }
  });

  it('resolves contacts like deals: contact_id wins, phone then email, 404 for unknown or foreign ids, the no-reference message', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const c = (await ws.api('POST', '/v1/contacts', { email: 'known@example.com', name: 'Known' })).body;
    const foreign = (await other.api('POST', '/v1/contacts', { email: 'foreign@example.com' })).body;
    const p = await createPayment(ws, { contact_id: c.id.toUpperCase(), phone: freshPhone() });
    expect(p.contact_id).toBe(c.id);
    expect((await createPayment(ws, { phone: undefined, email: 'KNOWN@example.com' })).contact_id).toBe(c.id);
    expectMessage(await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 1, contact_id: foreign.id }), 404, 'Contact not found');
    expectMessage(await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 1, contact_id: crypto.randomUUID() }), 404, 'Contact not found');
    expectMessage(
      await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 1 }),
      400,
      'Provide contact_id, or a phone/email to attach the payment to a contact',
    );
  });

  it('answers 409 CONTACT_MERGE_REQUIRED writing nothing, and a merge moves payments and entries', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const byPhone = await createPayment(ws, { phone });
    const byEmail = await createPayment(ws, { phone: undefined, email: 'merge-pay@example.com' });
    const conflict = await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 5, phone, email: 'merge-pay@example.com' });
    expect(conflict.status).toBe(409);
    expect(conflict.body).toMatchObject({ error_code: 'CONTACT_MERGE_REQUIRED' });
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(2);
    await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    const moved = await ws.api('GET', `/v1/payments/${byEmail.id}`);
    expect(moved.body.contact_id).toBe(byPhone.contact_id);
    expect(moved.body.entries[0].contact_id).toBe(byPhone.contact_id);
  });

  it('resolves products by id, sku or external id; locks the title; never substitutes the price', async () => {
    const ws = await makeWorkspace();
    const product = (await ws.api('POST', '/v1/products', { name: 'Gold plan', sku: 'GOLD', external_id: 'ext-gold', price: 99 })).body;
    for (const ref of [{ product_id: product.id }, { product_sku: 'GOLD' }, { product_external_id: 'ext-gold' }]) {
      const p = await createPayment(ws, { ...ref, title: 'ignored', amount: 5 });
      expect(p).toMatchObject({ product_id: product.id, title: 'Gold plan', total_amount: 5 });
    }
    const missing = await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 1, phone: freshPhone(), product_sku: 'NOPE' });
    expect(missing.status).toBe(400);
    expect(missing.body.error_code).toBe('INVALID_PRODUCT');
    await ws.api('PATCH', `/v1/products/${product.id}`, { is_active: false });
    const inactive = await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 1, phone: freshPhone(), product_id: product.id });
    expect(inactive.status).toBe(400);
    expect(inactive.body.error_code).toBe('PRODUCT_INACTIVE');
  });

  it('answers every create message exactly', async () => {
    const ws = await makeWorkspace();
    const base = { type: 'one_time', amount: 1, phone: freshPhone() };
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'subscription' }, 'Invalid payment type'],
      [{ amount: -1 }, 'amount must be a non-negative number'],
      [{ amount: 10_000_000_000 }, 'amount must be at most 9999999999'],
      [{ type: 'installments' }, 'installmentCount must be at least 2 for an installment deal'],
      [{ type: 'installments', installment_count: 1 }, 'installmentCount must be at least 2 for an installment deal'],
      [{ type: 'installments', installment_count: 361 }, 'installmentCount must be at most 360'],
      [{ purchase_date: 'yesterday' }, 'purchaseDate is not a valid date'],
      [{ purchase_date: '2026-02-30' }, 'purchaseDate is not a valid date'],
      [{ type: 'recurring', recurring_end_at: 'never' }, 'recurringEndAt is not a valid date'],
      [{ type: 'recurring', purchase_date: '2026-03-01', recurring_end_at: '2026-02-01' }, 'recurringEndAt must be after the purchase date'],
      [{ type: 'recurring', recurring_max_occurrences: 0 }, 'recurringMaxOccurrences must be a whole number of at least 1'],
      [{ type: 'recurring', recurring_max_occurrences: 1.5 }, 'recurringMaxOccurrences must be a whole number of at least 1'],
      [{ vat_mode: 'inclusive', vat_rate: 20 }, 'vatMode/vatRate apply to recurring plans only'],
      [{ type: 'installments', installment_count: 3, vat_rate: 20 }, 'vatMode/vatRate apply to recurring plans only'],
      [{ type: 'recurring', vat_mode: 'inclusive' }, 'vat_mode and vat_rate must be provided together'],
      [{ type: 'recurring', vat_rate: 20 }, 'vat_mode and vat_rate must be provided together'],
      [{ metadata: { blob: 'x'.repeat(2040) } }, 'metadata exceeds 2048 bytes serialized'],
      [{ metadata: { blob: 'é'.repeat(1020) } }, 'metadata exceeds 2048 bytes serialized'],
    ];
    for (const [body, message] of cases) expectMessage(await ws.api('POST', '/v1/payments', { ...base, ...body }), 400, message);
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(0);
  });

  it('validates field types, bounds and enums, and refuses unknown and read-only properties', async () => {
    const ws = await makeWorkspace();
    const base = { type: 'one_time', amount: 1, phone: freshPhone() };
    const bad = [
      { amount: '5' },
      { title: 'x'.repeat(201) },
      { note: 'n'.repeat(1001) },
      { currency: 'EURO' },
      { method: 'cheque' },
      { status: 'done' },
      { interval: 'daily' },
      { auto_generate: 'yes' },
      { record_first_payment: 1 },
      { vat_mode: 'gross', vat_rate: 1, type: 'recurring' },
      { installment_count: '3' },
      { external_reference: 'r'.repeat(256) },
      { metadata: [1] },
      { phone: '1'.repeat(33) },
      { email: 'not-an-email' },
      { name: 'n'.repeat(201) },
      { product_sku: 's'.repeat(121) },
      { product_external_id: 'e'.repeat(256) },
      { contact_id: 'nope' },
      { extra: 1 },
      { recurring_failure_count: 0 },
      { recurring_payment_method_id: 'pm_1' },
      { recurring_next_retry_at: null },
      { arrangement_status: 'active' },
    ];
    for (const body of bad) {
      const res = await ws.api('POST', '/v1/payments', { ...base, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const ok = await createPayment(ws, { amount: 9999999999, currency: 'gbp', metadata: { a: 'x'.repeat(2030) } });
    expect(ok).toMatchObject({ total_amount: 9999999999, currency: 'GBP' });
    const zero = await createPayment(ws, { amount: 0 });
    expect(zero.total_amount).toBe(0);
  });

  it('takes date-only purchase dates as the start of that day in the workspace zone, east and west of UTC', async () => {
    const east = await makeWorkspace({ timezone: 'Asia/Tokyo' });
    const west = await makeWorkspace({ timezone: 'America/New_York' });
    expect((await createPayment(east, { purchase_date: '2026-03-10' })).purchase_date).toBe('2026-03-09T15:00:00.000Z');
    const w = await createPayment(west, { purchase_date: '2026-03-10' });
    expect(w.purchase_date).toBe('2026-03-10T04:00:00.000Z');
    expect(w.entries[0].due_date).toBe('2026-03-10');
    expect((await createPayment(west, { purchase_date: '2026-01-10T12:30:00+02:00' })).purchase_date).toBe('2026-01-10T10:30:00.000Z');
    const now = Date.now();
    const d = Date.parse((await createPayment(west)).purchase_date);
    expect(Math.abs(d - now)).toBeLessThan(60_000);
  });

  it('splits installments in cents with the remainder first, monthly due dates clamped to month ends', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { type: 'installments', amount: 100, installment_count: 3, purchase_date: '2026-01-31' });
    expect(p).toMatchObject({ type: 'installments', installment_count: 3, total_amount: 100, arrangement_status: 'active' });
    expect(p.entries.map((e: any) => [e.sequence, e.amount, e.due_date, e.status, e.recognized_amount])).toEqual([
      [1, 33.34, '2026-01-31', 'pending', 33.34],
      [2, 33.33, '2026-02-28', 'pending', 33.33],
      [3, 33.33, '2026-03-31', 'pending', 33.33],
    ]);
    expect(p.entries.every((e: any) => e.recognized_at !== null)).toBe(true);
    const big = await createPayment(ws, { type: 'installments', amount: 1000, installment_count: 360, purchase_date: '2024-02-29' });
    expect(big.entries).toHaveLength(360);
    expect(big.entries.reduce((s: number, e: any) => s + Math.round(e.amount * 100), 0)).toBe(100000);
    expect(big.entries[12].due_date).toBe('2025-02-28');
    expect(big.entries[359].sequence).toBe(360);
  });

  it('stores metadata within 2048 UTF-8 bytes', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { metadata: { order: 7, nested: { ok: true } } });
    expect(p.metadata).toEqual({ order: 7, nested: { ok: true } });
  });
});
