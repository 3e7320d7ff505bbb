import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { createContact, outbox, rows } from './helpers';

describe('PATCH /v1/contacts/{id}', () => {
  it('replaces tag and group sets; empty clears; names auto-create', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'p@example.com', tags: ['a', 'b'], groups: ['g'] });
    const idOf = Object.fromEntries((await ws.api('GET', '/v1/tags')).body.data.map((t: any) => [t.name, t.id]));
    const replaced = await ws.api('PATCH', `/v1/contacts/${c.id}`, { tags: ['B', 'c'] });
    expect(replaced.status).toBe(200);
    expect(replaced.body.tags).toHaveLength(2);
    expect(replaced.body.tags).toContain(idOf.b);
    expect(replaced.body.tags).not.toContain(idOf.a);
    expect(replaced.body.groups).toEqual(c.groups);
    const cleared = await ws.api('PATCH', `/v1/contacts/${c.id}`, { tags: [], groups: [] });
    expect([cleared.body.tags, cleared.body.groups]).toEqual([[], []]);
    const tags = await ws.api('GET', '/v1/tags?sort=name');
    expect(tags.body.data.map((t: any) => [t.name, t.contact_count])).toEqual([
      ['a', 0],
      ['b', 0],
      ['c', 0],
    ]);
  });

  it('merges custom fields and removes keys set to null', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'cf@example.com', custom_fields: { a: 1, b: { deep: true }, c: 'x' } });
    const res = await ws.api('PATCH', `/v1/contacts/${c.id}`, { custom_fields: { a: null, b: { other: 1 }, d: [1, 2] } });
    expect(res.body.custom_fields).toEqual({ b: { other: 1 }, c: 'x', d: [1, 2] });
  });

  it('emits contact.updated with changed_fields, including tags, groups and custom_fields keys; none when nothing changed', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'ev@example.com', city: 'Kyiv', custom_fields: { k: 1 } });
    await ws.api('PATCH', `/v1/contacts/${c.id}`, { city: 'Lviv', name: 'Ev Person', tags: ['t'], groups: ['g'], custom_fields: { k: null, n: 2 } });
    const same = await ws.api('PATCH', `/v1/contacts/${c.id}`, { city: 'Lviv', tags: ['T'], groups: ['g'] });
    expect(same.status).toBe(200);
    const events = await outbox(ws.id, 'contact.updated');
    expect(events).toHaveLength(1);
    expect(events[0].data.changed_fields.sort()).toEqual([
      'city',
      'custom_fields.k',
      'custom_fields.n',
      'first_name',
      'groups',
      'last_name',
      'name',
      'tags',
    ]);
    expect(events[0].data).toMatchObject({
      contact_id: c.id,
      source: 'api',
      contact: { id: c.id, name: 'Ev Person', first_name: 'Ev', last_name: 'Person', email: 'ev@example.com' },
    });
    expect(Object.keys(events[0].data.contact).sort()).toEqual([
      'block_state',
      'email',
      'first_name',
      'id',
      'last_name',
      'lead_score',
      'lifecycle_stage',
      'name',
      'phone',
      'source',
    ]);
    const activities = await rows<any>('SELECT type FROM contact_activities WHERE contact_id = ? ORDER BY created_at', c.id);
    expect(activities.map((a) => a.type)).toEqual(['created', 'updated']);
  });

  it('answers 404 `Contact <id> not found` for an unknown id', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const id = crypto.randomUUID();
    const res = await ws.api('PATCH', `/v1/contacts/${id}`, { city: 'x' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, message: `Contact ${id} not found`, error: 'Not Found' });
    const get = await ws.api('GET', `/v1/contacts/${id}`);
    expect(get.body).toEqual({ statusCode: 404, message: `contacts with ID ${id} not found`, error: 'Not Found' });
    expect((await ws.api('GET', '/v1/contacts/not-a-uuid')).status).toBe(400);
  });

  it("moving onto another contact's current identifier opens a merge request and applies nothing", async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await createContact(ws, { email: 'a@example.com', city: 'A' });
    const b = await createContact(ws, { email: 'b@example.com', phone: '+14155550120' });
    const res = await ws.api('PATCH', `/v1/contacts/${a.id}`, { phone: '+1 415 555 0120', city: 'Held', tags: ['held'] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ statusCode: 409, error: 'Conflict', error_code: 'CONTACT_MERGE_REQUIRED' });
    const again = await ws.api('PATCH', `/v1/contacts/${a.id}`, { email: 'b@example.com' });
    expect(again.body.merge_request_id).toBe(res.body.merge_request_id);
    const after = await ws.api('GET', `/v1/contacts/${a.id}`);
    expect([after.body.city, after.body.phone, after.body.tags]).toEqual(['A', null, []]);
    expect(b.id).toBeTruthy();
  });

  it("moving onto another contact's historical identifier also conflicts", async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await createContact(ws, { email: 'hist@example.com' });
    await ws.api('PATCH', `/v1/contacts/${a.id}`, { email: 'moved@example.com' });
    const b = await createContact(ws, { email: 'b2@example.com' });
    const res = await ws.api('PATCH', `/v1/contacts/${b.id}`, { email: 'hist@example.com' });
    expect(res.status).toBe(409);
    expect(res.body.error_code).toBe('CONTACT_MERGE_REQUIRED');
    const own = await ws.api('PATCH', `/v1/contacts/${a.id}`, { email: 'hist@example.com' });
    expect(own.status).toBe(200);
    expect(own.body.email).toBe('hist@example.com');
  });

  it('clears identifiers with null and keeps them searchable as history', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await createContact(ws, { email: 'gone@example.com', phone: '+14155550121' });
    const res = await ws.api('PATCH', `/v1/contacts/${a.id}`, { email: null, phone: null });
    expect([res.body.email, res.body.phone]).toEqual([null, null]);
    const found = await ws.api('GET', '/v1/contacts?search=gone@example.com');
    expect(found.body.data.map((c: any) => c.id)).toEqual([a.id]);
  });
});
