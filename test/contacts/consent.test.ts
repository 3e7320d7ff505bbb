import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace } from '../support/harness';
import { blacklist, createContact, outbox, rows } from './helpers';
import { runOnShards, shardOf } from '../support/db';

describe('contact consent', () => {
  it('reads both channels; unknown contact gives domain contact_not_found', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { phone: '+14155550150', email: 'c@example.com' });
    const res = await ws.api('GET', `/v1/contacts/${c.id}/consent`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      contact_id: c.id,
      whatsapp: { consent_state: 'subscribed', deliverability: 'unknown', updated_at: expect.any(String) },
      email: { consent_state: 'unknown', deliverability: 'unknown', suppressed: false, updated_at: expect.any(String) },
    });
    const missing = await ws.api('GET', `/v1/contacts/${crypto.randomUUID()}/consent`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'contact_not_found', message: expect.any(String) } });
    const put = await ws.api('PUT', `/v1/contacts/${crypto.randomUUID()}/consent/email`, { state: 'subscribed' });
    expect(put.body.error.code).toBe('contact_not_found');
  });

  it('records a decision with evidence, emits contact.consent_changed once, not for re-assertions', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'c@example.com' });
    const body = { state: 'subscribed', source: 'checkout', basis: 'consent', evidence: { ip: '203.0.113.9', form: 'checkout' } };
    const res = await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, body);
    expect(res.status).toBe(200);
    expect(res.body.email.consent_state).toBe('subscribed');
    const again = await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed' });
    expect(again.status).toBe(200);
    const ledger = await rows<any>("SELECT * FROM consent_ledger WHERE contact_id = ? AND action != 'seed' ORDER BY created_at, id", c.id);
    expect(ledger).toHaveLength(2);
    expect(JSON.parse(ledger[0].evidence)).toEqual(body.evidence);
    const events = await outbox(ws.id, 'contact.consent_changed');
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual({
      contact_id: c.id,
      source: 'checkout',
      channel: 'email',
      action: 'opt_in',
      consent_state: 'subscribed',
      previous_state: 'unknown',
      basis: 'consent',
      consent_event_id: ledger[0].id,
    });
    await ws.api('PUT', `/v1/contacts/${c.id}/consent/whatsapp`, { state: 'unsubscribed' });
    const wa = (await outbox(ws.id, 'contact.consent_changed'))[1].data;
    expect([wa.channel, wa.action, wa.previous_state, wa.basis, wa.source]).toEqual(['whatsapp', 'unsubscribe', null, null, 'api']);
    await ws.api('PUT', `/v1/contacts/${c.id}/consent/whatsapp`, { state: 'subscribed' });
    expect((await outbox(ws.id, 'contact.consent_changed'))[2].data.action).toBe('resubscribe');
    const read = await ws.api('GET', `/v1/contacts/${c.id}`);
    expect([read.body.email_subscribed, read.body.whatsapp_subscribed]).toEqual([true, true]);
  });

  it('validates channel, state and evidence size in the domain envelope', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'c@example.com' });
    const channel = await ws.api('PUT', `/v1/contacts/${c.id}/consent/sms`, { state: 'subscribed' });
    expect(channel.status).toBe(400);
    expect(channel.body.error.code).toBe('invalid_channel');
    for (const body of [
      { state: 'unknown' },
      {},
      { state: 'subscribed', extra: 1 },
      { state: 'subscribed', evidence: { blob: 'x'.repeat(2048) } },
      { state: 'subscribed', evidence: 'text' },
    ]) {
      const res = await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
    const fits = await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed', evidence: { blob: 'x'.repeat(2036) } });
    expect(fits.status).toBe(200);
  });

  it('refuses changes after a complaint with 409 consent_sticky_complained', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { phone: '+14155550151', email: 'c@example.com' });
    await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed' });
    await adminOk('POST', `/workspaces/${ws.id}/contacts/${c.id}/complaints`, { channel: 'email' });
    const res = await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: 'consent_sticky_complained', message: expect.any(String) } });
    const consent = await ws.api('GET', `/v1/contacts/${c.id}/consent`);
    expect([consent.body.email.consent_state, consent.body.email.suppressed]).toEqual(['unsubscribed', true]);
    const wa = await ws.api('PUT', `/v1/contacts/${c.id}/consent/whatsapp`, { state: 'unsubscribed' });
    expect(wa.status).toBe(200);
    const complaint = (await outbox(ws.id, 'contact.consent_changed')).find((e) => e.data.action === 'complaint');
    expect(complaint?.data.previous_state).toBe('subscribed');
  });

  it('composes email suppressed from the suppression list, the blacklist and deliverability', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const suppressedOf = async (id: string) => (await ws.api('GET', `/v1/contacts/${id}/consent`)).body.email.suppressed;
    const listed = await createContact(ws, { email: 'listed@example.com' });
    await (await shardOf(ws.id))
      .prepare('INSERT INTO email_suppressions (id, workspace_id, email, reason, created_at) VALUES (?, ?, ?, ?, ?)')
      .bind(crypto.randomUUID(), ws.id, 'listed@example.com', 'manual', new Date().toISOString())
      .run();
    expect(await suppressedOf(listed.id)).toBe(true);
    const blocked = await createContact(ws, { email: 'bl@example.com', phone: '+14155550152' });
    expect(await suppressedOf(blocked.id)).toBe(false);
    await blacklist(ws, '+14155550152');
    expect(await suppressedOf(blocked.id)).toBe(true);
    const bouncing = await createContact(ws, { email: 'bounce@example.com' });
    await runOnShards("UPDATE contacts SET email_deliverability = 'bounced' WHERE id = ?", bouncing.id);
    expect(await suppressedOf(bouncing.id)).toBe(true);
    const other = await makeWorkspace({}, { pipeline: false });
    const sameEmail = await createContact(other, { email: 'listed@example.com' });
    expect((await other.api('GET', `/v1/contacts/${sameEmail.id}/consent`)).body.email.suppressed).toBe(false);
  });
});
