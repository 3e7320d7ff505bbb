import { describe, expect, it } from 'vitest';
import { EXPORT_KIND_NAMES } from '../../src/modules/contacts/subject-copy';
import { seededContact } from '../support/contact-records';
import { admin, makeWorkspace } from '../support/harness';

describe('GET /admin/v1/workspaces/{ws}/contacts/{id}/export', () => {
  it('holds every kind of record about the contact, JSON columns as values, tokens left out', async () => {
    const { ws, contact, email, name, phone } = await seededContact();
    const res = await admin('GET', `/workspaces/${ws.id}/contacts/${contact.id}/export`);
    expect(res.status).toBe(200);
    const out = res.body;
    expect(out.contact).toMatchObject({ id: contact.id, email: `new-${email}` });
    const expected = [
      'identifiers',
      'consent',
      'notes',
      'timeline',
      'tags',
      'groups',
      'custom_values',
      'deals',
      'payments',
      'payment_entries',
      'payment_requests',
      'orders',
      'order_items',
      'order_refunds',
      'emails',
      'whatsapp_conversations',
      'whatsapp_messages',
      'bookings',
      'newsletter_subscriptions',
      'campaign_recipients',
      'form_submissions',
      'attendance',
      'score_signals',
      'automation_enrollments',
    ];
    expect(expected.sort()).toEqual([...EXPORT_KIND_NAMES].sort());
    for (const kind of expected) expect(out[kind]?.length, kind).toBeGreaterThan(0);
    expect(out.identifiers.map((r: { value: string }) => r.value)).toEqual(expect.arrayContaining([email, `new-${email}`, phone]));
    expect(out.tags[0].name).toBe('vip');
    expect(out.groups[0].name).toBe('Navy');
    // The booking's confirmation may be sent by then too: the email of the send is one of them.
    expect(out.emails).toEqual(expect.arrayContaining([expect.objectContaining({ to: `new-${email}`, subject: 'Hello' })]));
    expect(out.form_submissions[0].fields).toEqual({ interest: 'COBOL' });
    expect(out.whatsapp_messages[0].text).toBe(`Hello from ${name}`);
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
    for (const id of [contact.id, crypto.randomUUID()])
      expect((await admin('GET', `/workspaces/${other.id}/contacts/${id}/export`)).status).toBe(404);
    expect((await admin('GET', `/workspaces/${other.id}/contacts/not-a-uuid/export`)).status).toBe(400);
  });
});
