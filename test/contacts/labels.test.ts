import { describe, expect, it } from 'vitest';
import { makeWorkspace, uuidRe } from '../support/harness';
import { createContact, filterQuery } from './helpers';

const KINDS = [
  { path: '/v1/tags', dup: 'A tag with this name already exists', missing: 'Tag not found' },
  { path: '/v1/contact-groups', dup: 'A contact group with this name already exists', missing: 'Contact group not found' },
];

describe.each(KINDS)('$path', ({ path, dup, missing }) => {
  it('creates, reads and updates the record with a computed contact_count', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const res = await ws.api('POST', path, { name: ' Customers ', color: '#ff0000', description: 'Paying' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(uuidRe),
      workspace_id: ws.id,
      name: 'Customers',
      color: '#ff0000',
      description: 'Paying',
      contact_count: 0,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const field = path === '/v1/tags' ? 'tags' : 'groups';
    await createContact(ws, { email: 'a@example.com', [field]: ['customers'] });
    await createContact(ws, { email: 'b@example.com', [field]: ['CUSTOMERS'] });
    const read = await ws.api('GET', `${path}/${res.body.id}`);
    expect(read.body.contact_count).toBe(2);
    const patched = await ws.api('PATCH', `${path}/${res.body.id}`, { name: 'Clients', color: null });
    expect([patched.status, patched.body.name, patched.body.color, patched.body.description, patched.body.contact_count]).toEqual([
      200,
      'Clients',
      null,
      'Paying',
      2,
    ]);
    const samePatch = await ws.api('PATCH', `${path}/${res.body.id}`, { name: 'clients' });
    expect(samePatch.status).toBe(200);
  });

  it('keeps names unique per workspace case-insensitively, also under concurrent creates', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await ws.api('POST', path, { name: 'VIP' });
    const b = await ws.api('POST', path, { name: 'vip' });
    expect(b.status).toBe(409);
    expect(b.body).toEqual({ statusCode: 409, message: dup, error: 'Conflict' });
    const other = await ws.api('POST', path, { name: 'Other' });
    const rename = await ws.api('PATCH', `${path}/${other.body.id}`, { name: 'Vip' });
    expect([rename.status, rename.body.message]).toEqual([409, dup]);
    const race = await Promise.all(Array.from({ length: 6 }, () => ws.api('POST', path, { name: 'Race' })));
    expect(race.filter((r) => r.status === 201)).toHaveLength(1);
    expect(race.filter((r) => r.status === 409)).toHaveLength(5);
    const elsewhere = await makeWorkspace({}, { pipeline: false });
    expect((await elsewhere.api('POST', path, { name: 'VIP' })).status).toBe(201);
    expect(a.status).toBe(201);
  });

  it('validates bodies and answers 404 for unknown ids', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    for (const body of [
      {},
      { name: '' },
      { name: 'x'.repeat(101) },
      { name: 'ok', color: 'x'.repeat(33) },
      { name: 'ok', description: 'x'.repeat(501) },
      { name: 'ok', slug: 'x' },
    ]) {
      expect((await ws.api('POST', path, body)).status, JSON.stringify(body).slice(0, 40)).toBe(400);
    }
    const id = crypto.randomUUID();
    expect((await ws.api('GET', `${path}/${id}`)).body).toEqual({ statusCode: 404, message: missing, error: 'Not Found' });
    expect((await ws.api('PATCH', `${path}/${id}`, { name: 'x' })).status).toBe(404);
  });

  it('lists with search on name, sort and filters', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    for (const name of ['Alpha', 'beta', 'Gamma']) await ws.api('POST', path, { name, color: name === 'beta' ? 'blue' : null });
    const all = await ws.api('GET', path);
    expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.body.data.map((t: any) => t.name)).toEqual(['Gamma', 'beta', 'Alpha']);
    expect((await ws.api('GET', `${path}?sort=name`)).body.data.map((t: any) => t.name)).toEqual(['Alpha', 'beta', 'Gamma']);
    expect((await ws.api('GET', `${path}?search=AL`)).body.data.map((t: any) => t.name)).toEqual(['Alpha']);
    expect((await ws.api('GET', `${path}?${filterQuery({ color: 'blue' })}`)).body.data.map((t: any) => t.name)).toEqual(['beta']);
    expect((await ws.api('GET', `${path}?${filterQuery({ contact_count: { $gt: 0 } })}`)).body.total).toBe(0);
    expect((await ws.api('GET', `${path}?limit=1&offset=1&sort=-name`)).body.data.map((t: any) => t.name)).toEqual(['beta']);
    expect((await ws.api('GET', `${path}?sort=color`)).status).toBe(400);
    expect((await ws.api('GET', `${path}?${filterQuery({ created_at: 'x' })}`)).body.message).toBe(
      'Invalid filter value for "created_at": "x" is not a date',
    );
  });
});
