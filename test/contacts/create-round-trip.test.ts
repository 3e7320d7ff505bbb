import { describe, expect, it } from 'vitest';
import { freshPhone } from '../deals/helpers';
import type { TestWorkspace } from '../support/harness';
import { counted, warmWorkspace } from '../support/round-trips';
import { blacklist, createContact, outbox, rows } from './helpers';

/** A count over every shard (the workspace's rows are on one of them). */
const countOf = async (query: string, ...binds: unknown[]) => (await rows<{ n: number }>(query, ...binds)).reduce((sum, r) => sum + r.n, 0);

const freshEmail = () => `${crypto.randomUUID()}@example.com`;

/** Every row a contact write can leave, per table, for the workspace: what a write that wrote nothing must not change. */
async function footprint(ws: TestWorkspace) {
  const count = (table: string) => countOf(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`, ws.id);
  const tables = [
    'contacts',
    'contact_identifiers',
    'consent_ledger',
    'tags',
    'contact_groups',
    'contact_tag_links',
    'contact_group_links',
    'contact_activities',
    'event_outbox',
  ];
  return Object.fromEntries(await Promise.all(tables.map(async (t) => [t, await count(t)] as const)));
}

describe('POST /v1/contacts: a new contact in one round trip', () => {
  it('creates a new contact in one round trip, every row written, the answer equal to its read', async () => {
    const ws = await warmWorkspace();
    await createContact(ws, { email: freshEmail(), tags: ['Existing'] });
    const before = await footprint(ws);
    const [phone, email] = [freshPhone(), freshEmail()];

    const res = await counted(ws, 'POST', '/v1/contacts', { name: 'Ada Byron', phone, email, tags: ['existing', 'New One'], groups: ['Team'] });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(1);
    expect(res.body).toMatchObject({ phone, email, name: 'Ada Byron', duplicate: false });
    const { duplicate: _, ...answer } = res.body;
    expect((await ws.api('GET', `/v1/contacts/${res.body.id}`)).body).toEqual(answer);

    const after = await footprint(ws);
    expect(after).toEqual({
      ...before,
      contacts: before.contacts + 1,
      contact_identifiers: before.contact_identifiers + 2,
      consent_ledger: before.consent_ledger + 2,
      tags: before.tags + 1,
      contact_groups: before.contact_groups + 1,
      contact_tag_links: before.contact_tag_links + 2,
      contact_group_links: before.contact_group_links + 1,
      contact_activities: before.contact_activities + 1,
      event_outbox: before.event_outbox + 1,
    });
    const tags = await rows<{ name: string }>('SELECT name FROM tags WHERE workspace_id = ? ORDER BY name_key', ws.id);
    expect(tags.map((t) => t.name)).toEqual(['Existing', 'New One']);
    const [event] = (await outbox(ws.id, 'contact.created')).filter((e) => e.data.contact_id === res.body.id);
    expect(event.data).toMatchObject({ contact_id: res.body.id, duplicate: false, source: 'api' });
  });

  it('updates an existing contact in one round trip, and the create that rode along wrote nothing', async () => {
    const ws = await warmWorkspace();
    const email = freshEmail();
    const existing = await createContact(ws, { email, name: 'First' });
    const before = await footprint(ws);

    const res = await counted(ws, 'POST', '/v1/contacts', { email, job_title: 'Buyer' });
    expect(res.status).toBe(201);
    expect(res.roundTrips).toBe(1);
    expect(res.body).toMatchObject({ id: existing.id, job_title: 'Buyer', duplicate: true });
    // The update's own rows only: its timeline row and its event.
    expect(await footprint(ws)).toEqual({ ...before, contact_activities: before.contact_activities + 1, event_outbox: before.event_outbox + 1 });
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['contact.created', 'contact.updated']);
  });

  it('a label named on an update of an existing contact is created once, by the update', async () => {
    const ws = await warmWorkspace();
    const phone = freshPhone();
    const existing = await createContact(ws, { phone });
    const res = await ws.api('POST', '/v1/contacts', { phone, tags: ['Fresh'] });
    expect(res.body).toMatchObject({ id: existing.id, duplicate: true });
    expect(await rows('SELECT name FROM tags WHERE workspace_id = ?', ws.id)).toEqual([{ name: 'Fresh' }]);
    expect(await rows('SELECT contact_id FROM contact_tag_links WHERE workspace_id = ?', ws.id)).toEqual([{ contact_id: existing.id }]);
  });

  it('finds the last holder of a phone through its history instead of creating', async () => {
    const ws = await warmWorkspace();
    const [oldPhone, newPhone] = [freshPhone(), freshPhone()];
    const holder = await createContact(ws, { phone: oldPhone });
    expect((await ws.api('PATCH', `/v1/contacts/${holder.id}`, { phone: newPhone })).status).toBe(200);
    const res = await ws.api('POST', '/v1/contacts', { phone: oldPhone, name: 'Back again' });
    expect(res.body).toMatchObject({ id: holder.id, duplicate: true });
    expect(await rows('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toEqual([{ id: holder.id }]);
  });

  it('a blacklisted phone writes nothing: no contact, no label, no event', async () => {
    const ws = await warmWorkspace();
    const phone = freshPhone();
    await blacklist(ws, phone);
    const before = await footprint(ws);
    const res = await ws.api('POST', '/v1/contacts', { phone, email: freshEmail(), tags: ['Never'] });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_code: 'PHONE_BLACKLISTED' });
    expect(await footprint(ws)).toEqual(before);
  });

  it('a phone and an email held by two contacts open a merge request and write no contact', async () => {
    const ws = await warmWorkspace();
    const [phone, email] = [freshPhone(), freshEmail()];
    await createContact(ws, { phone });
    await createContact(ws, { email });
    const before = await footprint(ws);
    const res = await ws.api('POST', '/v1/contacts', { phone, email, tags: ['Never'] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error_code: 'CONTACT_MERGE_REQUIRED' });
    expect(await footprint(ws)).toEqual(before);
  });

  it('under a contact cap a create reads first (two round trips) and the cap holds', async () => {
    const ws = await warmWorkspace({ caps: { contacts: 1 } });
    const first = await counted(ws, 'POST', '/v1/contacts', { email: freshEmail() });
    expect(first.status).toBe(201);
    expect(first.roundTrips).toBe(2);
    const second = await ws.api('POST', '/v1/contacts', { email: freshEmail() });
    expect(second.status).toBe(400);
    expect(second.body.message).toBe('Limit reached. Your plan allows at most 1 contacts.');
  });

  it('parallel creates of one new identity give one contact, one identifier row and one event', async () => {
    const ws = await warmWorkspace();
    const email = freshEmail();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => ws.api('POST', '/v1/contacts', { email, tags: [`Tag ${i % 3}`] })));
    expect(answers.every((a) => a.status === 201)).toBe(true);
    expect(answers.filter((a) => a.body.duplicate === false)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await countOf('SELECT count(*) AS n FROM contacts WHERE workspace_id = ?', ws.id)).toBe(1);
    expect(await countOf("SELECT count(*) AS n FROM contact_identifiers WHERE workspace_id = ? AND kind = 'email'", ws.id)).toBe(1);
    expect(await countOf('SELECT count(*) AS n FROM consent_ledger WHERE workspace_id = ?', ws.id)).toBe(1);
    expect((await outbox(ws.id, 'contact.created')).length).toBe(1);
    expect(await rows('SELECT name FROM tags WHERE workspace_id = ? ORDER BY name', ws.id)).toEqual([
      { name: 'Tag 0' },
      { name: 'Tag 1' },
      { name: 'Tag 2' },
    ]);
  });
});
