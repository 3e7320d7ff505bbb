import { describe, expect, it } from 'vitest';
import { admin, adminOk, makeWorkspace } from '../support/harness';
import { createContact, outbox, rows } from './helpers';

async function conflictPair() {
  const ws = await makeWorkspace({}, { pipeline: false });
  const target = await createContact(ws, { phone: '+14155550160', city: 'Target City', tags: ['t1'], custom_fields: { a: 'target' } });
  const other = await createContact(ws, {
    email: 'other@example.com',
    company_name: 'Other Co',
    tags: ['t2'],
    custom_fields: { a: 'other', b: 'other' },
  });
  await ws.api('POST', `/v1/contacts/${other.id}/notes`, { body: 'note on other' });
  const conflict = await ws.api('POST', '/v1/contacts', { phone: '+14155550160', email: 'other@example.com', job_title: 'Parked', tags: ['t3'] });
  expect(conflict.status).toBe(409);
  return { ws, target, other, mergeRequestId: conflict.body.merge_request_id as string };
}

describe('merge requests', () => {
  it('merge: the target absorbs the other contact silently and gets the parked fields', async () => {
    const { ws, target, other, mergeRequestId } = await conflictPair();
    const before = (await outbox(ws.id)).length;
    const res = await admin('POST', `/merge-requests/${mergeRequestId}/resolve`, { action: 'merge' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: mergeRequestId, status: 'merged', target_contact_id: target.id, other_contact_id: other.id });
    const merged = res.body.contact;
    expect(merged).toMatchObject({
      id: target.id,
      phone: '+14155550160',
      email: 'other@example.com',
      city: 'Target City',
      company_name: 'Other Co',
      job_title: 'Parked',
    });
    expect(merged.custom_fields).toEqual({ a: 'target', b: 'other' });
    expect(merged.tags).toHaveLength(3);
    expect((await ws.api('GET', `/v1/contacts/${other.id}`)).status).toBe(404);
    expect((await ws.api('GET', `/v1/contacts/${target.id}/notes`)).body.map((n: any) => n.body)).toEqual(['note on other']);
    expect((await outbox(ws.id)).length).toBe(before);
    const viaEmail = await createContact(ws, { email: 'other@example.com' });
    expect(viaEmail.id).toBe(target.id);
    const again = await admin('POST', `/merge-requests/${mergeRequestId}/resolve`, { action: 'dismiss' });
    expect(again.status).toBe(409);
  });

  it('resolves once under parallel merges: one 200, the rest 409, the merge applied once', async () => {
    const { ws, target, other, mergeRequestId } = await conflictPair();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => admin('POST', `/merge-requests/${mergeRequestId}/resolve`, { action: 'merge' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409]);
    expect((await ws.api('GET', `/v1/contacts/${other.id}`)).status).toBe(404);
    const merged = (await ws.api('GET', `/v1/contacts/${target.id}`)).body;
    expect(merged).toMatchObject({ email: 'other@example.com', job_title: 'Parked' });
    expect(await rows("SELECT type FROM contact_activities WHERE contact_id = ? AND type = 'merged'", target.id)).toHaveLength(1);
  });

  it('dismiss: applies the parked fields to the target without merging', async () => {
    const { ws, target, other, mergeRequestId } = await conflictPair();
    const res = await adminOk('POST', `/merge-requests/${mergeRequestId}/resolve`, { action: 'dismiss' });
    expect(res.status).toBe('dismissed');
    expect(res.contact).toMatchObject({ id: target.id, job_title: 'Parked', email: null });
    expect(res.contact.tags).toHaveLength(2);
    expect((await ws.api('GET', `/v1/contacts/${other.id}`)).body.email).toBe('other@example.com');
    const [mr] = await rows<any>('SELECT status, resolved_at FROM contact_merge_requests WHERE id = ?', mergeRequestId);
    expect(mr.status).toBe('dismissed');
    const next = await ws.api('POST', '/v1/contacts', { phone: '+14155550160', email: 'other@example.com' });
    expect(next.status).toBe(409);
    expect(next.body.merge_request_id).not.toBe(mergeRequestId);
  });

  it('PATCH conflicts hold the sent fields and replace labels on resolution', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await createContact(ws, { email: 'a@example.com', tags: ['old'] });
    await createContact(ws, { email: 'b@example.com' });
    const conflict = await ws.api('PATCH', `/v1/contacts/${a.id}`, { email: 'b@example.com', city: 'Held', tags: ['new'] });
    const res = await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'dismiss' });
    expect(res.contact.city).toBe('Held');
    expect(res.contact.email).toBe('a@example.com');
    const tags = await ws.api('GET', '/v1/tags?sort=name');
    expect(res.contact.tags).toEqual([tags.body.data.find((t: any) => t.name === 'new').id]);
  });

  it('refuses a merge whose combined custom_fields would exceed the bounds, and changes nothing', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const fields = (prefix: string) => Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`${prefix}${i}`, i]));
    const target = await createContact(ws, { phone: '+14155550161', custom_fields: fields('t') });
    const other = await createContact(ws, { email: 'wide@example.com', custom_fields: fields('o') });
    const conflict = await ws.api('POST', '/v1/contacts', { phone: '+14155550161', email: 'wide@example.com' });
    expect(conflict.status).toBe(409);
    const res = await admin('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(['custom_fields: after merging, must hold at most 100 keys (nested keys included)']);
    expect((await ws.api('GET', `/v1/contacts/${other.id}`)).status).toBe(200);
    expect(Object.keys((await ws.api('GET', `/v1/contacts/${target.id}`)).body.custom_fields)).toHaveLength(60);
    expect((await admin('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'dismiss' })).status).toBe(200);
  });

  it('validates the action and answers 404 for unknown requests', async () => {
    const { mergeRequestId } = await conflictPair();
    expect((await admin('POST', `/merge-requests/${mergeRequestId}/resolve`, { action: 'split' })).status).toBe(400);
    expect((await admin('POST', `/merge-requests/${crypto.randomUUID()}/resolve`, { action: 'merge' })).status).toBe(404);
  });
});

