import { describe, expect, it } from 'vitest';
import { rowsIn, runOnShards } from '../support/db';
import { makeWorkspace } from '../support/harness';
import { createOrder, expectCode, expectMessage, freshPhone, orderEvents } from './helpers';

const paidOrder = (ws: Parameters<typeof createOrder>[0], total = 100, body: Record<string, unknown> = {}) =>
  createOrder(ws, { financial_status: 'paid', items: [{ title: 'Item', unit_price: total }], ...body });

const ledger = async (ws: { api: (m: string, p: string) => Promise<any> }, orderId: string) => {
  const p = (await ws.api('GET', '/v1/payments')).body.data.find((r: any) => r.external_reference === `order:${orderId}`);
  return (await ws.api('GET', `/v1/payments/${p.id}`)).body;
};

describe('POST /v1/orders/{id}/refunds', () => {
  it('partially then fully refunds, mirrors each refund into the payment ledger, fires order.refunded with the refund', async () => {
    const ws = await makeWorkspace();
    const o = await paidOrder(ws, 100);
    const first = await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 30, reason: ' damaged ', refunded_at: '2026-05-01T10:00:00Z' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.duplicate).toBe(false);
    expect(first.body.order).toMatchObject({
      financial_status: 'partially_refunded',
      refunded_total: 30,
      refunded_at: '2026-05-01T10:00:00.000Z',
      paid_at: o.paid_at,
    });
    expect(first.body.order.refunds).toEqual([
      expect.objectContaining({
        amount: 30,
        currency: 'USD',
        reason: 'damaged',
        refunded_at: '2026-05-01T10:00:00.000Z',
        external_refund_id: null,
        order_id: o.id,
      }),
    ]);
    expectMessage(
      await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 70.01 }),
      400,
      "Refund amount exceeds the order's remaining total (70.00)",
    );
    // An earlier refunded_at sorts first; refunded_at stays the latest instant.
    const second = await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 70, refunded_at: '2026-04-01T00:00:00Z' });
    expect(second.body.order).toMatchObject({ financial_status: 'refunded', refunded_total: 100, refunded_at: '2026-05-01T10:00:00.000Z' });
    expect(second.body.order.refunds.map((r: any) => r.amount)).toEqual([70, 30]);
    expectMessage(await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 1 }), 400, "Refund amount exceeds the order's remaining total (0.00)");

    const payment = await ledger(ws, o.id);
    expect(payment.entries.filter((e: any) => e.kind === 'refund').map((e: any) => e.amount)).toEqual([-30, -70]);
    expect(payment.arrangement_status).toBe('cancelled');
    const events = await orderEvents(ws.id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.paid', 'order.refunded', 'order.refunded']);
    expect(events[2].data).toMatchObject({
      financial_status: 'partially_refunded',
      refunded_total: 30,
      refund: { amount: 30, external_refund_id: null, reason: 'damaged', refunded_at: '2026-05-01T10:00:00.000Z' },
    });
    expect(events[1].data).not.toHaveProperty('refund');
  });

  it("order.refunded's data, computed inside the refund's batch, is the snapshot every order event carries, keys in the same order", async () => {
    const ws = await makeWorkspace();
    const o = await paidOrder(ws, 100.1, { coupon_codes: ['SPRING'], shipping_total: 4.95, discount_total: 0.05, note: 'gift' });
    const res = await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 12.34, external_refund_id: 're_snapshot', reason: 'late' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const read = (await ws.api('GET', `/v1/orders/${o.id}`)).body;
    expect(res.body.order).toEqual(read);
    const [, paid, refunded] = await orderEvents(ws.id);
    expect([paid.type, refunded.type]).toEqual(['order.paid', 'order.refunded']);
    expect(Object.keys(refunded.data)).toEqual([...Object.keys(paid.data), 'refund']);
    expect(refunded.data).toEqual({
      order_id: read.id,
      external_id: read.external_order_id,
      number: String(read.order_number),
      platform: read.platform,
      store_connection_id: null,
      financial_status: 'partially_refunded',
      fulfillment_status: read.fulfillment_status,
      currency: read.currency,
      total: 105,
      subtotal: 100.1,
      discount_total: 0.05,
      shipping_total: 4.95,
      tax_total: 0,
      refunded_total: 12.34,
      coupon_codes: ['SPRING'],
      item_count: 1,
      first_item_name: 'Item',
      placed_at: read.placed_at,
      paid_at: read.paid_at,
      cancelled_at: null,
      refunded_at: read.refunded_at,
      created_at: read.created_at,
      refund: { amount: 12.34, external_refund_id: 're_snapshot', reason: 'late', refunded_at: read.refunds[0].refunded_at },
    });
    // The mirrored ledger refund carries the order's number in its note.
    const entry = (await ledger(ws, o.id)).entries.find((e: any) => e.kind === 'refund');
    expect(entry).toMatchObject({ amount: -12.34, note: 'late' });
    const unnamed = await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 1 });
    expect(unnamed.status).toBe(201);
    const second = (await ledger(ws, o.id)).entries.filter((e: any) => e.kind === 'refund');
    expect(second.map((e: any) => e.note)).toEqual(['late', `Refund of order ${read.order_number}`]);
  });

  it('mirrors nothing into a payment whose charge is no longer refundable; the order refund still applies', async () => {
    const ws = await makeWorkspace();
    const o = await paidOrder(ws, 40);
    const payment = await ledger(ws, o.id);
    await ws.api('POST', `/v1/payments/${payment.id}/entries/${payment.entries[0].id}/mark`, { status: 'failed' });
    const res = await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 40 });
    expect(res.body.order).toMatchObject({ financial_status: 'refunded', refunded_total: 40 });
    expect((await ledger(ws, o.id)).entries.filter((e: any) => e.kind === 'refund')).toEqual([]);
  });

  it('answers every refund error', async () => {
    const ws = await makeWorkspace();
    const pending = await createOrder(ws);
    expectCode(await ws.api('POST', `/v1/orders/${pending.id}/refunds`, { amount: 1 }), 400, 'ORDER_NEVER_PAID');
    const o = await paidOrder(ws, 10);
    for (const amount of [0, -1, 0.001])
      expectMessage(await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount }), 400, 'Refund amount must be a positive number');
    expectMessage(
      await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 1e300 }),
      400,
      "Refund amount exceeds the order's remaining total (10.00)",
    );
    expectMessage(await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 1, refunded_at: 'later' }), 400, 'refundedAt is not a valid date');
    expectMessage(await ws.api('POST', `/v1/orders/${crypto.randomUUID()}/refunds`, { amount: 1 }), 404, 'Order not found');
    expect((await ws.api('POST', `/v1/orders/${o.id}/refunds`, {})).status).toBe(400);
    // Cancelled but paid: refundable.
    await ws.api('POST', `/v1/orders/${o.id}/cancel`, {});
    expect((await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 1 })).status).toBe(201);
  });

  it('is idempotent on external_refund_id (also in parallel); without it every call appends', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const o = await paidOrder(ws, 100);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 10, external_refund_id: 're_1' })),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(1);
    const dup = answers.find((a) => a.body.duplicate)!;
    expect(dup.body.order).toMatchObject({ refunded_total: 10 });
    expect(dup.body.order.refunds).toHaveLength(1);
    // The same id on a different amount still applies nothing.
    const again = await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 50, external_refund_id: 're_1' });
    expect(again.body).toMatchObject({ duplicate: true, order: { refunded_total: 10 } });
    // ... but its body is still checked as a body: an amount no order could hold is refused, as on a first request.
    for (const amount of [1e10, 0, -5]) {
      const impossible = await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount, external_refund_id: 're_1' });
      expect(impossible.status, `${amount}`).toBe(400);
    }
    expect((await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 1e10, external_refund_id: 're_1' })).body.message).toBe(
      "Refund amount exceeds the order's remaining total (90.00)",
    );
    await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 5 });
    await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 5 });
    const after = (await ws.api('GET', `/v1/orders/${o.id}`)).body;
    expect(after.refunds.map((r: any) => r.amount)).toEqual([10, 5, 5]);
    expect((await orderEvents(ws.id)).filter((e) => e.type === 'order.refunded')).toHaveLength(3);
  });

  it('never refunds past the total under parallel refunds; the ledger mirror matches', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const o = await paidOrder(ws, 100);
    const answers = await Promise.all(Array.from({ length: 10 }, () => ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 15 })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(6);
    for (const a of answers.filter((r) => r.status !== 201)) expectMessage(a, 400, "Refund amount exceeds the order's remaining total (10.00)");
    const [row] = await rowsIn(
      ws.id,
      'SELECT refunded_total_cents AS refunded, (SELECT sum(amount_cents) FROM order_refunds WHERE order_id = ?1) AS sum FROM orders WHERE id = ?1',
      o.id,
    );
    expect(row).toEqual({ refunded: 9000, sum: 9000 });
    const payment = await ledger(ws, o.id);
    expect(payment.entries.filter((e: any) => e.kind === 'refund').reduce((s: number, e: any) => s + e.amount, 0)).toBe(-90);
    expect((await orderEvents(ws.id)).filter((e) => e.type === 'order.refunded')).toHaveLength(6);
  });
});

