import { describe, expect, it } from 'vitest';
import { rowsIn } from '../support/db';
import { makeWorkspace } from '../support/harness';
import { createOrder, expectCode, expectMessage, freshPhone, orderEvents } from './helpers';

describe('POST /v1/orders replay on external_reference', () => {
  it('updates note, coupons, placed_at and deal always, money only while pending, never the status or the contact', async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const deal = (await ws.api('POST', '/v1/deals', { title: 'Deal', phone })).body;
    const first = await createOrder(ws, { phone, external_reference: 'ext-1', items: [{ title: 'A', unit_price: 10 }], note: 'one' });
    const replay = await ws.api('POST', '/v1/orders', {
      phone,
      external_reference: 'ext-1',
      financial_status: 'paid',
      items: [{ title: 'B', unit_price: 7, quantity: 3 }],
      shipping_total: 2,
      currency: 'gbp',
      note: 'two',
      coupon_codes: ['X'],
      placed_at: '2026-01-02T03:04:05Z',
      deal_id: deal.id,
    });
    expect(replay.status).toBe(201);
    expect(replay.body).not.toHaveProperty('duplicate');
    expect(replay.body).toMatchObject({
      id: first.id,
      order_number: first.order_number,
      created_at: first.created_at,
      financial_status: 'pending',
      subtotal: 21,
      total: 23,
      currency: 'GBP',
      item_count: 3,
      first_item_name: 'B',
      note: 'two',
      coupon_codes: ['X'],
      placed_at: '2026-01-02T03:04:05.000Z',
      deal_id: deal.id,
    });
    expect(replay.body.items.map((i: any) => i.title)).toEqual(['B']);
    expect((await ws.api('GET', '/v1/payments')).body.total).toBe(0);

    // Paid: money fields are skipped silently (bad items included), the rest still applies.
    await ws.api('POST', `/v1/orders/${first.id}/mark-paid`, {});
    const late = await ws.api('POST', '/v1/orders', {
      phone,
      external_reference: 'ext-1',
      items: [{ product_id: crypto.randomUUID() }],
      tax_total: 100,
      currency: 'usd',
      note: 'three',
      financial_status: 'pending',
    });
    expect(late.status, JSON.stringify(late.body)).toBe(201);
    expect(late.body).toMatchObject({ financial_status: 'paid', total: 23, currency: 'GBP', note: 'three', tax_total: 0 });
    expect(late.body.items.map((i: any) => i.title)).toEqual(['B']);

    // The contact is never re-pointed, but contact resolution still runs.
    const other = await ws.api('POST', '/v1/orders', { phone: freshPhone(), external_reference: 'ext-1', note: 'four' });
    expect(other.body).toMatchObject({ contact_id: first.contact_id, note: 'four' });
    expectMessage(
      await ws.api('POST', '/v1/orders', { external_reference: 'ext-1' }),
      400,
      'Provide contact_id, or a phone/email to attach the order to a contact',
    );
    expectMessage(await ws.api('POST', '/v1/orders', { contact_id: crypto.randomUUID(), external_reference: 'ext-1' }), 404, 'Contact not found');
    expectCode(
      await ws.api('POST', '/v1/orders', {
        phone: freshPhone(),
        external_reference: 'ext-1',
        deal_id: (await ws.api('POST', '/v1/deals', { title: 'D2', phone: freshPhone() })).body.id,
      }),
      409,
      'ORDER_DEAL_CONTACT_MISMATCH',
    );
    // No event for a replay.
    expect((await orderEvents(ws.id)).map((e) => e.type)).toEqual(['order.created', 'order.paid']);
  });

  it('is race-safe: parallel creates of one reference make one order and the losers replay', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const phone = freshPhone();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        ws.api('POST', '/v1/orders', { phone, external_reference: 'race', note: `n${i}`, items: [{ title: `T${i}`, unit_price: i }] }),
      ),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(201);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    const [{ n, numbers }] = await rowsIn(
      ws.id,
      'SELECT count(*) AS n, group_concat(order_number) AS numbers FROM orders WHERE workspace_id = ?',
      ws.id,
    );
    expect({ n, numbers }).toEqual({ n: 1, numbers: '1' });
    const final = (await ws.api('GET', `/v1/orders/${answers[0].body.id}`)).body;
    expect(final.items).toHaveLength(1);
    expect(final.subtotal).toBe(final.items[0].line_total);
    expect(await orderEvents(ws.id)).toHaveLength(1);
  });
});

