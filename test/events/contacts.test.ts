import { describe, expect, it } from 'vitest';
import { admin, adminOk } from '../support/harness';
import { receiverUrl, registerEndpoint } from '../webhooks/support';
import { expectFromOutbox, freshEmail, freshPhone, outbox, subscribed, useReceiver } from './support';
import { rowsOnShards } from '../support/db';

const CONTACT_EVENTS = ['contact.created', 'contact.updated', 'contact.deleted', 'contact.consent_changed'];
const receiver = useReceiver();

const ledgerIds = async (contactId: string, channel: string) =>
  rowsOnShards<{ id: string; action: string }>(
    'SELECT id, action FROM consent_ledger WHERE contact_id = ? AND channel = ? ORDER BY created_at, id',
    contactId,
    channel,
  );

describe('contact.created', () => {
  it('delivers the compact projection, the write source and duplicate false, signed, with the outbox row id', async () => {
    const { ws, ep } = await subscribed(CONTACT_EVENTS);
    const phone = freshPhone();
    const email = freshEmail();
    const res = await ws.api('POST', '/v1/contacts', {
      phone,
      email: `  ${email.toUpperCase()} `,
      name: 'Ada Lovelace Byron',
      lifecycle_stage: 'lead',
      city: 'London',
      tags: ['vip'],
      groups: ['newsletter'],
      custom_fields: { tier: 'gold' },
    });
    expect(res.status).toBe(201);
    const [delivered] = await receiver.received(ep, 1);
    const rows = await outbox(ws.id);
    expect(rows.map((r) => r.type)).toEqual(['contact.created']);
    expectFromOutbox(delivered, rows[0]);
    expect(delivered.type).toBe('contact.created');
    expect(delivered.data).toEqual({
      contact_id: res.body.id,
      contact: {
        id: res.body.id,
        phone,
        email,
        name: 'Ada Lovelace Byron',
        first_name: 'Ada',
        last_name: 'Lovelace Byron',
        lifecycle_stage: 'lead',
        source: 'api',
        block_state: 'none',
        lead_score: null,
      },
      source: 'api',
      duplicate: false,
    });
  });

  it('carries explicit nulls for a contact created from an email only', async () => {
    const { ws, ep } = await subscribed(['contact.created']);
    const email = freshEmail();
    const res = await ws.api('POST', '/v1/contacts', { email });
    const [delivered] = await receiver.received(ep, 1);
    expect(delivered.data).toEqual({
      contact_id: res.body.id,
      contact: {
        id: res.body.id,
        phone: null,
        email,
        name: null,
        first_name: null,
        last_name: null,
        lifecycle_stage: null,
        source: 'api',
        block_state: 'none',
        lead_score: null,
      },
      source: 'api',
      duplicate: false,
    });
  });

  it('is one event shared by every endpoint subscribed to the type', async () => {
    const { ws, ep } = await subscribed(['contact.created']);
    const second = await registerEndpoint(ws, { url: receiverUrl(), events: ['contact.updated', 'contact.created'] });
    const other = await registerEndpoint(ws, { url: receiverUrl(), events: ['contact.updated'] });
    await ws.api('POST', '/v1/contacts', { phone: freshPhone() });
    const [a] = await receiver.received(ep, 1);
    const [b] = await receiver.received(second, 1);
    const [row] = await outbox(ws.id);
    expect(a.id).toBe(row.id);
    expect(b).toEqual(a);
    // A sentinel update proves the other endpoint was served after the create, yet received only the update.
    await ws.api('POST', '/v1/contacts', { phone: (await outbox(ws.id))[0].data.contact.phone, city: 'Paris' });
    const got = await receiver.received(other, 1);
    expect(got.map((d) => d.type)).toEqual(['contact.updated']);
  });
});

