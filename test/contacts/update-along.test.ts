import { describe, expect, it } from 'vitest';
import { freshPhone } from '../deals/helpers';
import type { TestWorkspace } from '../support/harness';
import { counted, warmWorkspace } from '../support/round-trips';
import { blacklist, createContact, outbox, rows } from './helpers';

const freshEmail = () => `${crypto.randomUUID()}@example.com`;

const start = { name: 'Old Name', company_name: 'Acme', city: 'Oslo', job_title: 'Clerk', annual_revenue: 10.5, lifecycle_stage: 'lead' };
const change = {
  name: 'Ada  King Byron',
  company_name: 'Acme',
  city: null,
  job_title: 'Buyer',
  annual_revenue: 50,
  employee_count: 12,
  lead_score: 71.5,
  lifecycle_stage: 'customer',
  date_of_birth: '1990-04-17',
  utm_source: 'news',
};

/** What two contacts' answers, events or timeline rows may differ in: who they are and when. */
const OWN = new Set(['id', 'contact_id', 'phone', 'email', 'created_at', 'updated_at']);
const comparable = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(comparable)
    : value && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, OWN.has(k) ? '*' : comparable(v)]))
      : value;

const timeline = async (ws: TestWorkspace, contactId: string) =>
  (
    await rows<{ type: string; source: string; data: string }>(
      'SELECT type, source, data FROM contact_activities WHERE workspace_id = ? AND contact_id = ? ORDER BY created_at, id',
      ws.id,
      contactId,
    )
  ).map((r) => ({ ...r, data: JSON.parse(r.data) }));

async function footprint(ws: TestWorkspace) {
  const tables = ['contacts', 'contact_identifiers', 'consent_ledger', 'tags', 'contact_tag_links', 'contact_activities', 'event_outbox'];
  const counts = await Promise.all(
    tables.map(async (t) => (await rows<{ n: number }>(`SELECT count(*) AS n FROM ${t} WHERE workspace_id = ?`, ws.id)).reduce((s, r) => s + r.n, 0)),
  );
  return Object.fromEntries(tables.map((t, i) => [t, counts[i]]));
}

