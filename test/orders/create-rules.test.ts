import { describe, expect, it } from 'vitest';
import { outbox } from '../events/support';
import { rowsIn } from '../support/db';
import { adminOk, makeWorkspace } from '../support/harness';
import { createOrder, expectCode, expectMessage, freshPhone, orderEvents } from './helpers';

describe('order items and products', () => {
  it('resolves product_id strictly and sku / external id tolerantly; derives title, sku and price', async () => {
    const ws = await makeWorkspace();
    const priced = (await ws.api('POST', '/v1/products', { name: 'Gold plan', sku: 'GOLD', external_id: 'ext-gold', price: 99 })).body;
    const dynamic = (await ws.api('POST', '/v1/products', { name: 'Consulting', sku: 'CONS', external_id: 'ext-cons' })).body;
    const inactive = (await ws.api('POST', '/v1/products', { name: 'Old', sku: 'OLD', external_id: 'ext-old', price: 1, is_active: false })).body;
    const phone = freshPhone();

    const o = await createOrder(ws, {
      phone,
      items: [
        { product_id: priced.id, title: 'ignored' },
        { product_sku: 'GOLD', quantity: 2 },
        { product_external_id: 'ext-gold', sku: 'SNAP', unit_price: 50 },
        { product_sku: 'NOPE', title: 'Literal line', unit_price: 3 },
        { product_external_id: 'nope', title: 'Other literal' },
        { product_id: dynamic.id, unit_price: 120 },
        { title: 'Free gift' },
      ],
    });
    expect(o.items.map((i: any) => [i.product_id, i.title, i.sku, i.unit_price, i.line_total])).toEqual([
      [priced.id, 'Gold plan', 'GOLD', 99, 99],
      [priced.id, 'Gold plan', 'GOLD', 99, 198],
      [priced.id, 'Gold plan', 'SNAP', 50, 50],
      [null, 'Literal line', 'NOPE', 3, 3],
      [null, 'Other literal', null, 0, 0],
      [dynamic.id, 'Consulting', 'CONS', 120, 120],
      [null, 'Free gift', null, 0, 0],
    ]);
    expect(o.subtotal).toBe(470);

    expectCode(await ws.api('POST', '/v1/orders', { phone, items: [{ product_id: crypto.randomUUID() }] }), 400, 'INVALID_PRODUCT');
    expectCode(await ws.api('POST', '/v1/orders', { phone, items: [{ product_id: inactive.id }] }), 400, 'PRODUCT_INACTIVE');
    expectCode(await ws.api('POST', '/v1/orders', { phone, items: [{ product_sku: 'OLD', title: 'x' }] }), 400, 'PRODUCT_INACTIVE');
    expectCode(await ws.api('POST', '/v1/orders', { phone, items: [{ product_external_id: 'ext-old', title: 'x' }] }), 400, 'PRODUCT_INACTIVE');
    expectCode(await ws.api('POST', '/v1/orders', { phone, items: [{ product_id: dynamic.id }] }), 400, 'ORDER_ITEM_PRICE_REQUIRED');
    expectMessage(await ws.api('POST', '/v1/orders', { phone, items: [{ product_sku: 'NOPE' }] }), 400, 'Order items require a title or product_id');
    // Another workspace's product is unknown here.
    const other = await makeWorkspace();
    const foreign = (await other.api('POST', '/v1/products', { name: 'Foreign', price: 1 })).body;
    expectCode(await ws.api('POST', '/v1/orders', { phone, items: [{ product_id: foreign.id }] }), 400, 'INVALID_PRODUCT');
    expect((await ws.api('GET', '/v1/orders')).body.total).toBe(1);
  });

  it('takes 200 items and reads them back in position order', async () => {
    const ws = await makeWorkspace();
    const items = Array.from({ length: 200 }, (_, i) => ({ title: `Line ${i} ${'x'.repeat(250)}`, unit_price: i / 100, quantity: 1 + (i % 3) / 2 }));
    const o = await createOrder(ws, { items });
    expect(o.items).toHaveLength(200);
    expect(o.items.map((i: any) => i.position)).toEqual(items.map((_, i) => i));
    expect(o.items[199].title).toBe(items[199].title);
    expect((await ws.api('GET', `/v1/orders/${o.id}`)).body.items).toHaveLength(200);
  });
});