describe('contact.updated', () => {
  it('names every changed field, including tags, groups and custom_fields.<key>, with the projection after the write', async () => {
    const { ws, ep } = await subscribed(['contact.updated']);
    const phone = freshPhone();
    const created = await ws.api('POST', '/v1/contacts', { phone, name: 'Grace Hopper', custom_fields: { tier: 'silver', keep: 1 } });
    const id = created.body.id;
    const patch = await ws.api('PATCH', `/v1/contacts/${id}`, {
      first_name: 'Amazing',
      lifecycle_stage: 'customer',
      city: 'Arlington',
      tags: ['navy'],
      groups: ['pioneers'],
      custom_fields: { tier: 'gold', keep: 1, rank: 'admiral' },
    });
    expect(patch.status).toBe(200);
    const [delivered] = await receiver.received(ep, 1);
    const [row] = await outbox(ws.id, 'contact.updated');
    expectFromOutbox(delivered, row);
    expect({ ...delivered.data, changed_fields: [...delivered.data.changed_fields].sort() }).toEqual({
      contact_id: id,
      contact: {
        id,
        phone,
        email: null,
        name: 'Amazing Hopper',
        first_name: 'Amazing',
        last_name: 'Hopper',
        lifecycle_stage: 'customer',
        source: 'api',
        block_state: 'none',
        lead_score: null,
      },
      source: 'api',
      changed_fields: ['city', 'custom_fields.rank', 'custom_fields.tier', 'first_name', 'groups', 'lifecycle_stage', 'name', 'tags'],
    });
  });

  it('fires for an upsert that changes a matched contact, naming only what changed', async () => {
    const { ws, ep } = await subscribed(['contact.updated']);
    const phone = freshPhone();
    const first = await ws.api('POST', '/v1/contacts', { phone, city: 'Rome', tags: ['a'] });
    const again = await ws.api('POST', '/v1/contacts', { phone, city: 'Milan', tags: ['a', 'b'], custom_fields: { x: null } });
    expect(again.body.duplicate).toBe(true);
    const [delivered] = await receiver.received(ep, 1);
    expect(delivered.data).toEqual({
      contact_id: first.body.id,
      contact: {
        id: first.body.id,
        phone,
        email: null,
        name: null,
        first_name: null,
        last_name: null,
        lifecycle_stage: null,
        source: 'api',
        block_state: 'none',
        lead_score: null,
      },
      source: 'api',
      changed_fields: ['city', 'tags'],
    });
  });

  it('stays quiet for a write that changes nothing', async () => {
    const { ws, ep } = await subscribed(['contact.updated', 'contact.created']);
    const phone = freshPhone();
    const body = { phone, email: freshEmail(), name: 'Same Person', city: 'Oslo', tags: ['t'], groups: ['g'], custom_fields: { k: 'v' } };
    const created = await ws.api('POST', '/v1/contacts', body);
    expect((await ws.api('POST', '/v1/contacts', body)).body.duplicate).toBe(true);
    expect((await ws.api('POST', '/v1/contacts', { ...body, email: body.email.toUpperCase(), tags: ['T'] })).status).toBe(201);
    const patch = await ws.api('PATCH', `/v1/contacts/${created.body.id}`, {
      city: 'Oslo',
      first_name: 'Same',
      tags: ['t'],
      custom_fields: { k: 'v', gone: null },
    });
    expect(patch.status).toBe(200);
    expect((await outbox(ws.id)).map((r) => r.type)).toEqual(['contact.created']);
    // A real change afterwards is the next (and only other) delivery.
    await ws.api('PATCH', `/v1/contacts/${created.body.id}`, { city: 'Bergen' });
    const got = await receiver.received(ep, 2);
    expect(got.map((d) => [d.type, d.data.changed_fields ?? null])).toEqual([
      ['contact.created', null],
      ['contact.updated', ['city']],
    ]);
  });
});

