import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace } from '../support/harness';
import { blacklist, createContact, filterQuery } from './helpers';

/*
 * Reads (a list page, a single contact) have SQLite write each contact's JSON; writes answer
 * the row they re-read, serialized in the Worker. All must answer the same contact.
 */
describe('GET /v1/contacts and GET /v1/contacts/{id} answer each contact as a write does', () => {
  it('for every kind of value a contact holds', async () => {
    const ws = await makeWorkspace({ default_country: 'US' }, { pipeline: false });
    const rich = await createContact(ws, {
      name: 'Zoë "Quotes" O\'Brien </script> 🚀',
      email: 'zoe@example.com',
      phone: '+14155550140',
      company_name: 'Back\\slash & Co',
      lifecycle_stage: 'customer',
      employee_count: 12,
      lead_score: 55.5,
      annual_revenue: 0.1 + 0.2,
      date_of_birth: '1990-02-03',
      notes: 'line one\nline two\ttabbed',
      custom_fields: {
        plan: 'pro',
        seats: 5,
        ratio: 0.1 + 0.2,
        big: 1e21,
        tiny: 5e-7,
        vip: true,
        nested: { list: [1, 'two', { three: 3 }] },
        unicode: 'ünïcødé ✓',
      },
      tags: ['math', 'vip'],
      groups: ['founders'],
    });
    const cold = await createContact(ws, { first_name: 'Cold', email: 'cold@example.com', lead_score: 10, annual_revenue: 1234.5 });
    const warm = await createContact(ws, { first_name: 'Warm', phone: '+14155550141', lead_score: 30 });
    const bare = await createContact(ws, { email: 'bare@example.com' });
    await ws.api('PUT', `/v1/contacts/${cold.id}/consent/email`, { state: 'subscribed' });
    await blacklist(ws, '+14155550141');
    const event = await adminOk('POST', `/workspaces/${ws.id}/events`, { name: 'Meetup', start_at: '2026-12-01T18:00:00Z' });
    await adminOk('POST', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: rich.id, status: 'attended' });

    // The last write of each contact answers it as serialized in the Worker.
    const written = new Map<string, unknown>();
    for (const contact of [rich, cold, warm, bare]) {
      const patched = await ws.api('PATCH', `/v1/contacts/${contact.id}`, { job_title: 'Reader' });
      expect(patched.status).toBe(200);
      written.set(contact.id, patched.body);
    }

    const pages = [
      await ws.api('GET', '/v1/contacts'),
      await ws.api('GET', `/v1/contacts?${filterQuery({ $where: { field: 'email_deliverability', op: 'eq', value: 'unknown' } })}`),
      await ws.api('GET', '/v1/contacts?search=example'),
    ];
    for (const page of pages) {
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('application/json');
      expect(page.body.data.length).toBeGreaterThanOrEqual(3);
      for (const listed of page.body.data) {
        const single = await ws.api('GET', `/v1/contacts/${listed.id}`);
        expect(single.headers.get('content-type')).toBe('application/json');
        expect(listed).toStrictEqual(single.body);
        expect(listed).toStrictEqual(written.get(listed.id));
      }
    }
    const all = pages[0].body;
    expect(all).toMatchObject({ total: 4, limit: 50, offset: 0 });
    expect(all.data.map((c: any) => c.id).sort()).toEqual([rich.id, cold.id, warm.id, bare.id].sort());
    const listedRich = all.data.find((c: any) => c.id === rich.id);
    // Reals keep every digit; booleans, nested values and the derived fields come through as such.
    expect(listedRich.annual_revenue).toBe(0.1 + 0.2);
    expect(listedRich.custom_fields).toStrictEqual({
      plan: 'pro',
      seats: 5,
      ratio: 0.1 + 0.2,
      big: 1e21,
      tiny: 5e-7,
      vip: true,
      nested: { list: [1, 'two', { three: 3 }] },
      unicode: 'ünïcødé ✓',
    });
    expect(listedRich).toMatchObject({ lead_score: 55.5, score_band: 'warm', whatsapp_subscribed: true, email_subscribed: false });
    expect(listedRich.event_attendances).toEqual([expect.objectContaining({ event_id: event.id, status: 'attended' })]);
    expect(all.data.find((c: any) => c.id === cold.id)).toMatchObject({ score_band: 'cold', email_subscribed: true, annual_revenue: 1234.5 });
    expect(all.data.find((c: any) => c.id === bare.id)).toMatchObject({
      score_band: null,
      lead_score: null,
      tags: [],
      groups: [],
      event_attendances: [],
      custom_fields: {},
    });
  });
});