describe('POST /v1/orders/{id}/mark-paid', () => {
  it('pending -> paid records a payment for the total; paid again is a no-op without side effects', async () => {
    const ws = await makeWorkspace();
    const o = await createOrder(ws, { items: [{ title: 'A', unit_price: 12.5, quantity: 2 }] });
    const res = await ws.api('POST', `/v1/orders/${o.id}/mark-paid`, {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ financial_status: 'paid', payment_reference: `order:${o.id}` });
    expect(res.body.paid_at).toBeTruthy();
    const payment = await ledger(ws, o.id);
    expect(payment).toMatchObject({ type: 'one_time', total_amount: 25, arrangement_status: 'completed', contact_id: o.contact_id });
    const again = await ws.api('POST', `/v1/orders/${o.id}/mark-paid`, {});
    expect(again.status).toBe(201);
    expect(again.body).toEqual(res.body);
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(1);
    expect((await orderEvents(ws.id)).map((e) => e.type)).toEqual(['order.created', 'order.paid']);
  });

  it('follows the transition table: refunded, partially refunded and voided answer ORDER_ILLEGAL_TRANSITION; a cancelled pending order may be paid', async () => {
    const ws = await makeWorkspace();
    const partial = await paidOrder(ws, 10);
    await ws.api('POST', `/v1/orders/${partial.id}/refunds`, { amount: 1 });
    expectCode(await ws.api('POST', `/v1/orders/${partial.id}/mark-paid`, {}), 409, 'ORDER_ILLEGAL_TRANSITION');
    await ws.api('POST', `/v1/orders/${partial.id}/refunds`, { amount: 9 });
    expectCode(await ws.api('POST', `/v1/orders/${partial.id}/mark-paid`, {}), 409, 'ORDER_ILLEGAL_TRANSITION');
    const voided = await createOrder(ws);
    await runOnShards("UPDATE orders SET financial_status = 'voided' WHERE id = ?", voided.id);
    expectCode(await ws.api('POST', `/v1/orders/${voided.id}/mark-paid`, {}), 409, 'ORDER_ILLEGAL_TRANSITION');
    const partiallyPaid = await createOrder(ws);
    await runOnShards("UPDATE orders SET financial_status = 'partially_paid' WHERE id = ?", partiallyPaid.id);
    expect((await ws.api('POST', `/v1/orders/${partiallyPaid.id}/mark-paid`, {})).body.financial_status).toBe('paid');
    const cancelled = await createOrder(ws);
    await ws.api('POST', `/v1/orders/${cancelled.id}/cancel`, {});
    const paid = await ws.api('POST', `/v1/orders/${cancelled.id}/mark-paid`, {});
    expect(paid.body).toMatchObject({ financial_status: 'paid' });
    expect(paid.body.cancelled_at).toBeTruthy();
    expectMessage(await ws.api('POST', `/v1/orders/${crypto.randomUUID()}/mark-paid`, {}), 404, 'Order not found');
  });

  it('links an existing payment by reference without rewriting it, with every link error', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const o = await createOrder(ws, { phone, items: [{ title: 'A', unit_price: 80 }] });
    const pay = (await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 50, phone, external_reference: 'pay-1' })).body;
    await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 5, phone: freshPhone(), external_reference: 'pay-other' });
    await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 5, phone, status: 'pending', external_reference: 'pay-pending' });
    await ws.api('POST', '/v1/payments', { type: 'recurring', amount: 5, phone, external_reference: 'pay-plan' });
    expectCode(await ws.api('POST', `/v1/orders/${o.id}/mark-paid`, { payment_reference: 'nope' }), 404, 'ORDER_PAYMENT_REFERENCE_NOT_FOUND');
    expectCode(await ws.api('POST', `/v1/orders/${o.id}/mark-paid`, { payment_reference: 'pay-other' }), 409, 'ORDER_PAYMENT_CONTACT_MISMATCH');
    expectCode(await ws.api('POST', `/v1/orders/${o.id}/mark-paid`, { payment_reference: 'pay-pending' }), 409, 'ORDER_PAYMENT_NOT_LINKABLE');
    expectCode(await ws.api('POST', `/v1/orders/${o.id}/mark-paid`, { payment_reference: 'pay-plan' }), 409, 'ORDER_PAYMENT_NOT_LINKABLE');
    const linked = await ws.api('POST', `/v1/orders/${o.id}/mark-paid`, { payment_reference: 'pay-1' });
    expect(linked.status).toBe(201);
    expect(linked.body).toMatchObject({ financial_status: 'paid', payment_reference: 'pay-1', total: 80 });
    expect((await ws.api('GET', `/v1/payments/${pay.id}`)).body).toMatchObject({
      total_amount: 50,
      entries: [expect.objectContaining({ amount: 50 })],
    });
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(4);
    // The same reference again is fine; another one is not.
    expect((await ws.api('POST', `/v1/orders/${o.id}/mark-paid`, { payment_reference: 'pay-1' })).status).toBe(201);
    expectCode(await ws.api('POST', `/v1/orders/${o.id}/mark-paid`, { payment_reference: 'pay-pending' }), 409, 'ORDER_PAYMENT_ALREADY_LINKED');
    // One payment backs one order.
    const second = await createOrder(ws, { phone });
    expectCode(await ws.api('POST', `/v1/orders/${second.id}/mark-paid`, { payment_reference: 'pay-1' }), 409, 'ORDER_PAYMENT_ALREADY_LINKED');
    // A refund mirrors into the linked payment only up to what its charge holds.
    const refund = await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 60 });
    expect(refund.body.order).toMatchObject({ refunded_total: 60, financial_status: 'partially_refunded' });
    const entries = (await ws.api('GET', `/v1/payments/${pay.id}`)).body.entries;
    expect(entries.filter((e: any) => e.kind === 'refund').map((e: any) => e.amount)).toEqual([-50]);
    expect((await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 20 })).body.order.financial_status).toBe('refunded');
  });

  it('pays exactly once under parallel calls', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const o = await createOrder(ws);
    const answers = await Promise.all(Array.from({ length: 10 }, () => ws.api('POST', `/v1/orders/${o.id}/mark-paid`, {})));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(1);
    expect((await orderEvents(ws.id)).filter((e) => e.type === 'order.paid')).toHaveLength(1);
  });
});