describe('GET /v1/orders', () => {
  it('filters by every param, newest placed_at first, rows without items and refunds', async () => {
    const ws = await makeWorkspace({ timezone: 'Europe/Oslo' });
    const phone = freshPhone();
    const a = await createOrder(ws, { phone, placed_at: '2026-03-01T10:00:00Z', external_reference: 'ref-a' });
    const b = await createOrder(ws, { placed_at: '2026-03-02T23:30:00Z', financial_status: 'paid' });
    const c = await createOrder(ws, { phone, placed_at: '2026-03-03T00:00:00Z' });
    const list = async (query: string) => {
      const res = await ws.api('GET', `/v1/orders${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    const all = await list('');
    expect(all.data.map((o: any) => o.id)).toEqual([c.id, b.id, a.id]);
    expect(all).toMatchObject({ total: 3, limit: 25, offset: 0 });
    expect(all.data[0]).not.toHaveProperty('items');
    expect(all.data[0]).not.toHaveProperty('refunds');
    expect(all.data[0]).toMatchObject({ contact_phone: phone, order_number: 3 });
    expect((await list('?status=paid')).data.map((o: any) => o.id)).toEqual([b.id]);
    expect((await list('?status=bogus')).total).toBe(3);
    expect((await list(`?contact_id=${a.contact_id.toUpperCase()}`)).data.map((o: any) => o.id)).toEqual([c.id, a.id]);
    expect((await list('?contact_id=')).total).toBe(3);
    expect((await list('?source=api')).total).toBe(3);
    expect((await list('?source=manual')).total).toBe(0);
    expect((await list('?source=nonsense')).total).toBe(3);
    expect((await list(`?store_connection_id=${crypto.randomUUID()}`)).total).toBe(0);
    expect((await list('?external_reference=ref-a')).data.map((o: any) => o.id)).toEqual([a.id]);
    expect((await list('?external_reference=')).total).toBe(3);
    // Inclusive bounds; a date-only placed_to is the end of that day in the workspace zone (Oslo is UTC+1).
    expect((await list('?placed_from=2026-03-02T23:30:00Z')).data.map((o: any) => o.id)).toEqual([c.id, b.id]);
    expect((await list('?placed_to=2026-03-02T23:30:00Z')).data.map((o: any) => o.id)).toEqual([b.id, a.id]);
    expect((await list('?placed_to=2026-03-03')).data.map((o: any) => o.id)).toEqual([c.id, b.id, a.id]);
    expect((await list('?placed_from=2026-03-03')).data.map((o: any) => o.id)).toEqual([c.id, b.id]);
    expect((await list('?placed_from=&placed_to=')).total).toBe(3);
    expectMessage(await ws.api('GET', '/v1/orders?contact_id=nope'), 400, 'contact_id must be a UUID');
    expectMessage(await ws.api('GET', '/v1/orders?store_connection_id=nope'), 400, 'store_connection_id must be a UUID');
    expectMessage(await ws.api('GET', '/v1/orders?placed_from=soon'), 400, 'placed_from is not a valid date');
    expectMessage(await ws.api('GET', '/v1/orders?placed_to=2026-02-30'), 400, 'placed_to is not a valid date');
    expect((await ws.api('GET', '/v1/orders?search=x')).status).toBe(200);
  });

  it('never answers 400 for paging: malformed or zero limit is 25, others clamp to 1..100, bad offset is 0', async () => {
    const ws = await makeWorkspace();
    await createOrder(ws);
    await createOrder(ws);
    const cases: [string, number, number][] = [
      ['limit=abc', 25, 0],
      ['limit=0', 25, 0],
      ['limit=1.5', 25, 0],
      ['limit=', 25, 0],
      ['limit=-5', 1, 0],
      ['limit=1000', 100, 0],
      ['limit=1&offset=1', 1, 1],
      ['offset=-1', 25, 0],
      ['offset=x', 25, 0],
      ['offset=1.5', 25, 0],
    ];
    for (const [query, limit, offset] of cases) {
      const res = await ws.api('GET', `/v1/orders?${query}`);
      expect(res.status, query).toBe(200);
      expect({ limit: res.body.limit, offset: res.body.offset }, query).toEqual({ limit, offset });
    }
    expect((await ws.api('GET', '/v1/orders?limit=1&offset=1')).body.data).toHaveLength(1);
  });
});
