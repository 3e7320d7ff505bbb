import { expect } from 'vitest';
import { shardOf } from './db';
import { adminOk, eventually, makeWorkspace } from './harness';
import { ALL_WEEK } from './resources';

/** A contact with a record of every kind the export lists. */
export async function seededContact() {
  // Scoring on: the contact's signals are records of it too.
  const ws = await makeWorkspace({ lead_scoring: true });
  const email = `${crypto.randomUUID()}@example.com`;
  const name = `Grace Hopper ${crypto.randomUUID().slice(0, 8)}`;
  const phone = `+1415555${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await ws.api(method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const contact = await ok('POST', '/v1/contacts', { name, email, phone, tags: ['vip'], groups: ['Navy'], custom_fields: { plan: 'pro' } });
  await ok('PATCH', `/v1/contacts/${contact.id}`, { email: `new-${email}` });
  await ok('PUT', `/v1/contacts/${contact.id}/consent/email`, { state: 'subscribed' });
  await ok('POST', `/v1/contacts/${contact.id}/notes`, { body: 'Prefers mornings' });
  await ok('POST', '/v1/deals', { contact_id: contact.id, title: 'Compiler licence', amount: 100 });
  await ok('POST', '/v1/payments', { type: 'one_time', contact_id: contact.id, title: 'Licence', amount: 100 });
  const order = await ok('POST', '/v1/orders', { contact_id: contact.id, financial_status: 'paid', items: [{ title: 'Manual', unit_price: 20 }] });
  await ok('POST', `/v1/orders/${order.id}/refunds`, { amount: 5, reason: `Refund for ${name}` });
  await ok('POST', '/v1/payment-requests', { contact_id: contact.id, amount: 30, title: 'Invoice' });
  await adminOk('POST', `/workspaces/${ws.id}/sender-profiles`, {
    from_name: 'Acme',
    from_email: 'hello@mail.acme.example',
    domain_verified: true,
    is_default: true,
  });
  await ok('POST', '/v1/emails', { to: `new-${email}`, subject: 'Hello', text: 'Hi', idempotency_key: crypto.randomUUID() });
  const host = await adminOk('POST', `/workspaces/${ws.id}/users`, { name: 'Host', email: `${crypto.randomUUID()}@example.com`, role: 'agent' });
  const type = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
    name: 'Intro',
    slug: `intro-${crypto.randomUUID().slice(0, 8)}`,
    duration_minutes: 30,
    scheduling_kind: 'round_robin',
    host_user_ids: [host.id],
    timezone: 'UTC',
    weekly_hours: ALL_WEEK,
  });
  await ok('POST', '/v1/bookings', {
    meeting_type_id: type.id,
    start_at: '2030-01-09T10:00:00Z',
    timezone: 'UTC',
    invitee: { name, email: `new-${email}` },
  });
  const newsletter = await ok('POST', '/v1/newsletters', { name: `News ${crypto.randomUUID().slice(0, 6)}` });
  await adminOk('POST', `/workspaces/${ws.id}/newsletters/${newsletter.id}/subscriptions`, { contact_id: contact.id });
  await adminOk('POST', `/workspaces/${ws.id}/forms/${crypto.randomUUID()}/submissions`, {
    form_name: 'Sign-up',
    origin: 'form',
    fields: { interest: 'COBOL' },
    contact: { email: `new-${email}` },
  });
  const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'Meetup', start_at: '2030-02-01T18:00:00Z' });
  await adminOk('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: contact.id, status: 'attended' });
  // An enrollment in an automation, waiting in its first step (recorded in its history).
  const automation = await ok('POST', '/v1/automations', {
    name: 'Records',
    trigger: { event: 'manual' },
    steps: [{ id: 'hold', type: 'wait', duration: 'P30D' }],
  });
  await ok('POST', `/v1/automations/${automation.id}/activate`);
  const enrollment = await ok('POST', `/v1/automations/${automation.id}/enrollments`, { contact_id: contact.id });
  await eventually(
    async () => (await ws.api('GET', `/v1/automation-enrollments/${enrollment.id}`)).body.steps,
    (steps: unknown[]) => steps.length === 1,
  );
  // WhatsApp records arrive by the provider's webhook; written here as it writes them.
  const shard = await shardOf(ws.id);
  const now = new Date().toISOString();
  const conversation = crypto.randomUUID();
  await shard.batch([
    shard
      .prepare(
        "INSERT INTO conversations (id, workspace_id, contact_id, channel, last_message_at, created_at, updated_at) VALUES (?, ?, ?, 'whatsapp', ?, ?, ?)",
      )
      .bind(conversation, ws.id, contact.id, now, now, now),
    shard
      .prepare(
        "INSERT INTO messages (id, workspace_id, conversation_id, contact_id, channel, direction, type, status, text, created_at, updated_at) VALUES (?, ?, ?, ?, 'whatsapp', 'inbound', 'text', 'received', 'Hello from ' || ?, ?, ?)",
      )
      .bind(crypto.randomUUID(), ws.id, conversation, contact.id, name, now, now),
    // A campaign's recipient row, as its fan-out writes it.
    shard
      .prepare(
        "INSERT INTO email_campaign_recipients (campaign_id, contact_id, workspace_id, status, unsubscribe_token, created_at, updated_at) VALUES (?, ?, ?, 'sent', ?, ?, ?)",
      )
      .bind(crypto.randomUUID(), contact.id, ws.id, crypto.randomUUID(), now, now),
  ]);
  return { ws, contact, email, name, phone };
}
