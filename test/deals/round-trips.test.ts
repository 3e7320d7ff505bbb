import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace } from '../support/harness';
import { freshPhone, query } from './helpers';
import { counted } from '../support/round-trips';

async function warmWorkspace() {
  const ws = await makeWorkspace();
  // The key look-up is cached after the first request.
  expect((await counted(ws, 'GET', '/v1/pipelines')).status).toBe(200);
  return ws;
}

describe('POST /v1/deals round trips', () => {
  it('is 2 with contact_id', async () => {
    const ws = await warmWorkspace();
    const contact = await ws.api('POST', '/v1/contacts', { phone: freshPhone() });
    const res = await counted(ws, 'POST', '/v1/deals', { title: 'By id', contact_id: contact.body.id });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(2);
  });

  it('is 2 by email when the contact is created, and the contact is written with the deal', async () => {
    const ws = await warmWorkspace();
    const email = `${crypto.randomUUID()}@example.com`;
    const res = await counted(ws, 'POST', '/v1/deals', { title: 'New contact', email, name: 'Nova Lee' });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(2);
    expect(res.body).toMatchObject({ contact_email: email, contact_name: 'Nova Lee', duplicate: false });
    const [contact] = await query('SELECT id, name, first_name, source FROM contacts WHERE workspace_id = ? AND email = ?', ws.id, email);
    expect(contact).toEqual({ id: res.body.contact_id, name: 'Nova Lee', first_name: 'Nova', source: 'api' });
    const events = await query<{ type: string }>('SELECT type FROM event_outbox WHERE workspace_id = ? ORDER BY created_at, id', ws.id);
    expect(events.map((e) => e.type).sort()).toEqual(['contact.created', 'deal.created']);
  });

  it('is 2 by email for an existing contact, also when the phone is added to it', async () => {
    const ws = await warmWorkspace();
    const email = `${crypto.randomUUID()}@example.com`;
    const contact = await ws.api('POST', '/v1/contacts', { email, name: 'Old Name' });
    const same = await counted(ws, 'POST', '/v1/deals', { title: 'Existing', email, name: 'Ignored' });
    expect(same.status).toBe(201);
    expect(same.roundTrips).toBe(2);
    expect(same.body).toMatchObject({ contact_id: contact.body.id, contact_name: 'Old Name' });

    const phone = freshPhone();
    const added = await counted(ws, 'POST', '/v1/deals', { title: 'Existing + phone', email, phone });
    expect(added.status).toBe(201);
    expect(added.roundTrips).toBe(2);
    expect(added.body).toMatchObject({ contact_id: contact.body.id, contact_phone: phone, contact_email: email });
  });

  it('a rejected deal leaves no new contact behind', async () => {
    const ws = await makeWorkspace({ caps: { deals: 0 } });
    const email = `${crypto.randomUUID()}@example.com`;
    const res = await ws.api('POST', '/v1/deals', { title: 'Over the cap', email });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error_code: 'PLAN_LIMIT_EXCEEDED' });
    expect(await query('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toEqual([]);
    expect(await query('SELECT type FROM event_outbox WHERE workspace_id = ?', ws.id)).toEqual([]);
  });

  it('answers PHONE_BLACKLISTED before writing anything', async () => {
    const ws = await makeWorkspace();
    await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+14155550177' });
    const res = await ws.api('POST', '/v1/deals', { title: 'Blocked', phone: '(415) 555-0177' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error_code: 'PHONE_BLACKLISTED' });
    expect(await query('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toEqual([]);
    expect(await query('SELECT id FROM deals WHERE workspace_id = ?', ws.id)).toEqual([]);
  });

  it('parallel deals for one new email give one contact', async () => {
    const ws = await makeWorkspace();
    const email = `${crypto.randomUUID()}@example.com`;
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => ws.api('POST', '/v1/deals', { title: `D${i}`, email })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body.contact_id)).size).toBe(1);
    expect(await query('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toHaveLength(1);
    expect(await query("SELECT id FROM event_outbox WHERE workspace_id = ? AND type = 'contact.created'", ws.id)).toHaveLength(1);
  });

  it('keeps the contact cap under parallel deal creates; a rejected one writes neither contact nor deal', async () => {
    const ws = await makeWorkspace({ caps: { contacts: 2 } });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ws.api('POST', '/v1/deals', { title: `D${i}`, email: `cap${i}@example.com` })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/^Limit reached\./);
    }
    expect(await query('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toHaveLength(2);
    expect(await query('SELECT id FROM deals WHERE workspace_id = ?', ws.id)).toHaveLength(2);
  });
});
