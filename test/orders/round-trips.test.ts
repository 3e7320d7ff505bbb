import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { createOrder, freshPhone } from './helpers';
import { counted } from '../support/round-trips';

const tenItems = (i: number) => Array.from({ length: 10 }, (_, k) => ({ title: `Item ${i}.${k}`, unit_price: 9.99 + k, quantity: 1 + (k % 3) }));

describe('orders round trips', () => {
  it('POST /v1/orders with 10 items is 1 new (a new contact by phone or email included, paid too), 2 on replay; refunds 2; the list 1', async () => {
    const ws = await makeWorkspace();
    expect((await counted(ws, 'GET', '/v1/orders')).status).toBe(200); // warms the key cache
    const phone = freshPhone();
    const created = await counted(ws, 'POST', '/v1/orders', { phone, items: tenItems(1), external_reference: 'rt-1' });
    expect(created.status).toBe(201);
    expect(created.roundTrips).toBe(1);
    const replay = await counted(ws, 'POST', '/v1/orders', { phone, items: tenItems(2), external_reference: 'rt-1' });
    expect(replay.status).toBe(201);
    expect(replay.roundTrips).toBe(2);
    const paid = await counted(ws, 'POST', '/v1/orders', { email: `${crypto.randomUUID()}@example.com`, items: tenItems(3), financial_status: 'paid' });
    expect(paid.status).toBe(201);
    expect(paid.roundTrips).toBe(1);
    const refund = await counted(ws, 'POST', `/v1/orders/${paid.body.id}/refunds`, { amount: 0.01 });
    expect(refund.status).toBe(201);
    expect(refund.roundTrips).toBe(2);
    const o = await createOrder(ws);
    expect((await counted(ws, 'POST', `/v1/orders/${o.id}/mark-paid`, {})).roundTrips).toBe(2);
    expect((await counted(ws, 'POST', `/v1/orders/${o.id}/cancel`, {})).roundTrips).toBe(2);
    const list = await counted(ws, 'GET', '/v1/orders?status=paid&placed_from=2020-01-01');
    expect(list.status).toBe(200);
    expect(list.roundTrips).toBe(1);
    expect((await counted(ws, 'GET', `/v1/orders/${o.id}`)).roundTrips).toBe(1);
  });
});
