import { describe, expect, it } from 'vitest';
import { admin, adminOk } from '../support/harness';
import { expectFromOutbox, freshEmail, freshPhone, outbox, subscribed, useReceiver } from './support';

const receiver = useReceiver();

describe('event.attendance.changed', () => {
  it('fires on each status change with the previous status, the timestamps and the event summary', async () => {
    const { ws, ep } = await subscribed(['event.attendance.changed']);
    const contact = (await ws.api('POST', '/v1/contacts', { phone: freshPhone() })).body;
    const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'Launch webinar', start_at: '2030-05-01T15:00:00+02:00' });
    const path = `/workspaces/${ws.id}/events/${event.id}/attendance`;
    const registered = await adminOk('POST', path, { contact_id: contact.id, status: 'registered' });
    const same = await admin('POST', path, { contact_id: contact.id, status: 'registered' });
    expect(same.status).toBe(201);
    const attended = await adminOk('POST', path, { contact_id: contact.id, status: 'attended' });
    const cancelled = await adminOk('POST', path, { contact_id: contact.id, status: 'cancelled' });

    const got = await receiver.received(ep, 3);
    const rows = await outbox(ws.id, 'event.*');
    expect(rows).toHaveLength(3);
    got.forEach((d, i) => expectFromOutbox(d, rows[i]));
    const summary = { id: event.id, name: 'Launch webinar', start_at: '2030-05-01T13:00:00.000Z' };
    const common = {
      attendance_id: registered.id,
      event_id: event.id,
      contact_id: contact.id,
      registered_at: registered.registered_at,
      event: summary,
    };
    expect(got.map((d) => d.data)).toEqual([
      { ...common, status: 'registered', previous_status: null, attended_at: null, unregistered_at: null },
      { ...common, status: 'attended', previous_status: 'registered', attended_at: attended.attended_at, unregistered_at: null },
      { ...common, status: 'cancelled', previous_status: 'attended', attended_at: attended.attended_at, unregistered_at: cancelled.unregistered_at },
    ]);
    expect(attended.attended_at).toEqual(expect.any(String));
    expect(cancelled.unregistered_at).toEqual(expect.any(String));
  });

  it('an unknown event or contact writes nothing; parallel identical changes fire once', async () => {
    const { ws } = await subscribed(['event.attendance.changed']);
    const contact = (await ws.api('POST', '/v1/contacts', { phone: freshPhone() })).body;
    const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'Meetup', start_at: '2030-05-01T15:00:00Z' });
    expect(
      (await admin('POST', `/workspaces/${ws.id}/events/${crypto.randomUUID()}/attendance`, { contact_id: contact.id, status: 'registered' })).status,
    ).toBe(404);
    expect(
      (await admin('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: crypto.randomUUID(), status: 'registered' })).status,
    ).toBe(404);
    expect(await outbox(ws.id, 'event.*')).toEqual([]);

    const path = `/workspaces/${ws.id}/events/${event.id}/attendance`;
    const results = await Promise.all(Array.from({ length: 5 }, () => admin('POST', path, { contact_id: contact.id, status: 'attending' })));
    expect(results.map((r) => r.status)).toEqual(Array(5).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    const rows = await outbox(ws.id, 'event.*');
    expect(rows.map((r) => [r.data.status, r.data.previous_status, r.data.attendance_id])).toEqual([['attending', null, results[0].body.id]]);

    const moves = await Promise.all(Array.from({ length: 5 }, () => admin('POST', path, { contact_id: contact.id, status: 'attended' })));
    expect(moves.map((r) => r.status)).toEqual(Array(5).fill(201));
    expect(new Set(moves.map((r) => r.body.attended_at)).size).toBe(1);
    const after = await outbox(ws.id, 'event.*');
    expect(after.map((r) => [r.data.status, r.data.previous_status])).toEqual([
      ['attending', null],
      ['attended', 'attending'],
    ]);
  });
});

describe('form.submitted', () => {
  it('fires after the submission is stored, with the resolved contact (created with source form)', async () => {
    const { ws, ep } = await subscribed(['form.submitted', 'contact.created']);
    const formId = crypto.randomUUID();
    const email = freshEmail();
    const res = await admin('POST', `/workspaces/${ws.id}/forms/${formId}/submissions`, {
      form_name: 'Newsletter signup',
      origin: 'landing_page',
      fields: { email, interest: 'pricing' },
      contact: { email, name: 'Form Person' },
    });
    expect(res.status).toBe(201);
    const got = await receiver.received(ep, 2);
    expect(got.map((d) => d.type)).toEqual(['contact.created', 'form.submitted']);
    const contactId = got[0].data.contact_id;
    expect(got[0].data.source).toBe('form');
    expect(got[0].data.contact.source).toBe('form');
    expectFromOutbox(got[1], (await outbox(ws.id, 'form.*'))[0]);
    expect(got[1].data).toEqual({
      form_id: formId,
      form_name: 'Newsletter signup',
      submission_id: res.body.id,
      contact_id: contactId,
      origin: 'landing_page',
      fields: { email, interest: 'pricing' },
      submitted_at: res.body.created_at,
    });
  });

  it('fires with a null contact_id when no contact was given, once per submission', async () => {
    const { ws, ep } = await subscribed(['form.submitted']);
    const formId = crypto.randomUUID();
    const a = await adminOk('POST', `/workspaces/${ws.id}/forms/${formId}/submissions`, {
      form_name: 'Poll',
      origin: 'popup',
      fields: { answer: 'yes' },
    });
    const b = await adminOk('POST', `/workspaces/${ws.id}/forms/${formId}/submissions`, {
      form_name: 'Poll',
      origin: 'popup',
      fields: { answer: 'yes' },
    });
    const got = await receiver.received(ep, 2);
    expect(got.map((d) => d.data.submission_id)).toEqual([a.id, b.id]);
    expect(got[0].data).toEqual({
      form_id: formId,
      form_name: 'Poll',
      submission_id: a.id,
      contact_id: null,
      origin: 'popup',
      fields: { answer: 'yes' },
      submitted_at: a.created_at,
    });
    expect(new Set(got.map((d) => d.id)).size).toBe(2);
  });

  it('is stored and fires with a null contact_id when the contact cannot be resolved (merge conflict)', async () => {
    const { ws, ep } = await subscribed(['form.submitted']);
    const phone = freshPhone();
    const email = freshEmail();
    await ws.api('POST', '/v1/contacts', { phone });
    await ws.api('POST', '/v1/contacts', { email });
    const formId = crypto.randomUUID();
    const res = await admin('POST', `/workspaces/${ws.id}/forms/${formId}/submissions`, {
      form_name: 'Demo',
      origin: 'form',
      fields: { phone, email },
      contact: { phone, email },
    });
    expect(res.status).toBe(201);
    expect(res.body.contact_id).toBeNull();
    const [d] = await receiver.received(ep, 1);
    expect(d.data).toEqual({
      form_id: formId,
      form_name: 'Demo',
      submission_id: res.body.id,
      contact_id: null,
      origin: 'form',
      fields: { phone, email },
      submitted_at: res.body.created_at,
    });
  });

  it('a rejected submission writes no submission and no event', async () => {
    const { ws } = await subscribed(['form.submitted']);
    const formId = crypto.randomUUID();
    const bad = await admin('POST', `/workspaces/${ws.id}/forms/${formId}/submissions`, { form_name: 'X', origin: 'widget', fields: {} });
    expect(bad.status).toBe(400);
    expect(await outbox(ws.id)).toEqual([]);
  });
});