describe('contact.consent_changed', () => {
  it('fires on a changed decision only, with the ledger row, action, states, basis and source', async () => {
    const { ws, ep } = await subscribed(['contact.consent_changed']);
    const c = (await ws.api('POST', '/v1/contacts', { phone: freshPhone(), email: freshEmail() })).body;
    // The creation-time seed and a same-state re-assertion are silent.
    expect((await ws.api('PUT', `/v1/contacts/${c.id}/consent/whatsapp`, { state: 'subscribed' })).status).toBe(200);
    expect(await outbox(ws.id, 'contact.consent_changed')).toEqual([]);

    expect((await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed', source: 'form', basis: 'consent' })).status).toBe(200);
    expect((await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed', source: 'form' })).status).toBe(200);
    expect((await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'unsubscribed' })).status).toBe(200);
    expect((await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed', basis: 'legitimate_interest' })).status).toBe(200);
    const got = await receiver.received(ep, 3);
    const ledger = await ledgerIds(c.id, 'email');
    expect(ledger.map((l) => l.action)).toEqual(['seed', 'opt_in', 'reassert', 'unsubscribe', 'resubscribe']);
    const rows = await outbox(ws.id, 'contact.consent_changed');
    got.forEach((d, i) => expectFromOutbox(d, rows[i]));
    expect(got.map((d) => d.data)).toEqual([
      {
        contact_id: c.id,
        channel: 'email',
        action: 'opt_in',
        consent_state: 'subscribed',
        previous_state: 'unknown',
        basis: 'consent',
        consent_event_id: ledger[1].id,
        source: 'form',
      },
      {
        contact_id: c.id,
        channel: 'email',
        action: 'unsubscribe',
        consent_state: 'unsubscribed',
        previous_state: 'subscribed',
        basis: null,
        consent_event_id: ledger[3].id,
        source: 'api',
      },
      {
        contact_id: c.id,
        channel: 'email',
        action: 'resubscribe',
        consent_state: 'subscribed',
        previous_state: 'unsubscribed',
        basis: 'legitimate_interest',
        consent_event_id: ledger[4].id,
        source: 'api',
      },
    ]);
  });

  it('has a null previous_state when no decision was stored for the channel', async () => {
    const { ws, ep } = await subscribed(['contact.consent_changed']);
    const c = (await ws.api('POST', '/v1/contacts', { email: freshEmail() })).body;
    await ws.api('PUT', `/v1/contacts/${c.id}/consent/whatsapp`, { state: 'unsubscribed' });
    const [d] = await receiver.received(ep, 1);
    const ledger = await ledgerIds(c.id, 'whatsapp');
    expect(d.data).toEqual({
      contact_id: c.id,
      channel: 'whatsapp',
      action: 'unsubscribe',
      consent_state: 'unsubscribed',
      previous_state: null,
      basis: null,
      consent_event_id: ledger[0].id,
      source: 'api',
    });
  });

  it('fires for a spam complaint (operator report) that moves the decision, and not for a repeated one', async () => {
    const { ws, ep } = await subscribed(['contact.consent_changed']);
    const c = (await ws.api('POST', '/v1/contacts', { phone: freshPhone() })).body;
    await adminOk('POST', `/workspaces/${ws.id}/contacts/${c.id}/complaints`, { channel: 'whatsapp' });
    await adminOk('POST', `/workspaces/${ws.id}/contacts/${c.id}/complaints`, { channel: 'whatsapp' });
    const [d] = await receiver.received(ep, 1);
    const ledger = await ledgerIds(c.id, 'whatsapp');
    expect(d.data).toEqual({
      contact_id: c.id,
      channel: 'whatsapp',
      action: 'complaint',
      consent_state: 'unsubscribed',
      previous_state: 'subscribed',
      basis: null,
      consent_event_id: ledger[1].id,
      source: 'complaint',
    });
    expect(await outbox(ws.id, 'contact.consent_changed')).toHaveLength(1);
  });
});

describe('contact.consent_changed under parallel writes', () => {
  it('parallel identical decisions change the state once and fire once; the others are re-assertions', async () => {
    const { ws } = await subscribed(['contact.consent_changed']);
    const c = (await ws.api('POST', '/v1/contacts', { email: freshEmail() })).body;
    const results = await Promise.all(Array.from({ length: 5 }, () => ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed' })));
    expect(results.map((r) => [r.status, r.body.email.consent_state])).toEqual(Array(5).fill([200, 'subscribed']));
    const rows = await outbox(ws.id, 'contact.consent_changed');
    expect(rows.map((r) => [r.data.previous_state, r.data.action])).toEqual([['unknown', 'opt_in']]);
    const ledger = await ledgerIds(c.id, 'email');
    expect(ledger.map((l) => l.action).sort()).toEqual(['opt_in', 'reassert', 'reassert', 'reassert', 'reassert', 'seed']);
    expect(rows[0].data.consent_event_id).toBe(ledger.find((l) => l.action === 'opt_in')!.id);
  });
});

describe('contact quiet paths and subscriptions', () => {
  it('a merge resolution emits no contact events; a dismiss applies the held fields as an ordinary update', async () => {
    const { ws } = await subscribed(CONTACT_EVENTS);
    const phone = freshPhone();
    const email = freshEmail();
    await ws.api('POST', '/v1/contacts', { phone });
    await ws.api('POST', '/v1/contacts', { email });
    const before = (await outbox(ws.id)).length;
    const conflict = await ws.api('POST', '/v1/contacts', { phone, email, city: 'Lima' });
    expect(conflict.status).toBe(409);
    expect((await outbox(ws.id)).length).toBe(before);
    const merged = await admin('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    expect(merged.status).toBe(200);
    expect(merged.body.contact.city).toBe('Lima');
    expect((await outbox(ws.id)).length).toBe(before);

    const p2 = freshPhone();
    const e2 = freshEmail();
    const holder = (await ws.api('POST', '/v1/contacts', { phone: p2 })).body;
    await ws.api('POST', '/v1/contacts', { email: e2 });
    const c2 = await ws.api('POST', '/v1/contacts', { phone: p2, email: e2, city: 'Quito' });
    const count = (await outbox(ws.id)).length;
    await adminOk('POST', `/merge-requests/${c2.body.merge_request_id}/resolve`, { action: 'dismiss' });
    const after = (await outbox(ws.id)).slice(count);
    expect(after.map((r) => [r.type, r.data.contact_id, r.data.changed_fields])).toEqual([['contact.updated', holder.id, ['city']]]);
  });

  it('default endpoints and endpoints listing other types receive nothing from contact writes', async () => {
    const { ws, ep: defaults } = await subscribed();
    const deals = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const sentinel = await registerEndpoint(ws, { url: receiverUrl(), events: ['contact.created', 'contact.updated'] });
    const c = (await ws.api('POST', '/v1/contacts', { phone: freshPhone(), email: freshEmail() })).body;
    await ws.api('PATCH', `/v1/contacts/${c.id}`, { city: 'Kyiv' });
    await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed' });
    // The consent change goes out with nobody subscribed; by the time the sentinel has both events the fan-out ran.
    await receiver.received(sentinel, 2);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.sentTo(defaults)).toEqual([]);
    expect(receiver.sentTo(deals)).toEqual([]);
    expect((await outbox(ws.id)).map((r) => r.type)).toEqual(['contact.created', 'contact.updated', 'contact.consent_changed']);
  });
});

describe('contact events share the batch of their change', () => {
  it('a rejected write leaves no outbox row; parallel creates of one identity leave exactly one contact.created', async () => {
    const { ws } = await subscribed(CONTACT_EVENTS);
    const phone = freshPhone();
    const results = await Promise.all(Array.from({ length: 6 }, () => ws.api('POST', '/v1/contacts', { phone, city: 'Nairobi' })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect((await outbox(ws.id)).map((r) => r.type)).toEqual(['contact.created']);

    await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+14155559999' });
    const blocked = await ws.api('POST', '/v1/contacts', { phone: '+14155559999' });
    expect(blocked.status).toBe(400);
    const email = freshEmail();
    await ws.api('POST', '/v1/contacts', { email });
    const conflict = await ws.api('POST', '/v1/contacts', { phone, email, city: 'Accra' });
    expect(conflict.status).toBe(409);
    const missing = await ws.api('PATCH', `/v1/contacts/${crypto.randomUUID()}`, { city: 'x' });
    expect(missing.status).toBe(404);
    expect((await outbox(ws.id)).map((r) => r.type)).toEqual(['contact.created', 'contact.created']);
  });
});
