import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { createOrder, expectMessage, freshPhone } from './helpers';

describe('POST /v1/orders', () => {
  it('computes the money on the server and answers the full order', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('POST', '/v1/orders', {
      email: 'buyer@example.com',
      name: 'Bo Buyer',
      currency: 'eur',
      items: [
        { title: 'Beans', sku: 'B1', unit_price: 24.9, quantity: 2 },
        { title: 'Grinder', unit_price: 129, discount_percent: 10 },
        { title: 'Sample', unit_price: 0.333, quantity: 1.5, discount_percent: 12.5 },
      ],
      discount_total: 5,
      shipping_total: 4.95,
      tax_total: 1.1,
      coupon_codes: ['WELCOME'],
      note: '  ring twice ',
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const o = res.body;
    // 49.80 + 116.10 + round2(1.5 * 0.33 * 0.875 = 0.433125) 0.43
    expect(o.items.map((i: any) => i.line_total)).toEqual([49.8, 116.1, 0.43]);
    expect(o).toMatchObject({
      subtotal: 166.33,
      total: 167.38,
      discount_total: 5,
      shipping_total: 4.95,
      tax_total: 1.1,
      refunded_total: 0,
      item_count: 5, // 2 + 1 + 1.5 = 4.5 rounds half-up
      first_item_name: 'Beans',
      currency: 'EUR',
      financial_status: 'pending',
      fulfillment_status: 'unfulfilled',
      platform: 'api',
      source: 'api',
      number: null,
      store_connection_id: null,
      store_domain: null,
      external_order_id: null,
      external_updated_at: null,
      payment_reference: null,
      paid_at: null,
      note: 'ring twice',
      coupon_codes: ['WELCOME'],
      contact_email: 'buyer@example.com',
      contact_name: 'Bo Buyer',
      metadata: null,
      created_by: null,
      refunds: [],
    });
    expect(o).not.toHaveProperty('duplicate');
    expect(o.items[2]).toMatchObject({
      position: 2,
      unit_price: 0.33,
      quantity: 1.5,
      discount_percent: 12.5,
      product_id: null,
      external_product_id: null,
      sku: null,
    });
    const read = await ws.api('GET', `/v1/orders/${o.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(o);
  });

  it('reads every decimal back exactly as given: lines travel in the one read of an order as JSON, a REAL with all its digits', async () => {
    const ws = await makeWorkspace();
    const quantities = [0.1 + 0.2, 1 / 3, 999999.9999999999, 5e-324 + 0.000001];
    const o = await createOrder(ws, {
      items: quantities.map((quantity, i) => ({ title: `Line ${i}`, unit_price: 1, quantity, discount_percent: 100 / 3 + i })),
    });
    const read = await ws.api('GET', `/v1/orders/${o.id}`);
    expect(read.body.items.map((i: any) => i.quantity)).toEqual(quantities);
    expect(read.body.items.map((i: any) => i.discount_percent)).toEqual(quantities.map((_, i) => 100 / 3 + i));
    expect(read.body.items.map((i: any) => i.position)).toEqual([0, 1, 2, 3]);
    expect(read.body).toEqual(o);
  });

  it('never trusts client totals: an order discount above the subtotal floors the total at 0', async () => {
    const ws = await makeWorkspace();
    const o = await createOrder(ws, { items: [{ title: 'A', unit_price: 3 }], discount_total: 10, shipping_total: 2 });
    expect(o).toMatchObject({ subtotal: 3, total: 0 });
    const unknown = await ws.api('POST', '/v1/orders', { phone: freshPhone(), items: [], total: 99 });
    expectMessage(unknown, 400, ['property total should not exist'] as any);
  });

  it('answers the contact and validation errors with the documented messages', async () => {
    const ws = await makeWorkspace();
    expectMessage(await ws.api('POST', '/v1/orders', { items: [] }), 400, 'Provide contact_id, or a phone/email to attach the order to a contact');
    expectMessage(await ws.api('POST', '/v1/orders', { contact_id: crypto.randomUUID() }), 404, 'Contact not found');
    const phone = freshPhone();
    expectMessage(await ws.api('POST', '/v1/orders', { phone, items: [{ unit_price: 1 }] }), 400, 'Order items require a title or product_id');
    expectMessage(await ws.api('POST', '/v1/orders', { phone, placed_at: 'yesterday' }), 400, 'placed_at is not a valid date');
    expectMessage(await ws.api('POST', '/v1/orders', { phone, discount_total: -1 }), 400, 'discount_total must be a non-negative number');
    expectMessage(await ws.api('POST', '/v1/orders', { phone, shipping_total: -0.01 }), 400, 'shipping_total must be a non-negative number');
    expectMessage(await ws.api('POST', '/v1/orders', { phone, tax_total: -3 }), 400, 'tax_total must be a non-negative number');
    expectMessage(
      await ws.api('POST', '/v1/orders', { phone, items: [{ title: 'x', quantity: 0 }] }),
      400,
      'items[0].quantity must be a positive number',
    );
    expectMessage(
      await ws.api('POST', '/v1/orders', { phone, items: [{ title: 'x', discount_percent: 101 }] }),
      400,
      'items[0].discount_percent must be between 0 and 100',
    );
    expectMessage(
      await ws.api('POST', '/v1/orders', { phone, items: [{ title: 'x', unit_price: -1 }] }),
      400,
      'items[0].unit_price must be a non-negative number',
    );
    const tooMany = await ws.api('POST', '/v1/orders', { phone, items: Array.from({ length: 201 }, () => ({ title: 'x' })) });
    expect(tooMany.status).toBe(400);
    expect((await ws.api('GET', '/v1/orders')).body.total).toBe(0);
  });

  it('bounds quantities and totals, and reads date-only placed_at in the workspace zone', async () => {
    const ws = await makeWorkspace({ timezone: 'America/New_York' });
    const phone = freshPhone();
    expectMessage(
      await ws.api('POST', '/v1/orders', { phone, items: [{ title: 'x', quantity: 1_000_001 }] }),
      400,
      'items[0].quantity must be at most 1000000',
    );
    expectMessage(
      await ws.api('POST', '/v1/orders', { phone, items: [{ title: 'x', quantity: 2, unit_price: 9999999999 }] }),
      400,
      'items[0]: line_total must be at most 9999999999',
    );
    expectMessage(
      await ws.api('POST', '/v1/orders', { phone, items: [{ title: 'x', unit_price: 9999999999 }], shipping_total: 1 }),
      400,
      'The order total must be at most 9999999999',
    );
    expectMessage(await ws.api('POST', '/v1/orders', { phone, tax_total: 1e11 }), 400, 'tax_total must be at most 9999999999');
    const o = await createOrder(ws, { phone, placed_at: '2026-07-04', items: [{ title: 'x', quantity: 1_000_000, unit_price: 0.01 }] });
    expect(o).toMatchObject({ placed_at: '2026-07-04T04:00:00.000Z', item_count: 1_000_000, total: 10000 });
  });
});
