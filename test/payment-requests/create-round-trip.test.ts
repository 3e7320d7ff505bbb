import { describe, expect, it } from 'vitest';
import { rowsIn } from '../support/db';
import type { TestWorkspace } from '../support/harness';
import { contactOf, counted, warmWorkspace } from '../support/round-trips';
import { freshPhone, requestEvents } from './helpers';

/** Every row a request create can leave: what a create that wrote nothing must not change. */
async function footprint(ws: TestWorkspace): Promise<Record<string, number>> {
  const count = async (query: string) => (await rowsIn<{ n: number }>(ws.id, query, ws.id))[0].n;
  return {
    payment_requests: await count('SELECT count(*) AS n FROM payment_requests WHERE workspace_id = ?'),
    events: await count("SELECT count(*) AS n FROM event_outbox WHERE workspace_id = ? AND type LIKE 'payment_request.%'"),
  };
}

describe('POST /v1/payment-requests: a link for a contact_id in one round trip', () => {
  it('mints the link in one round trip with its event, the answer equal to its read', async () => {
    const ws = await warmWorkspace();
    const contactId = await contactOf(ws);
    const res = await counted(ws, 'POST', '/v1/payment-requests', { amount: 120, title: 'Lesson', contact_id: contactId });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(1);
    expect(res.body).toMatchObject({ contact_id: contactId, amount: 120, status: 'pending', deal_id: null });
    expect((await ws.api('GET', `/v1/payment-requests/${res.body.id}`)).body).toEqual(res.body);
    expect(await footprint(ws)).toEqual({ payment_requests: 1, events: 1 });
    const [event] = await requestEvents(ws.id, res.body.id);
    expect(event).toMatchObject({ type: 'payment_request.created' });
  });

  it('a deal of the same contact rides along; one of another contact answers 409 and an unknown contact 404, writing nothing', async () => {
    const ws = await warmWorkspace();
    const [contactId, otherId] = [await contactOf(ws), await contactOf(ws)];
    const own = (await ws.api('POST', '/v1/deals', { title: 'Own', contact_id: contactId })).body;
    const other = (await ws.api('POST', '/v1/deals', { title: 'Other', contact_id: otherId })).body;
    const linked = await counted(ws, 'POST', '/v1/payment-requests', { amount: 5, contact_id: contactId, deal_id: own.id });
    expect(linked.status).toBe(201);
    expect(linked.roundTrips).toBe(1);
    expect(linked.body.deal_id).toBe(own.id);
    const before = await footprint(ws);
    const mismatch = await counted(ws, 'POST', '/v1/payment-requests', { amount: 5, contact_id: contactId, deal_id: other.id });
    expect(mismatch.status).toBe(409);
    expect(mismatch.body).toMatchObject({ error_code: 'PAYMENT_REQUEST_DEAL_CONTACT_MISMATCH' });
    expect(mismatch.roundTrips).toBe(1);
    const unknown = await ws.api('POST', '/v1/payment-requests', { amount: 5, contact_id: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ message: 'Contact not found' });
    expect(await footprint(ws)).toEqual(before);
  });

  it('a new contact by phone is created with the link in one round trip; an existing one keeps two and nothing stray', async () => {
    const ws = await warmWorkspace();
    const phone = freshPhone();
    const fresh = await counted(ws, 'POST', '/v1/payment-requests', { amount: 5, phone, name: 'Nova Lee' });
    expect(fresh.status).toBe(201);
    expect(fresh.roundTrips).toBe(1);
    expect(await rowsIn(ws.id, 'SELECT id, name FROM contacts WHERE workspace_id = ?', ws.id)).toEqual([
      { id: fresh.body.contact_id, name: 'Nova Lee' },
    ]);
    const types = (await rowsIn<{ type: string }>(ws.id, 'SELECT type FROM event_outbox WHERE workspace_id = ? ORDER BY rowid', ws.id)).map(
      (e) => e.type,
    );
    expect(types).toEqual(['contact.created', 'payment_request.created']);
    const again = await counted(ws, 'POST', '/v1/payment-requests', { amount: 6, phone });
    expect(again.roundTrips).toBe(2);
    expect(again.body.contact_id).toBe(fresh.body.contact_id);
    expect(await footprint(ws)).toEqual({ payment_requests: 2, events: 2 });
    expect(await rowsIn(ws.id, 'SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toHaveLength(1);
  });

  it('a deal named with a phone reads first: only the reads know the contact the deal must belong to', async () => {
    const ws = await warmWorkspace();
    const phone = freshPhone();
    const deal = (await ws.api('POST', '/v1/deals', { title: 'Deal', phone })).body;
    const res = await counted(ws, 'POST', '/v1/payment-requests', { amount: 5, phone, deal_id: deal.id });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(2);
    expect(res.body).toMatchObject({ contact_id: deal.contact_id, deal_id: deal.id });
  });
});
