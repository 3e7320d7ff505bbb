import { describe, expect, it } from 'vitest';
import { admin, makeWorkspace } from '../support/harness';
import { rowsIn } from '../support/db';
import { backdate, expectStatus, mint, openPage, pressPay, requestEvents } from './helpers';

const complete = (id: string) => admin('POST', `/payment-requests/${id}/complete`);

describe('paying a link', () => {
  it('moves pending to paid, stamps paid_at and records a completed one-time ledger payment in the same batch', async () => {
    const ws = await makeWorkspace({ currency: 'EUR' });
    const r = await mint(ws, { amount: 49.5, title: 'Seat' });
    const res = await complete(r.id);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({
      id: r.id,
      status: 'paid',
      paid_at: expect.any(String),
      contact_payment_id: expect.any(String),
      cancelled_at: null,
    });
    const payment = (await ws.api('GET', `/v1/payments/${res.body.contact_payment_id}`)).body;
    expect(payment).toMatchObject({
      contact_id: r.contact_id,
      type: 'one_time',
      total_amount: 49.5,
      currency: 'EUR',
      title: 'Seat',
      arrangement_status: 'completed',
      external_reference: `payment_request:${r.id}`,
      metadata: {
        payment_request_id: r.id,
        provider: 'sandbox',
        document: { provider: 'sandbox', id: `sbx_rcpt_${r.id}`, type: 'receipt', url: r.pay_url },
      },
    });
    expect(payment.entries).toMatchObject([{ status: 'completed', amount: 49.5, recognized_amount: 49.5 }]);
    const events = await requestEvents(ws.id, r.id);
    expect(events.map((e) => e.type)).toEqual(['payment_request.created', 'payment_request.paid']);
    expect(events[1].data).toMatchObject({ status: 'paid', paid_at: res.body.paid_at, contact_payment_id: res.body.contact_payment_id });
    // Read back.
    expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).body).toEqual(res.body);
  });

  it('a test_mode link records no ledger payment but still fires payment_request.paid', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws, { test_mode: true });
    const res = await complete(r.id);
    expect(res.body).toMatchObject({ status: 'paid', contact_payment_id: null, test_mode: true });
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(0);
    const events = await requestEvents(ws.id, r.id);
    expect(events.map((e) => e.type)).toEqual(['payment_request.created', 'payment_request.paid']);
    expect(events[1].data).toMatchObject({ test_mode: true, contact_payment_id: null });
  });

  it('exactly once: parallel completes pay once, record one ledger payment and fire one payment_request.paid', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    const answers = await Promise.all(Array.from({ length: 10 }, () => complete(r.id)));
    for (const a of answers) expectStatus(a, 200);
    const paidIds = new Set(answers.map((a) => a.body.contact_payment_id));
    expect(paidIds.size).toBe(1);
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(1);
    expect((await requestEvents(ws.id, r.id)).filter((e) => e.type === 'payment_request.paid')).toHaveLength(1);
  });

  it('exactly once: parallel Pay presses on the hosted page pay once', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    const answers = await Promise.all(Array.from({ length: 8 }, () => pressPay(r.pay_url)));
    for (const a of answers) expect(a.status).toBe(303);
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(1);
    expect((await requestEvents(ws.id, r.id)).filter((e) => e.type === 'payment_request.paid')).toHaveLength(1);
    expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).body.status).toBe('paid');
  });

  it('unknown ids answer 404 and malformed ones 400', async () => {
    expect((await complete('01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c')).body).toMatchObject({ statusCode: 404, message: 'Payment request not found' });
    expect((await complete('nope')).status).toBe(400);
  });
});

describe('cancel', () => {
  it('cancels a pending link: 201 with the record, cancelled_at, payment_request.cancelled', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    const res = await ws.api('POST', `/v1/payment-requests/${r.id}/cancel`);
    expectStatus(res, 201);
    expect(res.body).toMatchObject({ id: r.id, status: 'cancelled', cancelled_at: expect.any(String), paid_at: null });
    const events = await requestEvents(ws.id, r.id);
    expect(events.map((e) => e.type)).toEqual(['payment_request.created', 'payment_request.cancelled']);
    expect(events[1].data).toMatchObject({ status: 'cancelled', cancelled_at: res.body.cancelled_at });
    expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).body).toEqual(res.body);
  });

  it('only pending links: 409 payment_request_not_pending for cancelled, paid and expired', async () => {
    const ws = await makeWorkspace();
    const cancelled = await mint(ws);
    await ws.api('POST', `/v1/payment-requests/${cancelled.id}/cancel`, {});
    const paid = await mint(ws);
    await complete(paid.id);
    const expired = await mint(ws);
    await backdate(ws.id, expired.id);
    await openPage(expired.pay_url);
    for (const r of [cancelled, paid, expired]) {
      const res = await ws.api('POST', `/v1/payment-requests/${r.id}/cancel`, {});
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ statusCode: 409, error_code: 'payment_request_not_pending' });
    }
    expect((await ws.api('POST', '/v1/payment-requests/01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c/cancel', {})).status).toBe(404);
  });

  it('parallel cancels: one 201, the rest 409, one event', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    const answers = await Promise.all(Array.from({ length: 8 }, () => ws.api('POST', `/v1/payment-requests/${r.id}/cancel`, {})));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(7);
    expect((await requestEvents(ws.id, r.id)).filter((e) => e.type === 'payment_request.cancelled')).toHaveLength(1);
  });
});

describe('late payments', () => {
  it('a cancelled link that is then paid becomes paid and fires payment_request.paid (late completion)', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    const cancelled = (await ws.api('POST', `/v1/payment-requests/${r.id}/cancel`, {})).body;
    // The payer still had the page open and presses Pay.
    expect((await pressPay(r.pay_url)).status).toBe(303);
    const now = (await ws.api('GET', `/v1/payment-requests/${r.id}`)).body;
    expect(now).toMatchObject({
      status: 'paid',
      paid_at: expect.any(String),
      cancelled_at: cancelled.cancelled_at,
      contact_payment_id: expect.any(String),
    });
    expect((await requestEvents(ws.id, r.id)).map((e) => e.type)).toEqual([
      'payment_request.created',
      'payment_request.cancelled',
      'payment_request.paid',
    ]);
  });

  it('a provider payment for an expired link records it: the link becomes paid (the money was taken) and the provider gets a 2xx', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    await backdate(ws.id, r.id);
    expect((await openPage(r.pay_url)).body).toContain('expired');
    const res = await complete(r.id);
    expectStatus(res, 200);
    expect(res.body).toMatchObject({ status: 'paid', contact_payment_id: expect.any(String) });
    expect((await requestEvents(ws.id, r.id)).map((e) => e.type)).toEqual([
      'payment_request.created',
      'payment_request.expired',
      'payment_request.paid',
    ]);
  });

  it('the Pay button of a link past its expiry does not pay: the link expires and the page says so', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    const page = await openPage(r.pay_url);
    expect(page.body).toContain('<button');
    await backdate(ws.id, r.id);
    expect((await pressPay(r.pay_url)).status).toBe(303);
    expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).body).toMatchObject({ status: 'expired', paid_at: null });
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(0);
    expect(await rowsIn(ws.id, "SELECT id FROM event_outbox WHERE workspace_id = ?1 AND type = 'payment_request.expired'", ws.id)).toHaveLength(1);
  });
});
