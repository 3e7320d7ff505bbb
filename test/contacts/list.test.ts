import { beforeAll, describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace, type TestWorkspace } from '../support/harness';
import { createContact, filterQuery } from './helpers';

let ws: TestWorkspace;
let ada: any, bob: any, cyd: any, dee: any;

const ids = (res: { body: any }) => res.body.data.map((c: any) => c.id);
const list = (q: string) => ws.api('GET', `/v1/contacts?${q}`);

beforeAll(async () => {
  ws = await makeWorkspace({ default_country: 'US' }, { pipeline: false });
  ada = await createContact(ws, {
    name: 'Ada Lovelace',
    email: 'ada@analytical.example',
    phone: '+14155550130',
    company_name: 'Engines Ltd',
    lifecycle_stage: 'customer',
    employee_count: 10,
    lead_score: 80,
    date_of_birth: '1815-12-10',
    custom_fields: { plan: 'pro', seats: 5, vip: true },
    tags: ['math', 'vip'],
    groups: ['founders'],
  });
  bob = await createContact(ws, {
    name: 'Bob Builder',
    email: 'bob@build.example',
    lifecycle_stage: 'lead',
    employee_count: 3,
    lead_score: 20,
    custom_fields: { plan: 'free', seats: 1 },
    tags: ['vip'],
  });
  cyd = await createContact(ws, { name: 'Cyd Charisse', phone: '+14155550131', lifecycle_stage: 'prospect', company_name: 'Dance Co' });
  dee = await createContact(ws, { first_name: 'Dee', last_name: 'Xu', email: 'dee@x.example', lifecycle_stage: 'lead' });
  await ws.api('PUT', `/v1/contacts/${bob.id}/consent/email`, { state: 'subscribed' });
});

