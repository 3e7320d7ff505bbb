import { describe, expect, it } from 'vitest';
import { adminOk, type TestWorkspace } from '../support/harness';
import { contactOf, counted, warmWorkspace } from '../support/round-trips';
import { column, eventsOf, expectCoded, expectDense, query, stagesOf } from './helpers';

/** Every row a deal create can leave: what a create that wrote nothing must not change. */
async function footprint(ws: TestWorkspace) {
  const count = async (table: string) =>
    (await query<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`, ws.id)).reduce((sum, r) => sum + r.n, 0);
  return { deals: await count('deals'), contact_activities: await count('contact_activities'), event_outbox: await count('event_outbox') };
}

describe('POST /v1/deals: a read batch, then the write batch, whatever the instance served before', () => {
  it('creates in two round trips every time, every row written, the answer equal to its read', async () => {
    const ws = await warmWorkspace();
    const [pipeline] = await stagesOf(ws);
    const contactId = await contactOf(ws);
    const first = await counted(ws, 'POST', '/v1/deals', { title: 'First', contact_id: contactId });
    expect(first.status).toBe(201);
    expect(first.roundTrips).toBe(2);
    const before = await footprint(ws);
    const second = await counted(ws, 'POST', '/v1/deals', { title: 'Second', contact_id: contactId, amount: 12.5, external_reference: 'crm-1' });
    expect(second.status).toBe(201);
    expect(second.roundTrips).toBe(2);
    expect(second.body).toMatchObject({
      title: 'Second',
      contact_id: contactId,
      pipeline_id: pipeline.id,
      stage_id: pipeline.stages[0].id,
      amount: 12.5,
      duplicate: false,
    });
    const { duplicate: _, ...answer } = second.body;
    expect((await ws.api('GET', `/v1/deals/${second.body.id}`)).body).toEqual(answer);
    expect(await footprint(ws)).toEqual({
      deals: before.deals + 1,
      contact_activities: before.contact_activities + 1,
      event_outbox: before.event_outbox + 1,
    });
    const [created] = (await eventsOf(ws.id, 'deal.created')).filter((e) => e.data.deal_id === second.body.id);
    expect(created.data).toMatchObject({ pipeline_name: pipeline.name, stage_id: pipeline.stages[0].id, stage_name: pipeline.stages[0].name });
    // The new deal tops its column, as every new deal does.
    const slots = await column(ws.id, pipeline.stages[0].id);
    expect(slots.map((s) => s.id)).toEqual([second.body.id, first.body.id]);
    expectDense(slots);
  });

  it('a renamed entry stage or a new default pipeline: the deal enters where the reads say, with their names', async () => {
    const ws = await warmWorkspace();
    const [pipeline] = await stagesOf(ws);
    const contactId = await contactOf(ws);
    await ws.api('POST', '/v1/deals', { title: 'First deal', contact_id: contactId });
    await query('UPDATE stages SET name = ? WHERE id = ?', 'Fresh leads', pipeline.stages[0].id);
    const renamed = await counted(ws, 'POST', '/v1/deals', { title: 'After rename', contact_id: contactId });
    expect(renamed.roundTrips, 'renamed').toBe(2);
    const [event] = (await eventsOf(ws.id, 'deal.created')).filter((e) => e.data.deal_id === renamed.body.id);
    expect(event.data.stage_name).toBe('Fresh leads');

    const other = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, {
      name: 'Partners',
      is_default: true,
      stages: [{ name: 'Intro' }, { name: 'Signed' }],
    });
    // An operator change makes the next request look the key up again; that look-up is not the route's.
    expect((await ws.api('GET', '/v1/pipelines')).status).toBe(200);
    const moved = await counted(ws, 'POST', '/v1/deals', { title: 'New default', contact_id: contactId });
    expect(moved.roundTrips, 'moved').toBe(2);
    expect(moved.body).toMatchObject({ pipeline_id: other.id, stage_id: other.stages[0].id });
    const again = await counted(ws, 'POST', '/v1/deals', { title: 'Known again', contact_id: contactId });
    expect(again.roundTrips, 'again').toBe(2);
    expect(again.body).toMatchObject({ pipeline_id: other.id, stage_id: other.stages[0].id });
    const [last] = (await eventsOf(ws.id, 'deal.created')).filter((e) => e.data.deal_id === again.body.id);
    expect(last.data).toMatchObject({ pipeline_name: 'Partners', stage_name: 'Intro' });
  });

  it('an unknown contact answers 404 and a held external_reference updates its deal; neither leaves a stray row', async () => {
    const ws = await warmWorkspace();
    const contactId = await contactOf(ws);
    const held = (await ws.api('POST', '/v1/deals', { title: 'Held', contact_id: contactId, external_reference: 'crm-2' })).body;
    const before = await footprint(ws);
    const unknown = await ws.api('POST', '/v1/deals', { title: 'Nobody', contact_id: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ message: 'Contact not found' });
    expect(await footprint(ws)).toEqual(before);
    const replay = await counted(ws, 'POST', '/v1/deals', { title: 'Held, renamed', contact_id: contactId, external_reference: 'crm-2' });
    expect(replay.roundTrips).toBe(2);
    // 4 reads (pipelines, stages, the reference's deal, the contact; no owner or product is named, so neither is read) and the update's own statements.
    expect(replay.statements).toBe(6);
    expect(replay.body).toMatchObject({ id: held.id, title: 'Held, renamed', duplicate: true });
    expect((await footprint(ws)).deals).toBe(before.deals);
  });

  it('parallel creates keep one deal per reference and a dense column', async () => {
    const ws = await warmWorkspace();
    const [pipeline] = await stagesOf(ws);
    const contactId = await contactOf(ws);
    await ws.api('POST', '/v1/deals', { title: 'First deal', contact_id: contactId });
    const same = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ws.api('POST', '/v1/deals', { title: `Same ${i}`, contact_id: contactId, external_reference: 'crm-3' })),
    );
    expect(same.every((r) => r.status === 201)).toBe(true);
    expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
    expect(same.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    const fresh = await Promise.all(Array.from({ length: 8 }, (_, i) => ws.api('POST', '/v1/deals', { title: `Fresh ${i}`, contact_id: contactId })));
    expect(fresh.every((r) => r.status === 201)).toBe(true);
    const slots = await column(ws.id, pipeline.stages[0].id);
    expect(slots).toHaveLength(10);
    expectDense(slots);
    expect((await eventsOf(ws.id, 'deal.created')).length).toBe(10);
  });

  it('a deal for a new contact by email creates both; one for the same contact again makes no second contact and nothing stray', async () => {
    const ws = await warmWorkspace();
    const email = `${crypto.randomUUID()}@example.com`;
    const before = await footprint(ws);
    const fresh = await counted(ws, 'POST', '/v1/deals', { title: 'New buyer', email, name: 'Nova Lee' });
    expect(fresh.status).toBe(201);
    expect(fresh.roundTrips).toBe(2);
    expect(fresh.body).toMatchObject({ contact_email: email, contact_name: 'Nova Lee', duplicate: false });
    const [contact] = await query('SELECT id, name, source FROM contacts WHERE workspace_id = ? AND email = ?', ws.id, email);
    expect(contact).toEqual({ id: fresh.body.contact_id, name: 'Nova Lee', source: 'api' });
    expect(await footprint(ws)).toEqual({
      deals: before.deals + 1,
      contact_activities: before.contact_activities + 2,
      event_outbox: before.event_outbox + 2,
    });
    const types = (await eventsOf(ws.id)).filter((e) => e.data.contact_id === fresh.body.contact_id).map((e) => e.type);
    expect(types.sort()).toEqual(['contact.created', 'deal.created']);

    const middle = await footprint(ws);
    const existing = await counted(ws, 'POST', '/v1/deals', { title: 'Same buyer', email, name: 'Ignored' });
    expect(existing.roundTrips).toBe(2);
    expect(existing.body).toMatchObject({ contact_id: fresh.body.contact_id, contact_name: 'Nova Lee' });
    expect(await footprint(ws)).toEqual({
      deals: middle.deals + 1,
      contact_activities: middle.contact_activities + 1,
      event_outbox: middle.event_outbox + 1,
    });
    expect(await query('SELECT id FROM contacts WHERE workspace_id = ? AND email = ?', ws.id, email)).toHaveLength(1);
  });

  it('a contact holding exactly the phone and email is used unchanged; one the upsert would change or refuse follows the upsert', async () => {
    const ws = await warmWorkspace();
    const email = `${crypto.randomUUID()}@example.com`;
    const phone = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
    const holder = (await ws.api('POST', '/v1/contacts', { phone, email, name: 'Hal Older' })).body;
    const before = await footprint(ws);
    const contactBefore = (await ws.api('GET', `/v1/contacts/${holder.id}`)).body;
    for (const [label, reference] of [
      ['phone', { phone }],
      ['email', { email }],
      ['both', { phone, email }],
    ] as const) {
      const res = await counted(ws, 'POST', '/v1/deals', { title: `By ${label}`, ...reference, name: 'Ignored' });
      expect(res.status, label).toBe(201);
      expect(res.roundTrips, label).toBe(2);
      expect(res.body, label).toMatchObject({ contact_id: holder.id, contact_name: 'Hal Older', contact_phone: phone, contact_email: email });
      const { duplicate: _, ...answer } = res.body;
      expect((await ws.api('GET', `/v1/deals/${res.body.id}`)).body, label).toEqual(answer);
      const [event] = (await eventsOf(ws.id, 'deal.created')).filter((e) => e.data.deal_id === res.body.id);
      expect(event.data.contact_id, label).toBe(holder.id);
      const timeline = await query<{ contact_id: string }>(
        `SELECT contact_id FROM contact_activities WHERE workspace_id = ? AND type = 'deal_created' AND data ->> 'deal_id' = ?`,
        ws.id,
        res.body.id,
      );
      expect(timeline, label).toEqual([{ contact_id: holder.id }]);
    }
    expect(await footprint(ws)).toEqual({
      deals: before.deals + 3,
      contact_activities: before.contact_activities + 3,
      event_outbox: before.event_outbox + 3,
    });
    expect((await ws.api('GET', `/v1/contacts/${holder.id}`)).body).toEqual(contactBefore);

    // A new email for the phone's contact is the upsert's update: the reads decide, the contact gains the email.
    const newEmail = `${crypto.randomUUID()}@example.com`;
    const updated = await counted(ws, 'POST', '/v1/deals', { title: 'New email', phone, email: newEmail });
    expect(updated.roundTrips).toBe(2);
    expect(updated.body).toMatchObject({ contact_id: holder.id, contact_email: newEmail });
    // The old email is still the contact's by its history: the upsert finds it there, and takes the reads.
    const byHistory = await counted(ws, 'POST', '/v1/deals', { title: 'Old email', email });
    expect(byHistory.roundTrips).toBe(2);
    expect(byHistory.body).toMatchObject({ contact_id: holder.id });
    // Phone and email held by two contacts: the merge request, and no deal.
    const other = (await ws.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` })).body;
    const dealsBefore = (await footprint(ws)).deals;
    expectCoded(await ws.api('POST', '/v1/deals', { title: 'Two people', phone, email: other.email }), 409, 'CONTACT_MERGE_REQUIRED');
    // A blacklisted phone is refused even though a contact holds it.
    await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone });
    expectCoded(await ws.api('POST', '/v1/deals', { title: 'Blocked', phone }), 400, 'PHONE_BLACKLISTED');
    expect((await footprint(ws)).deals).toBe(dealsBefore);
  });

  it('parallel deals by one new email make one contact, and every deal names it', async () => {
    const ws = await warmWorkspace();
    const email = `${crypto.randomUUID()}@example.com`;
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => ws.api('POST', '/v1/deals', { title: `Parallel ${i}`, email })));
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const contacts = await query<{ id: string }>('SELECT id FROM contacts WHERE workspace_id = ? AND email = ?', ws.id, email);
    expect(contacts).toHaveLength(1);
    expect(new Set(results.map((r) => r.body.contact_id))).toEqual(new Set([contacts[0].id]));
    const events = (await eventsOf(ws.id)).filter((e) => e.data.contact_id === contacts[0].id);
    expect(events.filter((e) => e.type === 'contact.created')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'deal.created')).toHaveLength(8);
  });

  it('a new contact is never created by a deal its reads reject', async () => {
    const ws = await warmWorkspace();
    // A default pipeline without stages: the reads answer 400 before anything is written.
    const now = new Date().toISOString();
    await query('UPDATE pipelines SET is_default = 0 WHERE workspace_id = ?', ws.id);
    await query(
      'INSERT INTO pipelines (id, workspace_id, name, is_default, position, created_at, updated_at) VALUES (?, ?, ?, 1, -1, ?, ?)',
      crypto.randomUUID(),
      ws.id,
      'Empty',
      now,
      now,
    );
    const email = `${crypto.randomUUID()}@example.com`;
    expectCoded(await ws.api('POST', '/v1/deals', { title: 'Nowhere', email }), 400, 'PIPELINE_HAS_NO_STAGES');
    expect(await query('SELECT id FROM contacts WHERE workspace_id = ? AND email = ?', ws.id, email)).toEqual([]);
    expect(await query('SELECT id FROM contact_identifiers WHERE workspace_id = ? AND value = ?', ws.id, email)).toEqual([]);
  });

  it('under a deal cap the cap holds', async () => {
    const ws = await warmWorkspace({ caps: { deals: 2 } });
    const contactId = await contactOf(ws);
    for (const title of ['One', 'Two']) {
      const res = await counted(ws, 'POST', '/v1/deals', { title, contact_id: contactId });
      expect(res.status).toBe(201);
      expect(res.roundTrips).toBe(2);
    }
    expectCoded(await ws.api('POST', '/v1/deals', { title: 'Three', contact_id: contactId }), 403, 'PLAN_LIMIT_EXCEEDED');
  });
});
