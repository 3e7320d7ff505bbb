import { describe, expect, it } from 'vitest';
import { rowsIn } from '../support/db';
import type { TestWorkspace } from '../support/harness';
import { contactOf, counted, warmWorkspace } from '../support/round-trips';
import { expectCode, freshPhone, orderEvents } from './helpers';

const lines = (n: number) =>
  Array.from({ length: n }, (_, k) => ({
    title: `Line ${k}`,
    unit_price: 10 + k,
    quantity: 1 + (k % 2),
    ...(k === 0 ? { discount_percent: 10 } : {}),
  }));

/** Every row an order create can leave, per table: what a create that wrote nothing must not change. */
async function footprint(ws: TestWorkspace): Promise<Record<string, number>> {
  const tables = ['orders', 'order_items', 'order_counters', 'payments', 'payment_entries', 'contact_activities', 'event_outbox'];
  const count = async (table: string) =>
    (await rowsIn<{ n: number }>(ws.id, `SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`, ws.id))[0].n;
  const counter = await rowsIn<{ last_number: number }>(ws.id, 'SELECT last_number FROM order_counters WHERE workspace_id = ?', ws.id);
  return {
    ...Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const))),
    last_number: counter[0]?.last_number ?? 0,
  };
}

describe('POST /v1/orders: a new order for a contact_id in one round trip', () => {
  it('creates a pending order in one round trip, every row written, the answer equal to its read', async () => {
    const ws = await warmWorkspace();
    const contactId = await contactOf(ws);
    const before = await footprint(ws);
    const res = await counted(ws, 'POST', '/v1/orders', {
      contact_id: contactId,
      items: lines(10),
      shipping_total: 4.95,
      coupon_codes: ['SPRING'],
      external_reference: 'web-1',
    });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(1);
    expect(res.body).toMatchObject({
      contact_id: contactId,
      order_number: 1,
      financial_status: 'pending',
      external_reference: 'web-1',
      item_count: 15,
      shipping_total: 4.95,
    });
    expect(res.body.items.map((i: { title: string }) => i.title)).toEqual(lines(10).map((l) => l.title));
    expect((await ws.api('GET', `/v1/orders/${res.body.id}`)).body).toEqual(res.body);
    expect(await footprint(ws)).toEqual({
      ...before,
      orders: 1,
      order_items: 10,
      order_counters: 1,
      contact_activities: before.contact_activities + 1,
      event_outbox: before.event_outbox + 1,
      last_number: 1,
    });
    const [created] = await orderEvents(ws.id);
    expect(created).toMatchObject({ type: 'order.created', data: { order_id: res.body.id, number: '1', total: res.body.total } });
  });

  it('a paid order records its payment and both events in the same round trip', async () => {
    const ws = await warmWorkspace();
    const contactId = await contactOf(ws);
    await counted(ws, 'POST', '/v1/orders', { contact_id: contactId, items: lines(1) });
    const res = await counted(ws, 'POST', '/v1/orders', { contact_id: contactId, items: lines(3), financial_status: 'paid' });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(1);
    expect(res.body).toMatchObject({ order_number: 2, financial_status: 'paid', payment_reference: `order:${res.body.id}` });
    // The workspace's only payment: the paid order's.
    const payment = (await ws.api('GET', '/v1/payments')).body.data;
    expect(payment).toHaveLength(1);
    expect(payment[0]).toMatchObject({ contact_id: contactId, type: 'one_time', total_amount: res.body.total });
    const events = (await orderEvents(ws.id)).filter((e) => e.data.order_id === res.body.id);
    expect(events.map((e) => [e.type, e.data.number])).toEqual([
      ['order.created', '2'],
      ['order.paid', '2'],
    ]);
  });

  it('a replay of an external_reference naming its contact by id: the create sent along writes nothing, the reads decide the replay', async () => {
    const ws = await warmWorkspace();
    const contactId = await contactOf(ws);
    const first = await ws.api('POST', '/v1/orders', { contact_id: contactId, items: lines(2), external_reference: 'web-2' });
    const before = await footprint(ws);
    const replay = await counted(ws, 'POST', '/v1/orders', { contact_id: contactId, items: lines(4), external_reference: 'web-2', note: 'again' });
    expect(replay.status).toBe(201);
    // The read batch carries a create guarded on the reference being free: it writes nothing, and the replay is a second round trip.
    expect(replay.roundTrips).toBe(2);
    expect(replay.body).toMatchObject({ id: first.body.id, order_number: 1, note: 'again' });
    expect(replay.body.items).toHaveLength(4);
    expect(replay.body).toEqual((await ws.api('GET', `/v1/orders/${first.body.id}`)).body);
    expect(await footprint(ws)).toEqual({ ...before, order_items: 4 });
  });

  it('an unknown contact_id answers 404 and writes nothing, not even a number', async () => {
    const ws = await warmWorkspace();
    await ws.api('POST', '/v1/orders', { contact_id: await contactOf(ws), items: lines(1) });
    const before = await footprint(ws);
    const res = await ws.api('POST', '/v1/orders', { contact_id: crypto.randomUUID(), items: lines(2) });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ message: 'Contact not found' });
    expect(await footprint(ws)).toEqual(before);
  });

  it('a deal of the same contact rides along; a deal of another contact answers 409 and writes nothing', async () => {
    const ws = await warmWorkspace();
    const [contactId, otherId] = [await contactOf(ws), await contactOf(ws)];
    const own = (await ws.api('POST', '/v1/deals', { title: 'Own', contact_id: contactId })).body;
    const other = (await ws.api('POST', '/v1/deals', { title: 'Other', contact_id: otherId })).body;
    const linked = await counted(ws, 'POST', '/v1/orders', { contact_id: contactId, deal_id: own.id, items: lines(1) });
    expect(linked.status).toBe(201);
    expect(linked.roundTrips).toBe(1);
    expect(linked.body.deal_id).toBe(own.id);
    const before = await footprint(ws);
    expectCode(await ws.api('POST', '/v1/orders', { contact_id: contactId, deal_id: other.id, items: lines(1) }), 409, 'ORDER_DEAL_CONTACT_MISMATCH');
    expectCode(
      await ws.api('POST', '/v1/orders', { contact_id: contactId, deal_id: crypto.randomUUID(), items: lines(1) }),
      404,
      'ORDER_DEAL_NOT_FOUND',
    );
    expect(await footprint(ws)).toEqual(before);
  });

  it('a new contact by phone is created with its order in one round trip; an existing one keeps two and nothing stray', async () => {
    const ws = await warmWorkspace();
    const phone = freshPhone();
    const fresh = await counted(ws, 'POST', '/v1/orders', { phone, name: 'Nova Lee', items: lines(2) });
    expect(fresh.status).toBe(201);
    expect(fresh.roundTrips).toBe(1);
    expect(fresh.body).toMatchObject({ contact_phone: phone, contact_name: 'Nova Lee', order_number: 1 });
    const contacts = await rowsIn(ws.id, 'SELECT id, name FROM contacts WHERE workspace_id = ?', ws.id);
    expect(contacts).toEqual([{ id: fresh.body.contact_id, name: 'Nova Lee' }]);
    const types = (await rowsIn<{ type: string }>(ws.id, 'SELECT type FROM event_outbox WHERE workspace_id = ? ORDER BY rowid', ws.id)).map(
      (e) => e.type,
    );
    expect(types).toEqual(['contact.created', 'order.created']);
    const before = await footprint(ws);
    const again = await counted(ws, 'POST', '/v1/orders', { phone, items: lines(1) });
    expect(again.roundTrips).toBe(2);
    expect(again.body).toMatchObject({ contact_id: fresh.body.contact_id, order_number: 2 });
    expect(await footprint(ws)).toEqual({
      ...before,
      orders: 2,
      order_items: 3,
      last_number: 2,
      contact_activities: before.contact_activities + 1,
      event_outbox: before.event_outbox + 1,
    });
    expect(await rowsIn(ws.id, 'SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toHaveLength(1);
  });

  it('a new contact is never created by an order its reads reject', async () => {
    const ws = await warmWorkspace();
    const synced = (await ws.api('POST', '/v1/orders', { contact_id: await contactOf(ws), items: lines(1) })).body;
    // A store-synced order under the reference: the create sent along with the reads writes nothing.
    await rowsIn(
      ws.id,
      "UPDATE orders SET external_reference = 'shop-1', store_connection_id = ?, platform = 'shopify', source = 'shopify' WHERE id = ?",
      crypto.randomUUID(),
      synced.id,
    );
    const phone = freshPhone();
    expectCode(await ws.api('POST', '/v1/orders', { phone, items: lines(1), external_reference: 'shop-1' }), 409, 'STORE_SYNCED_READ_ONLY');
    expect(await rowsIn(ws.id, 'SELECT id FROM contacts WHERE workspace_id = ? AND phone = ?', ws.id, phone)).toEqual([]);
  });

  it('a deal named with a phone reads first: only the reads know the contact the deal must belong to', async () => {
    const ws = await warmWorkspace();
    const phone = freshPhone();
    const deal = (await ws.api('POST', '/v1/deals', { title: 'Deal', phone })).body;
    const res = await counted(ws, 'POST', '/v1/orders', { phone, deal_id: deal.id, items: lines(1) });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(2);
    expect(res.body).toMatchObject({ contact_id: deal.contact_id, deal_id: deal.id });
  });

  it('lines naming a product read it first (two round trips) and take its price', async () => {
    const ws = await warmWorkspace();
    const product = (await ws.api('POST', '/v1/products', { name: 'Gold plan', sku: 'GOLD', price: 99 })).body;
    const res = await counted(ws, 'POST', '/v1/orders', { contact_id: await contactOf(ws), items: [{ product_sku: 'GOLD', quantity: 2 }] });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(2);
    expect(res.body.items[0]).toMatchObject({ product_id: product.id, title: 'Gold plan', unit_price: 99, line_total: 198 });
  });

  it('under an order cap a create reads first (two round trips) and the cap holds', async () => {
    const ws = await warmWorkspace({ caps: { orders: 1 } });
    const contactId = await contactOf(ws);
    const first = await counted(ws, 'POST', '/v1/orders', { contact_id: contactId, items: lines(1) });
    expect(first.status).toBe(201);
    expect(first.roundTrips).toBe(2);
    expectCode(await ws.api('POST', '/v1/orders', { contact_id: contactId, items: lines(1) }), 403, 'PLAN_LIMIT_EXCEEDED');
  });

  it('parallel creates give distinct gap-free numbers, and parallel creates of one reference one order', async () => {
    const ws = await warmWorkspace();
    const contactId = await contactOf(ws);
    const fresh = await Promise.all(Array.from({ length: 10 }, () => ws.api('POST', '/v1/orders', { contact_id: contactId, items: lines(2) })));
    expect(fresh.every((r) => r.status === 201)).toBe(true);
    expect(fresh.map((r) => r.body.order_number).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const same = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ws.api('POST', '/v1/orders', { contact_id: contactId, items: lines(1 + (i % 3)), external_reference: 'web-3' }),
      ),
    );
    expect(same.every((r) => r.status === 201)).toBe(true);
    expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
    expect(await footprint(ws)).toMatchObject({ orders: 11, last_number: 11 });
    expect((await orderEvents(ws.id)).filter((e) => e.type === 'order.created')).toHaveLength(11);
  });
});
