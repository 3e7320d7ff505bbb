import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { createOrder, freshPhone } from './helpers';
import { rowsOnShards } from '../support/db';
import { counted } from '../support/round-trips';

const tenItems = (i: number) => Array.from({ length: 10 }, (_, k) => ({ title: `Item ${i}.${k}`, unit_price: 9.99 + k, quantity: 1 + (k % 3) }));

describe('orders round trips', () => {
  it('POST /v1/orders with 10 items is 1 new (a new contact by phone or email included, paid too), 2 on replay; refunds 1; the list 1', async () => {
    const ws = await makeWorkspace();
    expect((await counted(ws, 'GET', '/v1/orders')).status).toBe(200); // warms the key cache
    const phone = freshPhone();
    const created = await counted(ws, 'POST', '/v1/orders', { phone, items: tenItems(1), external_reference: 'rt-1' });
    expect(created.status).toBe(201);
    expect(created.roundTrips).toBe(1);
    const replay = await counted(ws, 'POST', '/v1/orders', { phone, items: tenItems(2), external_reference: 'rt-1' });
    expect(replay.status).toBe(201);
    expect(replay.roundTrips).toBe(2);
    const paid = await counted(ws, 'POST', '/v1/orders', {
      email: `${crypto.randomUUID()}@example.com`,
      items: tenItems(3),
      financial_status: 'paid',
    });
    expect(paid.status).toBe(201);
    expect(paid.roundTrips).toBe(1);
    const refund = await counted(ws, 'POST', `/v1/orders/${paid.body.id}/refunds`, { amount: 0.01 });
    expect(refund.status).toBe(201);
    expect(refund.roundTrips).toBe(1);
    const o = await createOrder(ws);
    expect((await counted(ws, 'POST', `/v1/orders/${o.id}/mark-paid`, {})).roundTrips).toBe(2);
    expect((await counted(ws, 'POST', `/v1/orders/${o.id}/cancel`, {})).roundTrips).toBe(2);
    const list = await counted(ws, 'GET', '/v1/orders?status=paid&placed_from=2020-01-01');
    expect(list.status).toBe(200);
    expect(list.roundTrips).toBe(1);
    const got = await counted(ws, 'GET', `/v1/orders/${o.id}`);
    expect([got.roundTrips, got.statements]).toEqual([1, 1]); // the order with its contact, lines and refunds: one statement
  });

  it('a refund, mark-paid and cancel answer the order as it is afterwards, refunds in refunded_at order', async () => {
    const ws = await makeWorkspace();
    expect((await counted(ws, 'GET', '/v1/orders')).status).toBe(200); // warms the key cache
    const paid = await createOrder(ws, { items: tenItems(4), financial_status: 'paid' });
    const answers = [];
    for (const refunded_at of ['2026-05-01T10:00:00Z', '2026-04-01T00:00:00Z', undefined]) {
      const refund = await counted(ws, 'POST', `/v1/orders/${paid.id}/refunds`, { amount: 0.01, refunded_at });
      expect(refund.status).toBe(201);
      // One batch: the refund, the order, the mirrored ledger refund entry (which applies itself to the charge and the
      // payment) and its timeline row, the order's timeline row, the event, then the full order.
      expect([refund.roundTrips, refund.statements]).toEqual([1, 7]);
      answers.push(refund.body.order);
    }
    const read = (await ws.api('GET', `/v1/orders/${paid.id}`)).body;
    expect(answers.at(-1)).toEqual(read);
    // Each refund put both rows on the contact's timeline, data as written.
    const timeline = await rowsOnShards<{ type: string; data: string }>(
      'SELECT type, data FROM contact_activities WHERE contact_id = ? AND type IN (?, ?) ORDER BY type',
      paid.contact_id,
      'payment_refunded',
      'order_refunded',
    );
    expect(timeline.map((r) => r.type)).toEqual([...Array(3).fill('order_refunded'), ...Array(3).fill('payment_refunded')]);
    const refundIds = read.refunds.map((r: any) => r.id);
    expect(timeline.filter((r) => r.type === 'order_refunded').map((r) => JSON.parse(r.data))).toEqual(
      expect.arrayContaining(refundIds.map((refund_id: string) => ({ order_id: paid.id, refund_id, amount: 0.01, currency: paid.currency }))),
    );
    expect(JSON.parse(timeline[3].data)).toMatchObject({
      payment_id: expect.any(String),
      entry_id: expect.any(String),
      amount: 0.01,
      currency: paid.currency,
    });
    expect(read.refunds.map((r: any) => r.refunded_at.slice(0, 10))).toEqual(['2026-04-01', '2026-05-01', new Date().toISOString().slice(0, 10)]);
    expect(answers[1].refunds.map((r: any) => r.refunded_at.slice(0, 10))).toEqual(['2026-04-01', '2026-05-01']);

    const pending = await createOrder(ws, { items: tenItems(5) });
    const markedPaid = await counted(ws, 'POST', `/v1/orders/${pending.id}/mark-paid`, {});
    expect(markedPaid.body).toEqual((await ws.api('GET', `/v1/orders/${pending.id}`)).body);
    const cancelled = await counted(ws, 'POST', `/v1/orders/${pending.id}/cancel`, {});
    expect(cancelled.body).toEqual((await ws.api('GET', `/v1/orders/${pending.id}`)).body);
    expect(cancelled.statements).toBe(1 + 3); // read: the order with its lines and refunds; write: the order, the activity, the event
  });
});
