import { describe, expect, it } from 'vitest';
import { admin, adminOk } from '../support/harness';
import { ALL_WEEK } from '../support/resources';
import { deliver, notification, textMessage, waWorkspace } from '../whatsapp/helpers';
import { freshEmail, ok, scoreBecomes, scoringWorkspace } from './support';

/** Each family's signals, one distinct weight each, so a score names what was counted. */
describe('signals', () => {
  it('deals: a win and a loss of the contact count once each', async () => {
    const ws = await scoringWorkspace([
      { signal: 'deal.won', points: 40 },
      { signal: 'deal.lost', points: -10 },
    ]);
    const won = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${won.id}/status`, { status: 'won' });
    await scoreBecomes(ws, won.contact_id, 40);
    const lost = await ok(ws, 'POST', '/v1/deals', { title: 'Lost', contact_id: won.contact_id });
    await ok(ws, 'POST', `/v1/deals/${lost.id}/status`, { status: 'lost' });
    await scoreBecomes(ws, won.contact_id, 30);
    const score = await ok(ws, 'GET', `/v1/contacts/${won.contact_id}/score`);
    expect(score.contributions.map((c: { signal: string; points: number }) => [c.signal, c.points])).toEqual([
      ['deal.won', 40],
      ['deal.lost', -10],
    ]);
    expect(score.score_band).toBe('warm');
  });

  it('payments and orders: a completed payment and a paid order', async () => {
    const ws = await scoringWorkspace([
      { signal: 'payment.completed', points: 7 },
      { signal: 'order.paid', points: 11 },
    ]);
    const contact = await ok(ws, 'POST', '/v1/contacts', { email: freshEmail() });
    await ok(ws, 'POST', '/v1/payments', { type: 'one_time', contact_id: contact.id, amount: 10 });
    await scoreBecomes(ws, contact.id, 7);
    const order = await ok(ws, 'POST', '/v1/orders', { contact_id: contact.id, items: [{ title: 'Item', unit_price: 5 }] });
    await ok(ws, 'POST', `/v1/orders/${order.id}/mark-paid`, {});
    // Marking the order paid records its payment too.
    await scoreBecomes(ws, contact.id, 25);
    // A pending payment is no completed one until it is marked so.
    const other = await ok(ws, 'POST', '/v1/contacts', { email: freshEmail() });
    const pending = await ok(ws, 'POST', '/v1/payments', { type: 'one_time', contact_id: other.id, amount: 10, status: 'pending' });
    await ok(ws, 'POST', `/v1/payments/${pending.id}/entries/${pending.entries[0].id}/mark`, { status: 'completed' });
    await scoreBecomes(ws, other.id, 7);
  });

  it('bookings: created and cancelled', async () => {
    const ws = await scoringWorkspace([
      { signal: 'booking.created', points: 15 },
      { signal: 'booking.cancelled', points: -5 },
    ]);
    const host = await adminOk('POST', `/workspaces/${ws.id}/users`, { name: 'Host', email: freshEmail(), role: 'agent' });
    const type = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
      name: 'Intro',
      slug: `intro-${crypto.randomUUID().slice(0, 8)}`,
      duration_minutes: 30,
      scheduling_kind: 'round_robin',
      host_user_ids: [host.id],
      timezone: 'UTC',
      weekly_hours: ALL_WEEK,
    });
    const booking = await ok(ws, 'POST', '/v1/bookings', {
      meeting_type_id: type.id,
      start_at: '2030-01-09T10:00:00Z',
      timezone: 'UTC',
      invitee: { name: 'Invitee', email: freshEmail() },
    });
    await scoreBecomes(ws, booking.contact_id, 15);
    await ok(ws, 'POST', `/v1/bookings/${booking.id}/cancel`, {});
    await scoreBecomes(ws, booking.contact_id, 10);
  });

  it('forms and events: a submission and an attendance (once, however it is corrected)', async () => {
    const ws = await scoringWorkspace([
      { signal: 'form.submitted', points: 9 },
      { signal: 'event.attended', points: 12 },
    ]);
    const email = freshEmail();
    const submission = await adminOk('POST', `/workspaces/${ws.id}/forms/${crypto.randomUUID()}/submissions`, {
      form_name: 'Demo request',
      origin: 'form',
      fields: { email },
      contact: { email },
    });
    await scoreBecomes(ws, submission.contact_id, 9);
    const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'Meetup', start_at: '2030-02-01T18:00:00Z' });
    const attendance = `/workspaces/${ws.id}/events/${event.id}/attendance`;
    await adminOk('POST', attendance, { contact_id: submission.contact_id, status: 'attended' });
    await scoreBecomes(ws, submission.contact_id, 21);
    await adminOk('POST', attendance, { contact_id: submission.contact_id, status: 'attending' });
    await adminOk('POST', attendance, { contact_id: submission.contact_id, status: 'attended' });
    const score = await ok(ws, 'GET', `/v1/contacts/${submission.contact_id}/score`);
    expect(score.contributions.filter((c: { signal?: string }) => c.signal === 'event.attended')).toHaveLength(1);
    expect(score.lead_score).toBe(21);
  });

  it('WhatsApp: an inbound message of the contact', async () => {
    const ws = await waWorkspace();
    await adminOk('PUT', `/workspaces/${ws.id}/scoring`, { enabled: true, rules: [{ signal: 'message.received', points: 6 }], half_life_days: null });
    const from = `1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
    expect((await deliver(notification(ws.phoneNumberId, textMessage(from, `wamid.${crypto.randomUUID()}`)))).status).toBe(200);
    const contacts = await ok(ws, 'GET', `/v1/contacts?search=${from}`);
    await scoreBecomes(ws, contacts.data[0].id, 6);
  });

  it('email: opened, clicked and bounced for the contact holding the address; unsubscribing', async () => {
    const ws = await scoringWorkspace([
      { signal: 'email.opened', points: 1 },
      { signal: 'email.clicked', points: 3 },
      { signal: 'email.bounced', points: -2 },
      { signal: 'email.unsubscribed', points: -20 },
    ]);
    await adminOk('POST', `/workspaces/${ws.id}/sender-profiles`, {
      from_name: 'Acme',
      from_email: 'hi@mail.acme.example',
      domain_verified: true,
      is_default: true,
    });
    const email = freshEmail();
    const contact = await ok(ws, 'POST', '/v1/contacts', { email, lifecycle_stage: 'lead' });
    const send = async () =>
      ok(ws, 'POST', '/v1/emails', { to: email.toUpperCase(), subject: 'Hi', text: 'Hello', idempotency_key: crypto.randomUUID() });
    const first = await send();
    await adminOk('POST', `/email-sends/${first.id}/events`, { type: 'delivered' });
    await adminOk('POST', `/email-sends/${first.id}/events`, { type: 'opened' });
    await adminOk('POST', `/email-sends/${first.id}/events`, { type: 'clicked', url: 'https://acme.example' });
    // A repeated fact records nothing again.
    await adminOk('POST', `/email-sends/${first.id}/events`, { type: 'opened' });
    await scoreBecomes(ws, contact.id, 4);
    const second = await send();
    await adminOk('POST', `/email-sends/${second.id}/events`, { type: 'bounced', bounce_type: 'soft' });
    await scoreBecomes(ws, contact.id, 2);
    await ok(ws, 'PUT', `/v1/contacts/${contact.id}/consent/email`, { state: 'subscribed' });
    await ok(ws, 'PUT', `/v1/contacts/${contact.id}/consent/email`, { state: 'unsubscribed' });
    await scoreBecomes(ws, contact.id, 0);
    const score = await ok(ws, 'GET', `/v1/contacts/${contact.id}/score`);
    expect(score.contributions.map((c: { signal: string }) => c.signal).sort()).toEqual([
      'email.bounced',
      'email.clicked',
      'email.opened',
      'email.unsubscribed',
    ]);
  });

  it('records nothing while the workspace does not score', async () => {
    const ws = await scoringWorkspace([{ signal: 'deal.won', points: 40 }]);
    await adminOk('PUT', `/workspaces/${ws.id}/scoring`, { enabled: false });
    const deal = await ok(ws, 'POST', '/v1/deals', { title: 'Won', email: freshEmail() });
    await ok(ws, 'POST', `/v1/deals/${deal.id}/status`, { status: 'won' });
    await adminOk('PUT', `/workspaces/${ws.id}/scoring`, { enabled: true });
    // Switching on rescored every contact from what was recorded: nothing.
    await scoreBecomes(ws, deal.contact_id, 0);
    expect((await admin('GET', `/workspaces/${ws.id}/contacts/${deal.contact_id}/export?kind=score_signals`)).body.score_signals).toEqual([]);
  });
});
