import { describe, expect, it } from 'vitest';
import { rowsIn } from '../support/db';
import type { TestWorkspace } from '../support/harness';
import { contactOf, counted, warmWorkspace } from '../support/round-trips';

/** Every row a payment create can leave, per table: what a create that wrote nothing must not change. */
async function footprint(ws: TestWorkspace): Promise<Record<string, number>> {
  const tables = ['payments', 'payment_entries', 'contact_activities'];
  const count = async (table: string) =>
    (await rowsIn<{ n: number }>(ws.id, `SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`, ws.id))[0].n;
  return Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
}

describe('POST /v1/payments: a new payment for a contact_id in one round trip', () => {
  it('records a one-time payment in one round trip, every row written, the answer equal to its read', async () => {
    const ws = await warmWorkspace();
    const contactId = await contactOf(ws);
    const before = await footprint(ws);
    const res = await counted(ws, 'POST', '/v1/payments', {
      type: 'one_time',
      amount: 49.5,
      title: 'Lesson',
      contact_id: contactId,
      external_reference: 'pos-1',
    });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(1);
    expect(res.body).toMatchObject({ contact_id: contactId, type: 'one_time', total_amount: 49.5, external_reference: 'pos-1', duplicate: false });
    const { duplicate: _, ...answer } = res.body;
    expect((await ws.api('GET', `/v1/payments/${res.body.id}`)).body).toEqual(answer);
    expect(await footprint(ws)).toEqual({ payments: 1, payment_entries: 1, contact_activities: before.contact_activities + 1 });
  });

  it('an installment plan writes every entry in the same round trip', async () => {
    const ws = await warmWorkspace();
    const res = await counted(ws, 'POST', '/v1/payments', {
      type: 'installments',
      amount: 1200,
      installment_count: 12,
      contact_id: await contactOf(ws),
    });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(1);
    expect(res.body.entries).toHaveLength(12);
    expect(await footprint(ws)).toMatchObject({ payments: 1, payment_entries: 12 });
  });

  it('an external_reference already held updates that payment in two round trips and the create that rode along wrote nothing', async () => {
    const ws = await warmWorkspace();
    const contactId = await contactOf(ws);
    const first = await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 10, contact_id: contactId, external_reference: 'pos-2' });
    const before = await footprint(ws);
    const again = await counted(ws, 'POST', '/v1/payments', {
      type: 'one_time',
      amount: 10,
      contact_id: contactId,
      external_reference: 'pos-2',
      note: 'again',
    });
    expect(again.status).toBe(201);
    expect(again.roundTrips).toBe(2);
    expect(again.body).toMatchObject({ id: first.body.id, note: 'again', duplicate: true });
    expect((await footprint(ws)).payments).toBe(before.payments);
    expect((await footprint(ws)).payment_entries).toBe(before.payment_entries);
  });

  it('an unknown contact_id answers 404 and writes nothing', async () => {
    const ws = await warmWorkspace();
    const before = await footprint(ws);
    const res = await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 10, contact_id: crypto.randomUUID() });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ message: 'Contact not found' });
    expect(await footprint(ws)).toEqual(before);
  });

  it('a new contact by email is created with its payment in one round trip, never along with an update of a held reference', async () => {
    const ws = await warmWorkspace();
    const email = `${crypto.randomUUID()}@example.com`;
    const fresh = await counted(ws, 'POST', '/v1/payments', { type: 'one_time', amount: 10, email, name: 'Nova Lee', external_reference: 'pos-4' });
    expect(fresh.status).toBe(201);
    expect(fresh.roundTrips).toBe(1);
    const contacts = await rowsIn(ws.id, 'SELECT id, name, email FROM contacts WHERE workspace_id = ?', ws.id);
    expect(contacts).toEqual([{ id: fresh.body.contact_id, name: 'Nova Lee', email }]);
    // The reference is held (the create and contact sent along write nothing): the payment is updated and its contact stays; the other email creates no contact.
    await rowsIn(ws.id, "UPDATE payments SET external_reference = 'pos-5' WHERE id = ?", fresh.body.id);
    const other = `${crypto.randomUUID()}@example.com`;
    const update = await counted(ws, 'POST', '/v1/payments', {
      type: 'one_time',
      amount: 10,
      email: other,
      external_reference: 'pos-5',
      note: 'update',
    });
    expect(update.roundTrips).toBe(2);
    expect(update.body).toMatchObject({ id: fresh.body.id, contact_id: fresh.body.contact_id, note: 'update', duplicate: true });
    expect(await rowsIn(ws.id, 'SELECT email FROM contacts WHERE workspace_id = ?', ws.id)).toEqual([{ email }]);
  });

  it('a product reference reads it first (two round trips) and takes its name', async () => {
    const ws = await warmWorkspace();
    const product = (await ws.api('POST', '/v1/products', { name: 'Gold plan', sku: 'GOLD', price: 99 })).body;
    const res = await counted(ws, 'POST', '/v1/payments', { type: 'one_time', amount: 99, product_id: product.id, contact_id: await contactOf(ws) });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(2);
    expect(res.body).toMatchObject({ product_id: product.id, title: 'Gold plan' });
  });

  it('parallel creates of one external_reference give one payment with one entry', async () => {
    const ws = await warmWorkspace();
    const contactId = await contactOf(ws);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        ws.api('POST', '/v1/payments', { type: 'one_time', amount: 25, contact_id: contactId, external_reference: 'pos-3' }),
      ),
    );
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await footprint(ws)).toMatchObject({ payments: 1, payment_entries: 1 });
  });
});
