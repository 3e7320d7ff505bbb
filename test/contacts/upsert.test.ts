import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace, uuidRe } from '../support/harness';
import { blacklist, createContact, outbox, rows } from './helpers';
import { rowsIn } from '../support/db';

describe('POST /v1/contacts upsert', () => {
  it('creates with 201 duplicate false, seeds consent, writes activity and contact.created', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const res = await ws.api('POST', '/v1/contacts', {
      phone: '+14155550101',
      email: 'new@example.com',
      name: 'New Person',
      lifecycle_stage: 'lead',
      tags: ['x'],
    });
    expect(res.status).toBe(201);
    expect(res.body.duplicate).toBe(false);
    expect(res.body.source).toBe('api');
    expect(res.body.whatsapp_subscribed).toBe(true);
    expect(res.body.email_subscribed).toBe(false);
    const consent = await ws.api('GET', `/v1/contacts/${res.body.id}/consent`);
    expect(consent.body.whatsapp.consent_state).toBe('subscribed');
    expect(consent.body.email.consent_state).toBe('unknown');
    const ledger = await rows('SELECT channel, action, state, source FROM consent_ledger WHERE contact_id = ? ORDER BY channel', res.body.id);
    expect(ledger).toEqual([
      { channel: 'email', action: 'seed', state: 'unknown', source: 'api' },
      { channel: 'whatsapp', action: 'seed', state: 'subscribed', source: 'api' },
    ]);
    expect(await rows('SELECT type FROM contact_activities WHERE contact_id = ?', res.body.id)).toEqual([{ type: 'created' }]);
    const events = await outbox(ws.id);
    expect(events.map((e) => e.type)).toEqual(['contact.created']);
    expect(events[0].data).toEqual({
      contact_id: res.body.id,
      contact: {
        id: res.body.id,
        phone: '+14155550101',
        email: 'new@example.com',
        name: 'New Person',
        first_name: 'New',
        last_name: 'Person',
        lifecycle_stage: 'lead',
        source: 'api',
        block_state: 'none',
        lead_score: null,
      },
      source: 'api',
      duplicate: false,
    });
  });

  it('does not seed email consent without an email nor WhatsApp without a phone', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'e@example.com' });
    expect(c.whatsapp_subscribed).toBe(false);
    const consent = await ws.api('GET', `/v1/contacts/${c.id}/consent`);
    expect(consent.body.whatsapp).toEqual({ consent_state: 'unknown', deliverability: 'unknown', updated_at: null });
  });

  it('updates a match: 201 duplicate true, scalars overwrite, custom fields merge, labels only added', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await createContact(ws, {
      phone: '+14155550102',
      city: 'Rome',
      company_name: 'Old',
      custom_fields: { a: 1, b: 2 },
      tags: ['one'],
      groups: ['g1'],
    });
    const b = await ws.api('POST', '/v1/contacts', {
      phone: '+14155550102',
      city: 'Milan',
      custom_fields: { b: 3, c: 4 },
      tags: ['two'],
      groups: [],
    });
    expect(b.status).toBe(201);
    expect(b.body.duplicate).toBe(true);
    expect(b.body.id).toBe(a.id);
    expect(b.body.city).toBe('Milan');
    expect(b.body.company_name).toBe('Old');
    expect(b.body.custom_fields).toEqual({ a: 1, b: 3, c: 4 });
    expect(b.body.tags).toHaveLength(2);
    expect(b.body.tags).toEqual(expect.arrayContaining(a.tags));
    expect(b.body.groups).toEqual(a.groups);
    const updated = await outbox(ws.id, 'contact.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0].data.changed_fields.sort()).toEqual(['city', 'custom_fields.b', 'custom_fields.c', 'tags']);
    expect(updated[0].data.source).toBe('api');
    expect(updated[0].data.contact.id).toBe(a.id);
  });

  it('emits nothing and writes nothing when a match changes nothing', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await createContact(ws, { email: 'same@example.com', city: 'Oslo', tags: ['t'] });
    const b = await ws.api('POST', '/v1/contacts', { email: 'same@example.com', city: 'Oslo', tags: ['T'] });
    expect(b.body.duplicate).toBe(true);
    expect(b.body.updated_at).toBe(a.updated_at);
    expect(await outbox(ws.id, 'contact.updated')).toEqual([]);
  });

  it('phone wins over email; the email match is the fallback', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const byPhone = await createContact(ws, { phone: '+14155550103' });
    const byEmail = await createContact(ws, { email: 'fallback@example.com' });
    const viaPhone = await createContact(ws, { phone: '+14155550103', email: 'fresh@example.com' });
    expect(viaPhone.id).toBe(byPhone.id);
    expect(viaPhone.email).toBe('fresh@example.com');
    const viaEmail = await createContact(ws, { phone: '+14155550104', email: 'fallback@example.com' });
    expect(viaEmail.id).toBe(byEmail.id);
    expect(viaEmail.phone).toBe('+14155550104');
  });

  it('resolves identifiers history-aware: a moved-off identifier still finds its last holder', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { phone: '+14155550105', email: 'old@example.com' });
    await ws.api('PATCH', `/v1/contacts/${c.id}`, { phone: '+14155550106', email: 'new@example.com' });
    const byOldPhone = await createContact(ws, { phone: '+14155550105', city: 'Lima' });
    expect(byOldPhone.id).toBe(c.id);
    expect(byOldPhone.duplicate).toBe(true);
    const byOldEmail = await createContact(ws, { email: 'old@example.com' });
    expect(byOldEmail.id).toBe(c.id);
  });

  it('409 CONTACT_MERGE_REQUIRED when phone and email resolve to different contacts; nothing written; request reused', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const p = await createContact(ws, { phone: '+14155550107', city: 'A' });
    const e = await createContact(ws, { email: 'conflict@example.com', city: 'B' });
    const first = await ws.api('POST', '/v1/contacts', { phone: '+14155550107', email: 'conflict@example.com', city: 'C', tags: ['held'] });
    expect(first.status).toBe(409);
    expect(first.body).toEqual({
      statusCode: 409,
      error: 'Conflict',
      error_code: 'CONTACT_MERGE_REQUIRED',
      merge_request_id: expect.stringMatching(uuidRe),
      message: expect.stringContaining('merge request'),
    });
    const again = await ws.api('POST', '/v1/contacts', { phone: '+14155550107', email: 'conflict@example.com', city: 'D' });
    expect(again.body.merge_request_id).toBe(first.body.merge_request_id);
    expect((await ws.api('GET', `/v1/contacts/${p.id}`)).body.city).toBe('A');
    expect((await ws.api('GET', `/v1/contacts/${e.id}`)).body.city).toBe('B');
    const [mr] = await rows<any>('SELECT * FROM contact_merge_requests WHERE id = ?', first.body.merge_request_id);
    expect([mr.target_contact_id, mr.other_contact_id, mr.status]).toEqual([p.id, e.id, 'open']);
    expect(JSON.parse(mr.parked_fields)).toEqual({ city: 'D' });
    expect((await rowsIn(ws.id, 'SELECT count(*) AS n FROM contact_merge_requests WHERE workspace_id = ?', ws.id))[0]).toEqual({ n: 1 });
    const patchConflict = await ws.api('PATCH', `/v1/contacts/${p.id}`, { email: 'conflict@example.com' });
    expect(patchConflict.status).toBe(409);
    expect(patchConflict.body.message).not.toBe(first.body.message);
  });

  it('concurrent creates of one identity give one contact', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ws.api('POST', '/v1/contacts', { phone: '+14155550108', email: 'race@example.com', tags: [`t${i}`] })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect((await rowsIn(ws.id, 'SELECT count(*) AS n FROM contacts WHERE workspace_id = ?', ws.id))[0]).toEqual({ n: 1 });
    expect(await outbox(ws.id, 'contact.created')).toHaveLength(1);
    const final = await ws.api('GET', `/v1/contacts/${results[0].body.id}`);
    expect(final.body.tags).toHaveLength(8);
  });

  it('rejects a blacklisted phone with PHONE_BLACKLISTED on create and on a PATCH to it', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    await blacklist(ws, '+14155550109');
    const res = await ws.api('POST', '/v1/contacts', { phone: '(415) 555-0109' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', error_code: 'PHONE_BLACKLISTED' });
    const c = await createContact(ws, { phone: '+14155550110' });
    const patch = await ws.api('PATCH', `/v1/contacts/${c.id}`, { phone: '+14155550109' });
    expect(patch.status).toBe(400);
    expect(patch.body.error_code).toBe('PHONE_BLACKLISTED');
    expect((await rowsIn(ws.id, 'SELECT count(*) AS n FROM contacts WHERE workspace_id = ?', ws.id))[0]).toEqual({ n: 1 });
  });

  it('records a block without a blacklist match as an import block, with one as a blacklist block', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { phone: '+14155550111', block_state: 'workspace' });
    expect((await rows('SELECT block_source FROM contacts WHERE id = ?', c.id))[0]).toEqual({ block_source: 'import' });
    await blacklist(ws, '+14155550111');
    await ws.api('PATCH', `/v1/contacts/${c.id}`, { block_state: 'none' });
    await ws.api('PATCH', `/v1/contacts/${c.id}`, { block_state: 'global' });
    expect((await rows('SELECT block_source FROM contacts WHERE id = ?', c.id))[0]).toEqual({ block_source: 'blacklist' });
  });

  it('enforces the contact cap when one is set, with updates still allowed', async () => {
    const ws = await makeWorkspace({ caps: { contacts: 2 } }, { pipeline: false });
    await createContact(ws, { email: 'c1@example.com' });
    await createContact(ws, { email: 'c2@example.com' });
    const over = await ws.api('POST', '/v1/contacts', { email: 'c3@example.com' });
    expect(over.status).toBe(400);
    expect(over.body.message).toMatch(/^Limit reached\./);
    const update = await ws.api('POST', '/v1/contacts', { email: 'c1@example.com', city: 'X' });
    expect(update.status).toBe(201);
    const uncapped = await makeWorkspace({}, { pipeline: false });
    for (let i = 0; i < 3; i++) await createContact(uncapped, { email: `u${i}@example.com` });
  });

  it('never overshoots the contact cap under parallel creates, and writes nothing for the rejected ones', async () => {
    const ws = await makeWorkspace({ caps: { contacts: 3 } }, { pipeline: false });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => ws.api('POST', '/v1/contacts', { email: `cap${i}@example.com` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/^Limit reached\./);
    }
    const listed = await ws.api('GET', '/v1/contacts');
    expect(listed.body.total).toBe(3);
    const outbox = await rowsIn(ws.id, "SELECT count(*) AS n FROM event_outbox WHERE workspace_id = ? AND type = 'contact.created'", ws.id);
    expect(outbox[0]).toEqual({ n: 3 });
  });

  it('creates contacts without any identifier', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await createContact(ws, { name: 'No Id' });
    const b = await createContact(ws, { name: 'No Id' });
    expect(a.id).not.toBe(b.id);
    const empty = await ws.api('POST', '/v1/contacts');
    expect(empty.status).toBe(201);
  });

  it('serves the resolution service used by other modules through form submissions', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const formId = crypto.randomUUID();
    const sub = await adminOk('POST', `/workspaces/${ws.id}/forms/${formId}/submissions`, {
      form_name: 'Signup',
      origin: 'landing_page',
      fields: { q: 'a' },
      contact: { email: 'Form@Example.com', name: 'Form Person' },
    });
    const created = await ws.api('GET', `/v1/contacts/${sub.contact_id}`);
    expect([created.body.email, created.body.name, created.body.source]).toEqual(['form@example.com', 'Form Person', 'form']);
    const again = await adminOk('POST', `/workspaces/${ws.id}/forms/${formId}/submissions`, {
      form_name: 'Signup',
      origin: 'landing_page',
      fields: {},
      contact: { email: 'form@example.com', name: 'Other Name' },
    });
    expect(again.contact_id).toBe(sub.contact_id);
    expect((await ws.api('GET', `/v1/contacts/${sub.contact_id}`)).body.name).toBe('Form Person');
    const events = await outbox(ws.id, 'form.submitted');
    expect(events[0].data).toEqual({
      form_id: formId,
      form_name: 'Signup',
      submission_id: sub.id,
      contact_id: sub.contact_id,
      origin: 'landing_page',
      fields: { q: 'a' },
      submitted_at: sub.created_at,
    });
    expect((await outbox(ws.id, 'contact.created'))[0].data.source).toBe('form');
    const anonymous = await adminOk('POST', `/workspaces/${ws.id}/forms/${formId}/submissions`, { form_name: 'Signup', origin: 'popup', fields: {} });
    expect(anonymous.contact_id).toBeNull();
    expect((await outbox(ws.id, 'form.submitted')).at(-1)!.data.contact_id).toBeNull();
  });
});
