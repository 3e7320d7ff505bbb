import { describe, expect, it } from 'vitest';
import { shardOf } from '../support/db';
import { adminOk, eventually, makeWorkspace, type TestWorkspace } from '../support/harness';
import { createContact, filterQuery, rows } from './helpers';

const generation = async (ws: TestWorkspace) =>
  (await rows<{ generation: number }>('SELECT generation FROM contact_list_generations WHERE workspace_id = ?', ws.id))[0]?.generation ?? 0;
const stored = (ws: TestWorkspace) =>
  rows<{ total: number; generation: number }>('SELECT total, generation FROM contact_list_cache WHERE workspace_id = ?', ws.id);
const ids = (res: { body: any }) => res.body.data.map((c: any) => c.id);

describe('filtered contact lists keep their answer per data generation', () => {
  it('stores a filtered answer after the response and serves it until something changes', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const high = await createContact(ws, { name: 'High', lead_score: 90 });
    await createContact(ws, { name: 'Low', lead_score: 10 });
    const query = `/v1/contacts?${filterQuery({ $where: { field: 'lead_score', op: 'gte', value: 50 } })}`;

    const first = await ws.api('GET', query);
    expect(first.body.total).toBe(1);
    const [entry] = await eventually(
      () => stored(ws),
      (r) => r.length === 1,
    );
    expect(entry).toMatchObject({ total: 1, generation: await generation(ws) });

    // What is served now is the stored answer: altered in place (no write to contact data), it shows.
    await (await shardOf(ws.id))
      .prepare('UPDATE contact_list_cache SET total = 7, contact_ids = ? WHERE workspace_id = ?')
      .bind(JSON.stringify([high.id]), ws.id)
      .run();
    const served = await ws.api('GET', query);
    expect(served.body.total).toBe(7);
    expect(ids(served)).toEqual([high.id]);
    // Unfiltered lists are not stored.
    expect((await ws.api('GET', '/v1/contacts')).body.total).toBe(2);

    // A write moves the generation: the next answer is counted again, exactly.
    const higher = await createContact(ws, { name: 'Higher', lead_score: 95 });
    const recounted = await ws.api('GET', query);
    expect(recounted.body.total).toBe(2);
    expect(ids(recounted)).toEqual([higher.id, high.id]);
  });

  it('moves the generation on every write a list can see: contact fields, identifiers, tags, groups, attendance and merges', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const moved = async (write: () => Promise<unknown>) => {
      const before = await generation(ws);
      await write();
      return (await generation(ws)) > before;
    };
    let ann: any;
    expect(await moved(async () => (ann = await createContact(ws, { name: 'Ann', email: 'ann@example.com', phone: '+14155550180' })))).toBe(true);
    expect(await moved(() => ws.api('PATCH', `/v1/contacts/${ann.id}`, { custom_fields: { plan: 'gold' } }))).toBe(true);
    expect(await moved(() => ws.api('PATCH', `/v1/contacts/${ann.id}`, { tags: ['vip'] }))).toBe(true);
    expect(await moved(() => ws.api('PATCH', `/v1/contacts/${ann.id}`, { tags: [] }))).toBe(true);
    expect(await moved(() => ws.api('PATCH', `/v1/contacts/${ann.id}`, { groups: ['founders'] }))).toBe(true);
    const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'Meetup', start_at: '2026-12-01T18:00:00Z' });
    expect(
      await moved(() => adminOk('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: ann.id, status: 'registered' })),
    ).toBe(true);

    // A merge re-keys links and removes the absorbed contact; a tag filter answered before it is recounted after it.
    const absorbed = await createContact(ws, { email: 'absorbed@example.com', tags: ['vip'] });
    // (With a per-row condition: a bare tag is one index range, counted again each time rather than stored.)
    const byTag = `/v1/contacts?${filterQuery({ $jsonb_contains: { tags: [absorbed.tags[0]] }, $where: { field: 'lifecycle_stage', op: 'is_null' } })}`;
    expect(ids(await ws.api('GET', byTag))).toEqual([absorbed.id]);
    await eventually(
      () => stored(ws),
      (r) => r.length === 1,
    );
    const conflict = await ws.api('POST', '/v1/contacts', { phone: '+14155550180', email: 'absorbed@example.com' });
    expect(conflict.status).toBe(409);
    expect(await moved(() => adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' }))).toBe(true);
    expect(ids(await ws.api('GET', byTag))).toEqual([ann.id]);
  });

  it('keeps searches too, long and short terms, until a write moves the generation', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const ada = await createContact(ws, { name: 'Ada Lovelace', email: 'ada@example.com' });
    for (const [n, term] of [
      ['1', 'lovelace'],
      ['2', 'ad'],
    ] as const) {
      const query = `/v1/contacts?search=${term}`;
      expect(ids(await ws.api('GET', query))).toEqual([ada.id]);
      await eventually(
        () => stored(ws),
        (r) => r.length === Number(n),
      );
    }
    await (await shardOf(ws.id)).prepare('UPDATE contact_list_cache SET total = 9 WHERE workspace_id = ?').bind(ws.id).run();
    expect((await ws.api('GET', '/v1/contacts?search=lovelace')).body.total).toBe(9);
    expect((await ws.api('GET', '/v1/contacts?search=ad')).body.total).toBe(9);

    const grace = await createContact(ws, { name: 'Grace Lovelace' });
    const recounted = await ws.api('GET', '/v1/contacts?search=lovelace');
    expect(recounted.body.total).toBe(2);
    expect(ids(recounted)).toEqual([grace.id, ada.id]);
  });

  it('does not store what one index range answers: a custom-field value or one tag', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const gold = await createContact(ws, { name: 'Gold', custom_fields: { plan: 'gold' }, tags: ['vip'] });
    for (const filter of [
      { 'custom_fields.plan': 'gold' },
      { $jsonb_contains: { tags: gold.tags } },
      {
        $where: {
          or: [
            { field: 'custom_fields.plan', op: 'eq', value: 'gold' },
            { field: 'custom_fields.plan', op: 'eq', value: 'x' },
          ],
        },
      },
    ]) {
      expect(ids(await ws.api('GET', `/v1/contacts?${filterQuery(filter)}`))).toEqual([gold.id]);
    }
    // A tree that reads contacts is stored; by then the ones above would have been too.
    expect((await ws.api('GET', `/v1/contacts?${filterQuery({ name: 'Gold' })}`)).body.total).toBe(1);
    const [entry] = await eventually(
      () => stored(ws),
      (r) => r.length > 0,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(await stored(ws)).toEqual([entry]);
  });

  it('keeps the answers of other filters and workspaces apart', async () => {
    const [a, b] = await Promise.all([makeWorkspace({}, { pipeline: false }), makeWorkspace({}, { pipeline: false })]);
    await createContact(a, { name: 'A', lifecycle_stage: 'customer' });
    const customers = `/v1/contacts?${filterQuery({ lifecycle_stage: 'customer' })}`;
    expect((await a.api('GET', customers)).body.total).toBe(1);
    await eventually(
      () => stored(a),
      (r) => r.length === 1,
    );
    expect((await b.api('GET', customers)).body.total).toBe(0);
    expect((await a.api('GET', `/v1/contacts?${filterQuery({ lifecycle_stage: 'lead' })}`)).body.total).toBe(0);
    expect((await a.api('GET', `${customers}&limit=1&offset=1`)).body).toMatchObject({ total: 1, data: [] });
  });
});
