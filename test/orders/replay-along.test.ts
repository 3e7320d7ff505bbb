import { describe, expect, it } from 'vitest';
import { runOnShards } from '../support/db';
import type { TestWorkspace } from '../support/harness';
import { counted, warmWorkspace } from '../support/round-trips';
import { expectCode, expectMessage, freshPhone } from './helpers';

const items = (n: number, price = 10) => Array.from({ length: n }, (_, k) => ({ title: `Line ${k}`, unit_price: price + k, quantity: 1.5 + k, discount_percent: k === 0 ? 12.5 : null }));

/** Two orders alike: the same contact (by phone), the same body, two references. */
async function twins(ws: TestWorkspace, body: Record<string, unknown> = {}) {
  const phone = freshPhone();
  const contact = (await ws.api('POST', '/v1/contacts', { phone })).body;
  const make = async (reference: string) => (await ws.api('POST', '/v1/orders', { contact_id: contact.id, external_reference: reference, items: items(2), ...body })).body;
  const suffix = crypto.randomUUID();
  return { phone, contact, along: await make(`along-${suffix}`), classic: await make(`classic-${suffix}`) };
}

/** An order's answer without what differs between two orders of one contact. */
const comparable = (o: any) => {
  const { id, order_number, external_reference, payment_reference, created_at, updated_at, items: lines, refunds, ...rest } = o;
  return { ...rest, items: lines.map(({ id: _, order_id, created_at: __, ...line }: any) => line), refunds };
};

describe('POST /v1/orders: a replay naming its contact by id rides along with the reads', () => {
  it('answers in one round trip what the two-round-trip replay (by phone) answers: lines, money, note, coupons, placed_at, currency, deal', async () => {
    const ws = await warmWorkspace();
    const { phone, contact, along, classic } = await twins(ws);
    const deal = (await ws.api('POST', '/v1/deals', { title: 'Deal', contact_id: contact.id })).body;
    const change = { items: items(3, 20), discount_total: 1.25, shipping_total: 4.95, tax_total: 2.1, currency: 'eur', coupon_codes: ['A', 'B'], note: '  hello ', placed_at: '2026-01-02T03:04:05Z', deal_id: deal.id };
    const a = await counted(ws, 'POST', '/v1/orders', { contact_id: contact.id, external_reference: along.external_reference, ...change });
    const c = await counted(ws, 'POST', '/v1/orders', { phone, external_reference: classic.external_reference, ...change });
    expect([a.status, c.status]).toEqual([201, 201]);
    expect([a.roundTrips, c.roundTrips]).toEqual([1, 2]);
    expect(comparable(a.body)).toEqual(comparable(c.body));
    expect(a.body).toMatchObject({ id: along.id, currency: 'EUR', note: 'hello', coupon_codes: ['A', 'B'], deal_id: deal.id, item_count: 8, shipping_total: 4.95 });
    expect(a.body.updated_at > along.updated_at).toBe(true);
    expect(a.body).toEqual((await ws.api('GET', `/v1/orders/${along.id}`)).body);
    // Fields left out keep their values; items left out keep the lines and recompute the total from the stored subtotal.
    const kept = await counted(ws, 'POST', '/v1/orders', { contact_id: contact.id, external_reference: along.external_reference, discount_total: 0 });
    expect(kept.roundTrips).toBe(1);
    expect(kept.body).toMatchObject({ note: 'hello', coupon_codes: ['A', 'B'], currency: 'EUR', discount_total: 0, subtotal: a.body.subtotal, total: Math.round((a.body.subtotal + 4.95 + 2.1) * 100) / 100 });
    expect(kept.body.items).toEqual(a.body.items);
    const cleared = await counted(ws, 'POST', '/v1/orders', { contact_id: contact.id, external_reference: along.external_reference, note: '  ', items: [] });
    expect(cleared.body).toMatchObject({ note: null, items: [], item_count: 0, first_item_name: null, subtotal: 0, total: 7.05 });
  });

  it('changes no money and no lines of an order that is no longer pending', async () => {
    const ws = await warmWorkspace();
    const { contact, along } = await twins(ws, { financial_status: 'paid' });
    const res = await counted(ws, 'POST', '/v1/orders', { contact_id: contact.id, external_reference: along.external_reference, items: items(5, 99), currency: 'EUR', shipping_total: 9, note: 'later' });
    expect(res.roundTrips).toBe(1);
    expect(comparable(res.body)).toEqual({ ...comparable(along), note: 'later' });
  });

  it('falls back to the reads, which answer each rule, writing nothing: a deal of another contact, an unknown contact, a store order, a total past the maximum', async () => {
    const ws = await warmWorkspace();
    const { contact, along } = await twins(ws);
    const ref = { contact_id: contact.id, external_reference: along.external_reference };
    const other = (await ws.api('POST', '/v1/contacts', { phone: freshPhone() })).body;
    const foreignDeal = (await ws.api('POST', '/v1/deals', { title: 'Theirs', contact_id: other.id })).body;
    expectCode(await ws.api('POST', '/v1/orders', { ...ref, deal_id: foreignDeal.id, note: 'x' }), 409, 'ORDER_DEAL_CONTACT_MISMATCH');
    expectMessage(await ws.api('POST', '/v1/orders', { ...ref, contact_id: crypto.randomUUID(), note: 'x' }), 404, 'Contact not found');
    expectMessage(await ws.api('POST', '/v1/orders', { ...ref, shipping_total: 9999999999, note: 'x' }), 400, 'The order total must be at most 9999999999');
    expect((await ws.api('GET', `/v1/orders/${along.id}`)).body).toEqual(along);
    await runOnShards("UPDATE orders SET store_connection_id = ?, platform = 'shopify', source = 'shopify' WHERE id = ?", crypto.randomUUID(), along.id);
    expectCode(await ws.api('POST', '/v1/orders', { ...ref, note: 'x' }), 409, 'STORE_SYNCED_READ_ONLY');
    expect((await ws.api('GET', `/v1/orders/${along.id}`)).body).toMatchObject({ note: null, updated_at: along.updated_at });
  });

  it('parallel replays each apply whole: the lines and money are exactly one replay\'s', async () => {
    const ws = await warmWorkspace();
    const { contact, along } = await twins(ws);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ws.api('POST', '/v1/orders', { contact_id: contact.id, external_reference: along.external_reference, items: items(1 + i, 10 * (i + 1)), note: `r${i}` })),
    );
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(201);
    const final = (await ws.api('GET', `/v1/orders/${along.id}`)).body;
    const winner = Number(final.note.slice(1));
    expect(final.items).toHaveLength(1 + winner);
    expect(final.items.map((l: any) => l.unit_price)).toEqual(items(1 + winner, 10 * (winner + 1)).map((l) => l.unit_price));
    expect(final.subtotal).toBe(Math.round(final.items.reduce((sum: number, l: any) => sum + l.line_total, 0) * 100) / 100);
    expect(answers.find((a) => a.body.note === final.note)!.body).toEqual(final);
  });
});