describe('POST /v1/contacts: the update of an existing contact rides along with the reads', () => {
  it('answers in one round trip what the two-round-trip update answers: the row, changed_fields in order, the timeline row and contact.updated', async () => {
    const ws = await warmWorkspace();
    const [a, b] = [
      { phone: freshPhone(), email: freshEmail() },
      { phone: freshPhone(), email: freshEmail() },
    ];
    const [first, second] = [await createContact(ws, { ...a, ...start }), await createContact(ws, { ...b, ...start })];

    const along = await counted(ws, 'POST', '/v1/contacts', { ...a, ...change });
    // Naming no tags still names the labels: that body takes the two-round-trip update, with the same effect.
    const classic = await counted(ws, 'POST', '/v1/contacts', { ...b, ...change, tags: [] });
    expect([along.status, classic.status]).toEqual([201, 201]);
    expect([along.roundTrips, classic.roundTrips]).toEqual([1, 2]);
    expect(along.body).toMatchObject({
      id: first.id,
      duplicate: true,
      name: 'Ada  King Byron',
      first_name: 'Ada',
      last_name: 'King Byron',
      city: null,
      annual_revenue: 50,
      lead_score: 71.5,
    });
    expect(comparable(along.body)).toEqual(comparable(classic.body));
    expect(along.body.updated_at > first.updated_at).toBe(true);
    const { duplicate: _, ...answer } = along.body;
    expect((await ws.api('GET', `/v1/contacts/${first.id}`)).body).toEqual(answer);

    const [ta, tb] = [await timeline(ws, first.id), await timeline(ws, second.id)];
    expect(ta.at(-1)).toEqual({
      type: 'updated',
      source: 'api',
      data: {
        changed_fields: [
          'lifecycle_stage',
          'job_title',
          'annual_revenue',
          'employee_count',
          'city',
          'date_of_birth',
          'utm_source',
          'lead_score',
          'name',
          'first_name',
          'last_name',
        ],
      },
    });
    expect(ta.at(-1)).toEqual(tb.at(-1));

    const events = await outbox(ws.id, 'contact.updated');
    const [ea, eb] = [first.id, second.id].map((id) => events.filter((e) => e.data.contact_id === id));
    expect([ea.length, eb.length]).toEqual([1, 1]);
    expect(ea[0].data.contact).toMatchObject({ id: first.id, ...a, name: 'Ada  King Byron', lead_score: 71.5, lifecycle_stage: 'customer' });
    // Same keys in the same order, same values.
    expect(JSON.stringify(comparable(ea[0].data))).toBe(JSON.stringify(comparable(eb[0].data)));
  });

  it('takes one round trip by phone alone or email alone, and writes nothing when nothing changes', async () => {
    const ws = await warmWorkspace();
    const [phone, email] = [freshPhone(), freshEmail()];
    const contact = await createContact(ws, { phone, email });
    const byPhone = await counted(ws, 'POST', '/v1/contacts', { phone, job_title: 'One' });
    const byEmail = await counted(ws, 'POST', '/v1/contacts', { email, job_title: 'Two' });
    expect([byPhone.roundTrips, byEmail.roundTrips]).toEqual([1, 1]);
    expect([byPhone.body.job_title, byEmail.body.job_title]).toEqual(['One', 'Two']);
    expect([byPhone.body.id, byEmail.body.id]).toEqual([contact.id, contact.id]);

    const before = await footprint(ws);
    const same = await counted(ws, 'POST', '/v1/contacts', { phone, email, job_title: 'Two' });
    expect(same).toMatchObject({ status: 201, roundTrips: 1, body: { id: contact.id, duplicate: true, updated_at: byEmail.body.updated_at } });
    expect(await footprint(ws)).toEqual(before);
  });

  it('falls back to the reads, the ride-along writing nothing: an email another contact holds, an email the contact lacks, a blacklisted phone', async () => {
    const ws = await warmWorkspace();
    const [phone, email, other] = [freshPhone(), freshEmail(), freshEmail()];
    const holder = await createContact(ws, { phone, email, job_title: 'Kept' });
    const stranger = await createContact(ws, { email: other });

    const before = await footprint(ws);
    const merge = await counted(ws, 'POST', '/v1/contacts', { phone, email: other, job_title: 'Lost' });
    expect(merge).toMatchObject({ status: 409, body: { error_code: 'CONTACT_MERGE_REQUIRED' } });
    expect((await ws.api('GET', `/v1/contacts/${holder.id}`)).body.job_title).toBe('Kept');
    expect((await ws.api('GET', `/v1/contacts/${stranger.id}`)).body.job_title).toBeNull();
    expect(await footprint(ws)).toEqual(before);

    const moved = freshEmail();
    const res = await counted(ws, 'POST', '/v1/contacts', { phone, email: moved, job_title: 'Moved' });
    expect(res).toMatchObject({ status: 201, roundTrips: 2, body: { id: holder.id, email: moved, job_title: 'Moved' } });
    expect((await timeline(ws, holder.id)).at(-1)!.data).toEqual({ changed_fields: ['job_title', 'email'] });
    expect((await outbox(ws.id, 'contact.updated')).length).toBe(1);

    await blacklist(ws, phone);
    const blocked = await counted(ws, 'POST', '/v1/contacts', { phone, job_title: 'Blocked' });
    expect(blocked).toMatchObject({ status: 400, body: { error_code: 'PHONE_BLACKLISTED' } });
    expect((await ws.api('GET', `/v1/contacts/${holder.id}`)).body.job_title).toBe('Moved');
  });

  it('leaves the lead score alone while scoring owns it', async () => {
    const ws = await warmWorkspace({ lead_scoring: true });
    const phone = freshPhone();
    const contact = await createContact(ws, { phone, lead_score: 10 });
    const res = await counted(ws, 'POST', '/v1/contacts', { phone, lead_score: 90, job_title: 'Scored' });
    expect(res.roundTrips).toBe(1);
    expect(res.body).toMatchObject({ id: contact.id, lead_score: contact.lead_score, job_title: 'Scored' });
    expect((await timeline(ws, contact.id)).at(-1)!.data).toEqual({ changed_fields: ['job_title'] });
  });

  it('applies parallel updates of one contact each whole: one timeline row and one event per update', async () => {
    const ws = await warmWorkspace();
    const phone = freshPhone();
    const contact = await createContact(ws, { phone });
    const titles = Array.from({ length: 8 }, (_, i) => `Title ${i}`);
    const answers = await Promise.all(titles.map((job_title) => ws.api('POST', '/v1/contacts', { phone, job_title, city: job_title })));
    expect(answers.map((r) => [r.status, r.body.id, r.body.job_title === r.body.city])).toEqual(titles.map(() => [201, contact.id, true]));
    expect(new Set(answers.map((r) => r.body.job_title))).toEqual(new Set(titles));
    const updates = (await timeline(ws, contact.id)).filter((t) => t.type === 'updated');
    expect(updates).toHaveLength(8);
    const events = (await outbox(ws.id, 'contact.updated')).map((e) => e.data.contact.id);
    expect(events).toEqual(titles.map(() => contact.id));
    const final = (await ws.api('GET', `/v1/contacts/${contact.id}`)).body;
    expect(final.job_title).toBe(final.city);
  });
});
