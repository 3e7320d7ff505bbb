import { describe, expect, it } from 'vitest';
import { shardOf } from '../support/db';
import { admin, adminOk, makeWorkspace } from '../support/harness';

const ALL_WEEK = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));

/** A contact with a record of every kind the export lists. */
async function seededContact() {
  const ws = await makeWorkspace();
  const email = `${crypto.randomUUID()}@example.com`;
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await ws.api(method, path, body);
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const contact = await ok('POST', '/v1/contacts', { name: 'Grace Hopper', email, phone: '+14155550142', tags: ['vip'], groups: ['Navy'], custom_fields: { plan: 'pro' } });
  await ok('PATCH', `/v1/contacts/${contact.id}`, { email: `new-${email}` });
  await ok('PUT', `/v1/contacts/${contact.id}/consent/email`, { state: 'subscribed' });
  await ok('POST', `/v1/contacts/${contact.id}/notes`, { body: 'Prefers mornings' });
  await ok('POST', '/v1/deals', { contact_id: contact.id, title: 'Compiler licence', amount: 100 });
  await ok('POST', '/v1/payments', { type: 'one_time', contact_id: contact.id, title: 'Licence', amount: 100 });
  await ok('POST', '/v1/orders', { contact_id: contact.id, items: [{ title: 'Manual', unit_price: 20 }] });
  await ok('POST', '/v1/payment-requests', { contact_id: contact.id, amount: 30, title: 'Invoice' });
  await adminOk('POST', `/workspaces/${ws.id}/sender-profiles`, { from_name: 'Acme', from_email: 'hello@mail.acme.example', domain_verified: true, is_default: true });
  await ok('POST', '/v1/emails', { to: `new-${email}`, subject: 'Hello', text: 'Hi', idempotency_key: crypto.randomUUID() });
  const host = await adminOk('POST', `/workspaces/${ws.id}/users`, { name: 'Host', email: `${crypto.randomUUID()}@example.com`, role: 'agent' });
  const type = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, { name: 'Intro', slug: `intro-${crypto.randomUUID().slice(0, 8)}`, duration_minutes: 30, scheduling_kind: 'round_robin', host_user_ids: [host.id], timezone: 'UTC', weekly_hours: ALL_WEEK });
  await ok('POST', '/v1/bookings', { meeting_type_id: type.id, start_at: '2030-01-09T10:00:00Z', timezone: 'UTC', invitee: { name: 'Grace Hopper', email: `new-${email}` } });
  const newsletter = await ok('POST', '/v1/newsletters', { name: `News ${crypto.randomUUID().slice(0, 6)}` });
  await adminOk('POST', `/workspaces/${ws.id}/newsletters/${newsletter.id}/subscriptions`, { contact_id: contact.id });
  await adminOk('POST', `/workspaces/${ws.id}/forms/${crypto.randomUUID()}/submissions`, { form_name: 'Sign-up', origin: 'form', fields: { interest: 'COBOL' }, contact: { email: `new-${email}` } });
  const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'Meetup', start_at: '2030-02-01T18:00:00Z' });
  await adminOk('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: contact.id, status: 'attended' });
  // WhatsApp records arrive by the provider's webhook; written here as it writes them.
  const shard = await shardOf(ws.id);
  const now = new Date().toISOString();
  const conversation = crypto.randomUUID();
  await shard.batch([
    shard.prepare("INSERT INTO conversations (id, workspace_id, contact_id, channel, last_message_at, created_at, updated_at) VALUES (?, ?, ?, 'whatsapp', ?, ?, ?)").bind(conversation, ws.id, contact.id, now, now, now),
    shard
      .prepare("INSERT INTO messages (id, workspace_id, conversation_id, contact_id, channel, direction, type, status, text, created_at, updated_at) VALUES (?, ?, ?, ?, 'whatsapp', 'inbound', 'text', 'received', 'Hello from Grace', ?, ?)")
      .bind(crypto.randomUUID(), ws.id, conversation, contact.id, now, now),
  ]);
  return { ws, contact, email };
}

describe('GET /admin/v1/workspaces/{ws}/contacts/{id}/export', () => {
  it('holds every kind of record about the contact, JSON columns as values, tokens left out', async () => {
    const { ws, contact, email } = await seededContact();
    const res = await admin('GET', `/workspaces/${ws.id}/contacts/${contact.id}/export`);
    expect(res.status).toBe(200);
    const out = res.body;
    expect(out.contact).toMatchObject({ id: contact.id, email: `new-${email}` });
    const expected = ['identifiers', 'consent', 'notes', 'timeline', 'tags', 'groups', 'custom_values', 'deals', 'payments', 'payment_entries', 'payment_requests', 'orders', 'order_items', 'emails', 'whatsapp_conversations', 'whatsapp_messages', 'bookings', 'newsletter_subscriptions', 'form_submissions', 'attendance'];
    for (const kind of expected) expect(out[kind]?.length, kind).toBeGreaterThan(0);
    expect(out.identifiers.map((r: { value: string }) => r.value)).toEqual(expect.arrayContaining([email, `new-${email}`, '+14155550142']));
    expect(out.tags[0].name).toBe('vip');
    expect(out.groups[0].name).toBe('Navy');
    expect(out.emails[0]).toMatchObject({ to: `new-${email}`, subject: 'Hello' });
    expect(out.form_submissions[0].fields).toEqual({ interest: 'COBOL' });
    expect(out.whatsapp_messages[0].text).toBe('Hello from Grace');
    expect(out.timeline.every((r: { data: unknown }) => typeof r.data === 'object')).toBe(true);
    expect(JSON.stringify(out.payment_requests)).not.toContain('"token"');
    expect(JSON.stringify(out.newsletter_subscriptions)).not.toContain('unsubscribe_token');
    expect(out.truncated).toEqual({});
  });

  it('pages a kind past the limit with kind and offset', async () => {
    const { ws, contact } = await seededContact();
    for (let i = 0; i < 4; i++) await ws.api('POST', `/v1/contacts/${contact.id}/notes`, { body: `Note ${i}` });
    const first = (await admin('GET', `/workspaces/${ws.id}/contacts/${contact.id}/export?limit=2`)).body;
    expect(first.notes).toHaveLength(2);
    expect(first.truncated.notes).toBe(5);
    const rest = (await admin('GET', `/workspaces/${ws.id}/contacts/${contact.id}/export?kind=notes&limit=2&offset=2`)).body;
    expect(Object.keys(rest).filter((k) => Array.isArray(rest[k]))).toEqual(['notes']);
    expect(rest.notes).toHaveLength(2);
    const last = (await admin('GET', `/workspaces/${ws.id}/contacts/${contact.id}/export?kind=notes&limit=2&offset=4`)).body;
    expect(last.notes).toHaveLength(1);
    expect(last.truncated).toEqual({});
    const ids = [...first.notes, ...rest.notes, ...last.notes].map((n: { id: string }) => n.id);
    expect(new Set(ids).size).toBe(5);
    expect((await admin('GET', `/workspaces/${ws.id}/contacts/${contact.id}/export?kind=secrets`)).status).toBe(400);
  });

  it("answers 404 for an unknown contact or another workspace's", async () => {
    const { contact } = await seededContact();
    const other = await makeWorkspace();
    for (const id of [contact.id, crypto.randomUUID()]) expect((await admin('GET', `/workspaces/${other.id}/contacts/${id}/export`)).status).toBe(404);
    expect((await admin('GET', `/workspaces/${other.id}/contacts/not-a-uuid/export`)).status).toBe(400);
  });
});