describe('POST /v1/orders/{id}/cancel', () => {
  it('stamps cancelled_at once, keeps the financial status, fires order.cancelled once (also in parallel)', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const o = await paidOrder(ws, 10);
    const answers = await Promise.all(Array.from({ length: 10 }, () => ws.api('POST', `/v1/orders/${o.id}/cancel`, {})));
    for (const a of answers) expect(a.status).toBe(201);
    expect(new Set(answers.map((a) => a.body.cancelled_at)).size).toBe(1);
    expect(answers[0].body).toMatchObject({ financial_status: 'paid' });
    const again = await ws.api('POST', `/v1/orders/${o.id}/cancel`, {});
    expect(again.body.cancelled_at).toBe(answers[0].body.cancelled_at);
    const cancelled = (await orderEvents(ws.id)).filter((e) => e.type === 'order.cancelled');
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0].data).toMatchObject({ cancelled_at: answers[0].body.cancelled_at, financial_status: 'paid' });
    expectMessage(await ws.api('POST', `/v1/orders/${crypto.randomUUID()}/cancel`, {}), 404, 'Order not found');
  });
});

describe('store-synced orders', () => {
  it('are read-only through the API (409 STORE_SYNCED_READ_ONLY); API orders never raise it', async () => {
    const ws = await makeWorkspace();
    const o = await createOrder(ws, { external_reference: 'store-ref', financial_status: 'paid' });
    expect(o).toMatchObject({ store_connection_id: null, store_domain: null, external_order_id: null, number: null });
    const api = await createOrder(ws);
    for (const [path, body] of [
      ['cancel', {}],
      ['mark-paid', {}],
      ['refunds', { amount: 1 }],
    ] as const) {
      expect((await ws.api('POST', `/v1/orders/${api.id}/${path}`, body)).status).not.toBe(409);
    }
    const store = crypto.randomUUID();
    await runOnShards(
      "UPDATE orders SET store_connection_id = ?, store_domain = 'shop.example', external_order_id = '5001', number = '#5001', platform = 'shopify', source = 'shopify' WHERE id = ?",
      store,
      o.id,
    );
    for (const [path, body] of [
      ['cancel', {}],
      ['mark-paid', {}],
      ['refunds', { amount: 1 }],
    ] as const) {
      expectCode(await ws.api('POST', `/v1/orders/${o.id}/${path}`, body), 409, 'STORE_SYNCED_READ_ONLY');
    }
    expectCode(
      await ws.api('POST', '/v1/orders', { phone: freshPhone(), external_reference: 'store-ref', note: 'x' }),
      409,
      'STORE_SYNCED_READ_ONLY',
    );
    const listed = await ws.api('GET', `/v1/orders?store_connection_id=${store}`);
    expect(listed.body.data.map((r: any) => r.id)).toEqual([o.id]);
    expect(listed.body.data[0]).toMatchObject({ number: '#5001', store_domain: 'shop.example' });
  });
});