describe('events and attendance', () => {
  it('fires event.attendance.changed with the full data shape, only on a status change', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'att@example.com' });
    const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'Webinar', start_at: '2026-12-24T10:00:00Z' });
    expect(event).toMatchObject({ id: expect.any(String), name: 'Webinar', start_at: '2026-12-24T10:00:00.000Z' });
    const reg = await adminOk('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: c.id, status: 'registered' });
    await adminOk('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: c.id, status: 'registered' });
    await adminOk('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: c.id, status: 'attended' });
    const events = await outbox(ws.id, 'event.attendance.changed');
    expect(events).toHaveLength(2);
    expect(events[0].data).toEqual({
      attendance_id: reg.id,
      event_id: event.id,
      contact_id: c.id,
      status: 'registered',
      previous_status: null,
      registered_at: reg.registered_at,
      attended_at: null,
      unregistered_at: null,
      event: { id: event.id, name: 'Webinar', start_at: '2026-12-24T10:00:00.000Z' },
    });
    expect(events[1].data).toMatchObject({
      attendance_id: reg.id,
      status: 'attended',
      previous_status: 'registered',
      attended_at: expect.any(String),
    });
  });

  it('rejects unknown events, contacts of other workspaces and bad bodies', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const other = await makeWorkspace({}, { pipeline: false });
    const foreign = await createContact(other, { email: 'f@example.com' });
    const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'E', start_at: '2026-12-24T10:00:00Z' });
    expect((await admin('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: foreign.id, status: 'registered' })).status).toBe(
      404,
    );
    expect(
      (await admin('POST', `/workspaces/${other.id}/events/${event.id}/attendance`, { contact_id: foreign.id, status: 'registered' })).status,
    ).toBe(404);
    expect((await admin('POST', `/workspaces/${ws.id}/events`, { name: 'E', start_at: 'soon' })).status).toBe(400);
    expect((await admin('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: 'x', status: 'registered' })).status).toBe(400);
  });

  it('complaints need a known contact of the workspace and a known channel', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'c@example.com' });
    expect((await admin('POST', `/workspaces/${ws.id}/contacts/${c.id}/complaints`, { channel: 'sms' })).status).toBe(400);
    const other = await makeWorkspace({}, { pipeline: false });
    expect((await admin('POST', `/workspaces/${other.id}/contacts/${c.id}/complaints`, { channel: 'email' })).status).toBe(404);
    const ok = await admin('POST', `/workspaces/${ws.id}/contacts/${c.id}/complaints`, { channel: 'email' });
    expect(ok.status).toBe(201);
  });
});
