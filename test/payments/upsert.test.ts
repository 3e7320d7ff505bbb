import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { createPayment, freshPhone } from './helpers';

describe('POST /v1/payments upsert by external_reference', () => {
  it("applies a one-time payment's mutable fields and never restructures it or re-points the contact", async () => {
    const ws = await makeWorkspace();
    const first = await createPayment(ws, {
      external_reference: 'ord-1',
      amount: 10,
      title: 'First',
      note: 'a',
      method: 'cash',
      metadata: { a: 1 },
      purchase_date: '2026-01-01',
      status: 'pending',
    });
    const again = await ws.api('POST', '/v1/payments', {
      type: 'installments',
      installment_count: 4,
      external_reference: 'ord-1',
      phone: freshPhone(),
      amount: 12.5,
      status: 'completed',
      title: 'Second',
      note: 'b',
      method: 'card',
      metadata: { b: 2 },
      purchase_date: '2026-05-05',
      interval: 'weekly',
    });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({
      id: first.id,
      duplicate: true,
      type: 'one_time',
      contact_id: first.contact_id,
      purchase_date: first.purchase_date,
      installment_count: null,
      recurring_interval: null,
      total_amount: 12.5,
      arrangement_status: 'completed',
      title: 'Second',
      note: 'b',
      method: 'card',
      metadata: { b: 2 },
    });
    expect(again.body.entries).toHaveLength(1);
    expect(again.body.entries[0]).toMatchObject({ amount: 12.5, status: 'completed', recognized_amount: 12.5 });
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(1);
  });

  it("applies a recurring plan's own fields (end conditions, generation, a full VAT pair) and ignores amount and status", async () => {
    const ws = await makeWorkspace();
    const plan = await createPayment(ws, { type: 'recurring', external_reference: 'sub-1', amount: 30, purchase_date: '2026-01-01' });
    const again = await ws.api('POST', '/v1/payments', {
      type: 'recurring',
      external_reference: 'sub-1',
      phone: freshPhone(),
      amount: 99,
      status: 'failed',
      auto_generate: false,
      recurring_max_occurrences: 12,
      vat_mode: 'inclusive',
      vat_rate: 21,
      interval: 'yearly',
    });
    expect(again.body).toMatchObject({
      id: plan.id,
      duplicate: true,
      total_amount: 30,
      recurring_interval: 'monthly',
      recurring_auto_generate: false,
      recurring_max_occurrences: 12,
      vat_mode: 'inclusive',
      vat_rate: 21,
      arrangement_status: 'active',
    });
    const shortened = await ws.api('POST', '/v1/payments', {
      type: 'recurring',
      external_reference: 'sub-1',
      phone: freshPhone(),
      amount: 30,
      recurring_max_occurrences: 1,
    });
    expect(shortened.body).toMatchObject({ arrangement_status: 'completed', recurring_next_due_at: null });
  });

  it('applies the product title lock on a match', async () => {
    const ws = await makeWorkspace();
    const product = (await ws.api('POST', '/v1/products', { name: 'Locked', price: 1 })).body;
    await createPayment(ws, { external_reference: 'prod-1', title: 'Free text' });
    const attached = await ws.api('POST', '/v1/payments', {
      type: 'one_time',
      amount: 1,
      phone: freshPhone(),
      external_reference: 'prod-1',
      product_id: product.id,
      title: 'ignored',
    });
    expect(attached.body).toMatchObject({ product_id: product.id, title: 'Locked' });
    const titled = await ws.api('POST', '/v1/payments', {
      type: 'one_time',
      amount: 1,
      phone: freshPhone(),
      external_reference: 'prod-1',
      title: 'still ignored',
    });
    expect(titled.body.title).toBe('Locked');
  });

  it('ends concurrent creates with one reference as one payment', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ws.api('POST', '/v1/payments', {
          type: 'one_time',
          amount: i + 1,
          email: 'race-pay@example.com',
          external_reference: 'race-ref',
          note: `n${i}`,
        }),
      ),
    );
    for (const r of answers) expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
    expect(answers.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    const list = await ws.api('GET', '/v1/payments');
    expect(list.body.total).toBe(1);
    const got = await ws.api('GET', `/v1/payments/${answers[0].body.id}`);
    expect(got.body.entries).toHaveLength(1);
  });
});