describe('GET /v1/contacts', () => {
  it('answers the list envelope newest first with defaults', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(ids(res)).toEqual([dee.id, cyd.id, bob.id, ada.id]);
    expect(res.body.data[3].tags).toEqual(ada.tags);
  });

  it('pages with limit and offset, clamps limit to 500 and rejects malformed paging', async () => {
    const page = await list('limit=2&offset=1');
    expect([page.body.total, page.body.limit, page.body.offset]).toEqual([4, 2, 1]);
    expect(ids(page)).toEqual([cyd.id, bob.id]);
    expect((await list('limit=0')).body.data).toEqual([]);
    expect((await list('limit=9999')).body.limit).toBe(500);
    for (const q of ['limit=-1', 'limit=abc', 'offset=-5', 'offset=1.5']) {
      const res = await list(q);
      expect(res.status, q).toBe(400);
    }
  });

  it('sorts by sortable fields and rejects others', async () => {
    expect(ids(await list('sort=name'))).toEqual([ada.id, bob.id, cyd.id, dee.id]);
    expect(ids(await list('sort=-lead_score')).slice(0, 2)).toEqual([ada.id, bob.id]);
    const bad = await list('sort=custom_fields');
    expect(bad.status).toBe(400);
  });

  it('filters by exact match, any-of arrays and $gt; workspace_id is ignored', async () => {
    expect(ids(await list(filterQuery({ lifecycle_stage: 'lead' })))).toEqual([dee.id, bob.id]);
    expect(ids(await list(filterQuery({ lifecycle_stage: ['customer', 'prospect'] })))).toEqual([cyd.id, ada.id]);
    expect(ids(await list(filterQuery({ employee_count: { $gt: 5 } })))).toEqual([ada.id]);
    expect(ids(await list(filterQuery({ email: 'bob@build.example', workspace_id: crypto.randomUUID() })))).toEqual([bob.id]);
  });

  it('evaluates $where trees with every operator', async () => {
    const where = (node: unknown) => list(filterQuery({ $where: node })).then(ids);
    expect(
      await where({
        or: [
          { field: 'name', op: 'starts_with', value: 'ADA' },
          { field: 'company_name', op: 'ends_with', value: 'co' },
        ],
      }),
    ).toEqual([cyd.id, ada.id]);
    expect(
      await where({
        and: [
          { field: 'lead_score', op: 'gte', value: 20 },
          { field: 'lead_score', op: 'lt', value: 80 },
        ],
      }),
    ).toEqual([bob.id]);
    expect(await where({ not: { field: 'email', op: 'is_null' } })).toEqual([dee.id, bob.id, ada.id]);
    expect(await where({ field: 'phone', op: 'is_not_null' })).toEqual([cyd.id, ada.id]);
    expect(await where({ field: 'name', op: 'contains', value: 'UIL' })).toEqual([bob.id]);
    expect(await where({ field: 'name', op: 'not_contains', value: 'a' })).toEqual([dee.id, bob.id]);
    expect(await where({ field: 'lifecycle_stage', op: 'in', value: ['lead'] })).toEqual([dee.id, bob.id]);
    expect(await where({ field: 'lifecycle_stage', op: 'not_in', value: ['lead', 'customer'] })).toEqual([cyd.id]);
    expect(await where({ field: 'lifecycle_stage', op: 'neq', value: 'lead' })).toEqual([cyd.id, ada.id]);
    expect(await where({ field: 'employee_count', op: 'lte', value: '3' })).toEqual([bob.id]);
    expect(await where({ field: 'date_of_birth', op: 'eq', value: '1815-12-10' })).toEqual([ada.id]);
    expect(await where({ field: 'created_at', op: 'gt', value: '2000-01-01' })).toHaveLength(4);
    expect(await where({ field: 'id', op: 'eq', value: ada.id.toUpperCase() })).toEqual([ada.id]);
  });

  it('filters custom fields, tag/group containment, attendance and the virtual consent fields', async () => {
    expect(ids(await list(filterQuery({ 'custom_fields.plan': 'pro' })))).toEqual([ada.id]);
    expect(ids(await list(filterQuery({ $where: { field: 'custom_fields.seats', op: 'gt', value: 2 } })))).toEqual([ada.id]);
    expect(ids(await list(filterQuery({ 'custom_fields.vip': true })))).toEqual([ada.id]);
    expect(ids(await list(filterQuery({ $jsonb_contains: { tags: bob.tags } })))).toEqual([bob.id, ada.id]);
    expect(ids(await list(filterQuery({ $jsonb_contains: { tags: ada.tags } })))).toEqual([ada.id]);
    expect(ids(await list(filterQuery({ $jsonb_contains: { tags: ada.tags, groups: ada.groups } })))).toEqual([ada.id]);
    expect(ids(await list(filterQuery({ whatsapp_subscribed: true })))).toEqual([cyd.id, ada.id]);
    expect(ids(await list(filterQuery({ email_subscribed: 'true' })))).toEqual([bob.id]);
    expect(ids(await list(filterQuery({ $where: { field: 'whatsapp_subscribed', op: 'eq', value: false } })))).toEqual([dee.id, bob.id]);
    expect(ids(await list(filterQuery({ email_deliverability: 'unknown' })))).toHaveLength(4);
    expect(ids(await list(filterQuery({ whatsapp_deliverability: 'undeliverable' })))).toEqual([]);

    const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'Meetup', start_at: '2026-12-01T18:00:00Z' });
    await adminOk('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: cyd.id, status: 'attended' });
    await adminOk('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: dee.id, status: 'registered' });
    expect(ids(await list(filterQuery({ $event_attendance: { event_id: event.id, status: 'attended' } })))).toEqual([cyd.id]);
    expect(ids(await list(filterQuery({ $event_attendance: { event_id: event.id } })))).toEqual([dee.id, cyd.id]);
    const cydRead = await ws.api('GET', `/v1/contacts/${cyd.id}`);
    expect(cydRead.body.event_attendances).toEqual([
      { event_id: event.id, status: 'attended', registered_at: expect.any(String), attended_at: expect.any(String) },
    ]);
  });

  it('type-checks filter values with the documented messages', async () => {
    const cases: [unknown, string][] = [
      [{ created_at: 'yesterday' }, 'Invalid filter value for "created_at": "yesterday" is not a date'],
      [{ id: 'abc' }, 'Invalid filter value for "id": "abc" is not a UUID'],
      [{ lifecycle_stage: 'vip' }, 'Invalid filter value for "lifecycle_stage": must be one of lead, prospect, customer, inactive, archived'],
      [{ employee_count: 'many' }, 'Invalid filter value for "employee_count": "many" is not a number'],
      [{ whatsapp_subscribed: 'yes' }, 'Invalid filter value for "whatsapp_subscribed": "yes" is not a boolean'],
      [{ $where: { field: 'date_of_birth', op: 'gt', value: '1990-13-45' } }, 'Invalid filter value for "date_of_birth": "1990-13-45" is not a date'],
    ];
    for (const [filter, message] of cases) {
      const res = await list(filterQuery(filter));
      expect(res.status, JSON.stringify(filter)).toBe(400);
      expect(res.body).toEqual({ statusCode: 400, message, error: 'Bad Request' });
    }
    const substring = await list(filterQuery({ $where: { field: 'employee_count', op: 'contains', value: '1' } }));
    expect(substring.status).toBe(400);
    expect(substring.body.message).toContain('text fields only');
  });

  it('rejects malformed filters', async () => {
    expect((await list('filter=%7Bnot-json')).body.message).toBe('Invalid filter: must be valid JSON');
    expect((await list(`filter=${encodeURIComponent('[1]')}`)).body.message).toBe('Invalid filter: must be a JSON object');
    const tooMany = { $where: { or: Array.from({ length: 101 }, () => ({ field: 'name', op: 'eq', value: 'x' })) } };
    expect((await list(filterQuery(tooMany))).status).toBe(400);
    const bigArray = { $where: { field: 'name', op: 'in', value: Array.from({ length: 201 }, (_, i) => `n${i}`) } };
    expect((await list(filterQuery(bigArray))).status).toBe(400);
    for (const f of [
      { nope: 1 },
      { $jsonb_contains: { tags: ['x'] } },
      { $jsonb_contains: { labels: [] } },
      { $event_attendance: { status: 'attended' } },
      { $lt: 1 },
      { name: { $lt: 'x' } },
    ]) {
      const res = await list(filterQuery(f));
      expect(res.status, JSON.stringify(f)).toBe(400);
      expect(res.body.message, JSON.stringify(f)).toMatch(/^Invalid filter/);
    }
  });

  it('searches name, first/last name, email, phone and company case-insensitively, short terms too', async () => {
    expect(ids(await list('search=LOVE'))).toEqual([ada.id]);
    expect(ids(await list('search=build.exa'))).toEqual([bob.id]);
    expect(ids(await list('search=dance'))).toEqual([cyd.id]);
    expect(ids(await list('search=Xu'))).toEqual([dee.id]);
    expect(ids(await list('search=yd'))).toEqual([cyd.id]);
    expect(ids(await list('search=Y'))).toEqual([cyd.id, ada.id]);
    expect(ids(await list('search=5550131'))).toEqual([cyd.id]);
    expect(ids(await list(`search=${encodeURIComponent('(415) 555-0130')}`))).toEqual([ada.id]);
    expect(ids(await list('search=%22quoted%22'))).toEqual([]);
    expect(ids(await list(`search=lovelace&filter=${encodeURIComponent(JSON.stringify({ lifecycle_stage: 'lead' }))}`))).toEqual([]);
  });

  it('finds a contact by a historical identifier', async () => {
    const other = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(other, { phone: '+14155550140', email: 'before@example.com' });
    await other.api('PATCH', `/v1/contacts/${c.id}`, { phone: '+14155550141', email: 'after@example.com' });
    const byPhone = await other.api('GET', `/v1/contacts?search=${encodeURIComponent('415-555-0140')}`);
    expect(ids(byPhone)).toEqual([c.id]);
    const byEmail = await other.api('GET', '/v1/contacts?search=BEFORE@example.com');
    expect(ids(byEmail)).toEqual([c.id]);
  });

  it('reads a local number in the default country the workspace has now, and the same list in another workspace as its own', async () => {
    const other = await makeWorkspace({ default_country: 'US' }, { pipeline: false });
    const london = await createContact(other, { name: 'London Office', phone: '+442079460958' });
    const local = `/v1/contacts?search=${encodeURIComponent('020 7946 0958')}`;
    expect(ids(await other.api('GET', local))).toEqual([]);
    await adminOk('PATCH', `/workspaces/${other.id}`, { default_country: 'GB' });
    expect(ids(await other.api('GET', local))).toEqual([london.id]);
    // The same request, asked of another workspace, answers from that workspace's contacts.
    const third = await makeWorkspace({ default_country: 'GB' }, { pipeline: false });
    const own = await createContact(third, { name: 'Own Office', phone: '+442079460958' });
    expect(ids(await third.api('GET', local))).toEqual([own.id]);
  });
});