describe('order numbers, caps and references', () => {
  it('numbers orders 1, 2, 3 per workspace, gap-free and distinct under 20 parallel creates', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const other = await makeWorkspace();
    expect((await createOrder(other)).order_number).toBe(1);
    expect((await createOrder(ws)).order_number).toBe(1);
    // A rejected create takes no number.
    expectCode(await ws.api('POST', '/v1/orders', { phone: freshPhone(), items: [{ product_id: crypto.randomUUID() }] }), 400, 'INVALID_PRODUCT');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => ws.api('POST', '/v1/orders', { phone: freshPhone(), items: [{ title: `P${i}`, unit_price: i }] })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const numbers = answers.map((a) => a.body.order_number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    expect((await createOrder(other)).order_number).toBe(2);
    // The event carries the number as a string.
    const created = await outbox(ws.id, 'order.created');
    expect(created.map((e) => e.data.number).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 21 }, (_, i) => String(i + 1)));
  });

  it('stops at the orders cap exactly under parallel creates with 403 PLAN_LIMIT_EXCEEDED', async () => {
    const ws = await makeWorkspace({ caps: { orders: 5 }, rate_limits: { per_key_per_minute: 1_000_000 } });
    await createOrder(ws);
    const answers = await Promise.all(Array.from({ length: 10 }, () => ws.api('POST', '/v1/orders', { phone: freshPhone(), items: [] })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(4);
    for (const a of answers.filter((r) => r.status !== 201)) expectCode(a, 403, 'PLAN_LIMIT_EXCEEDED');
    const [{ n, top }] = await rowsIn(ws.id, 'SELECT count(*) AS n, max(order_number) AS top FROM orders WHERE workspace_id = ?', ws.id);
    expect({ n, top }).toEqual({ n: 5, top: 5 });
    expect(await outbox(ws.id, 'order.created')).toHaveLength(5);
  });

  it('links a deal of the same contact only', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const deal = (await ws.api('POST', '/v1/deals', { title: 'Deal', phone })).body;
    const o = await createOrder(ws, { phone, deal_id: deal.id });
    expect(o.deal_id).toBe(deal.id);
    expectCode(await ws.api('POST', '/v1/orders', { phone, deal_id: crypto.randomUUID() }), 404, 'ORDER_DEAL_NOT_FOUND');
    expectCode(await ws.api('POST', '/v1/orders', { phone: freshPhone(), deal_id: deal.id }), 409, 'ORDER_DEAL_CONTACT_MISMATCH');
    const other = await makeWorkspace();
    expectCode(await other.api('POST', '/v1/orders', { phone, deal_id: deal.id }), 404, 'ORDER_DEAL_NOT_FOUND');
    expect((await ws.api('GET', '/v1/orders')).body.total).toBe(1);
  });

  it('answers 409 CONTACT_MERGE_REQUIRED creating nothing; a merge re-keys orders, items and refunds', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const byPhone = await createOrder(ws, { phone });
    const byEmail = await createOrder(ws, { phone: undefined, email: 'merge-order@example.com', financial_status: 'paid' });
    await ws.api('POST', `/v1/orders/${byEmail.id}/refunds`, { amount: 1 });
    const conflict = await ws.api('POST', '/v1/orders', { phone, email: 'merge-order@example.com', items: [{ title: 'x' }] });
    expectCode(conflict, 409, 'CONTACT_MERGE_REQUIRED');
    expect((await ws.api('GET', '/v1/orders')).body.total).toBe(2);
    await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    const moved = await ws.api('GET', `/v1/orders/${byEmail.id}`);
    expect(moved.body.contact_id).toBe(byPhone.contact_id);
    const rows = await rowsIn(
      ws.id,
      'SELECT (SELECT count(*) FROM order_items WHERE order_id = ?1 AND contact_id = ?2) AS items, (SELECT count(*) FROM order_refunds WHERE order_id = ?1 AND contact_id = ?2) AS refunds',
      byEmail.id,
      byPhone.contact_id,
    );
    expect(rows[0]).toEqual({ items: 1, refunds: 1 });
  });
});

describe('financial_status on create', () => {
  it('paid records a completed one-time payment for the total in the same batch and fires order.created then order.paid', async () => {
    const ws = await makeWorkspace();
    const o = await createOrder(ws, {
      financial_status: 'paid',
      items: [{ title: 'A', unit_price: 20, quantity: 3 }],
      shipping_total: 5,
      currency: 'EUR',
    });
    expect(o).toMatchObject({ financial_status: 'paid', total: 65, payment_reference: `order:${o.id}` });
    expect(o.paid_at).toBe(o.created_at);
    expect(o.payment_synced_at).toBe(o.created_at);
    const payments = (await ws.api('GET', '/v1/payments')).body.data;
    expect(payments).toHaveLength(1);
    expect(payments[0]).toMatchObject({
      type: 'one_time',
      total_amount: 65,
      currency: 'EUR',
      arrangement_status: 'completed',
      external_reference: `order:${o.id}`,
      contact_id: o.contact_id,
    });
    const events = await orderEvents(ws.id);
    expect(events.map((e) => e.type)).toEqual(['order.created', 'order.paid']);
    expect(events[1].data).toMatchObject({ order_id: o.id, financial_status: 'paid', number: '1', paid_at: o.paid_at, total: 65 });

    const pending = await createOrder(ws);
    expect(pending).toMatchObject({ financial_status: 'pending', payment_reference: null, paid_at: null });
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(1);
    expect((await orderEvents(ws.id)).map((e) => e.type)).toEqual(['order.created', 'order.paid', 'order.created']);
  });
});
