import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { ADDRESS, BAD_SUBJECTS, emailWorkspace, expectOneMailbox, outbox, reportEvent } from '../email/support';
import { rowsIn } from '../support/db';
import { adminOk, call, eventually, type TestWorkspace } from '../support/harness';
import { finished, readyCampaign, subscribedContact } from './support';

const oneClick = { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } };

const recipients = (ws: TestWorkspace, campaignId: string) =>
  rowsIn<{ contact_id: string; status: string; send_id: string | null; unsubscribe_token: string }>(
    ws.id,
    'SELECT contact_id, status, send_id, unsubscribe_token FROM email_campaign_recipients WHERE workspace_id = ? AND campaign_id = ? ORDER BY contact_id',
    ws.id,
    campaignId,
  );

/** Ada and Bob are eligible; Eve never opted in, Sue is suppressed, Ben's phone is blacklisted. */
async function audienceWorkspace() {
  const { ws } = await emailWorkspace();
  const ada = await subscribedContact(ws, 'ada@example.com', { first_name: 'Ada', company_name: 'Analytical', country: 'GB' });
  const bob = await subscribedContact(ws, 'bob@example.com', { first_name: 'Bob', country: 'DE', custom_fields: { plan: 'gold' } });
  await ws.api('POST', '/v1/contacts', { email: 'eve@example.com', first_name: 'Eve' });
  await subscribedContact(ws, 'sue@example.com');
  await ws.api('POST', '/v1/suppressions', { email: 'sue@example.com' });
  await subscribedContact(ws, 'ben@example.com', { phone: '+12125550199' });
  await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+12125550199' });
  return { ws, ada, bob };
}

describe('email campaign delivery', () => {
  it('end to end: the estimate is who gets it; each eligible contact gets one personalised email with one-click unsubscribe; the campaign ends sent', async () => {
    const { ws, ada, bob } = await audienceWorkspace();
    const c = await readyCampaign(ws, { subject: 'Hi [[first_name : there]] ([[custom_fields.plan : free]])' });
    const estimate = await ws.api('GET', `/v1/email-campaigns/${c.id}/estimate`);
    expect(estimate.body).toEqual({ count: 2 });
    const sent = await ws.api('POST', `/v1/email-campaigns/${c.id}/send`);
    expect(sent.status).toBe(201);
    expect(sent.body.status).toBe('sending');
    expect(sent.body.sent_at).not.toBeNull();
    const done = await finished(ws, c.id);
    expect(done.status).toBe('sent');
    expect(done.counters).toMatchObject({ targeted: 2, sent: 2, failed: 0 });
    const mail = await outbox(ws);
    expect(mail.map((m) => m.to).sort()).toEqual(['ada@example.com', 'bob@example.com']);
    const [toAda] = await outbox(ws, 'ada@example.com');
    expect(toAda.subject).toBe('Hi Ada (free)');
    expect(toAda.html).toContain('Analytical');
    const [toBob] = await outbox(ws, 'bob@example.com');
    expect(toBob.subject).toBe('Hi Bob (gold)');
    expect(toBob.html).toContain('your team');
    const rows = await recipients(ws, c.id);
    expect(rows.map((r) => r.contact_id).sort()).toEqual([ada, bob].sort());
    const adaRow = rows.find((r) => r.contact_id === ada)!;
    expect(toAda.headers['List-Unsubscribe']).toMatch(new RegExp(`^<https?://[^/]+/u/${adaRow.unsubscribe_token}>$`));
    expect(toAda.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(toAda.html).toContain(`/u/${adaRow.unsubscribe_token}`);
  });

  it('audience_id and audience_filters only narrow the baseline', async () => {
    const { ws, ada } = await audienceWorkspace();
    const eve = (await ws.api('GET', '/v1/contacts?search=eve@example.com')).body.data[0].id;
    const audience = await adminOk('POST', `/workspaces/${ws.id}/audiences`, { name: 'Picked', kind: 'static', contact_ids: [ada, eve] });
    const byAudience = await readyCampaign(ws, { audience_id: audience.id });
    expect((await ws.api('GET', `/v1/email-campaigns/${byAudience.id}/estimate`)).body).toEqual({ count: 1 });
    const byFilter = await readyCampaign(ws, { audience_filters: { $where: { field: 'country', op: 'eq', value: 'DE' } } });
    expect((await ws.api('GET', `/v1/email-campaigns/${byFilter.id}/estimate`)).body).toEqual({ count: 1 });
    const both = await readyCampaign(ws, { audience_id: audience.id, audience_filters: { $where: { field: 'country', op: 'eq', value: 'DE' } } });
    expect((await ws.api('GET', `/v1/email-campaigns/${both.id}/estimate`)).body).toEqual({ count: 0 });
    await ws.api('POST', `/v1/email-campaigns/${byAudience.id}/send`);
    expect((await finished(ws, byAudience.id)).counters).toMatchObject({ targeted: 1, sent: 1 });
    expect((await outbox(ws)).map((m) => m.to)).toEqual(['ada@example.com']);
    await ws.api('POST', `/v1/email-campaigns/${both.id}/send`);
    expect(await finished(ws, both.id)).toMatchObject({ status: 'sent', counters: { targeted: 0, sent: 0 } });
  });

  it('duplicate page and send messages never send twice', async () => {
    const { ws } = await audienceWorkspace();
    const c = await readyCampaign(ws);
    await ws.api('POST', `/v1/email-campaigns/${c.id}/send`);
    await finished(ws, c.id);
    const base = { workspace_id: ws.id, campaign_id: c.id, base_url: 'http://localhost' };
    const ids = (await recipients(ws, c.id)).map((r) => r.contact_id);
    await env.SEND_QUEUE.sendBatch([
      { body: { kind: 'email-campaign-page', ...base, after: null } },
      { body: { kind: 'email-campaign-send', ...base, contact_ids: ids } },
      { body: { kind: 'email-campaign-send', ...base, contact_ids: ids } },
    ]);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await outbox(ws)).toHaveLength(2);
    expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body.counters).toMatchObject({ targeted: 2, sent: 2 });
  });

  it('provider facts count once per recipient; a provider refusing everything fails the campaign', async () => {
    const { ws } = await audienceWorkspace();
    const c = await readyCampaign(ws);
    await ws.api('POST', `/v1/email-campaigns/${c.id}/send`);
    await finished(ws, c.id);
    const [first, second] = await recipients(ws, c.id);
    await Promise.all([
      reportEvent(first.send_id!, { type: 'delivered' }),
      reportEvent(first.send_id!, { type: 'delivered' }),
      reportEvent(second.send_id!, { type: 'delivered' }),
    ]);
    await reportEvent(first.send_id!, { type: 'opened' });
    await reportEvent(first.send_id!, { type: 'opened' });
    await reportEvent(second.send_id!, { type: 'bounced', bounce_type: 'hard' });
    expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body.counters).toMatchObject({
      delivered: 2,
      opened: 1,
      bounced: 1,
      clicked: 0,
      complained: 0,
    });

    const paused = await emailWorkspace({ email: { paused: true } });
    await subscribedContact(paused.ws, 'one@example.com');
    const refused = await readyCampaign(paused.ws);
    await paused.ws.api('POST', `/v1/email-campaigns/${refused.id}/send`);
    expect(await finished(paused.ws, refused.id)).toMatchObject({ status: 'failed', counters: { targeted: 1, sent: 0, failed: 1 } });
  });

  it('one-click unsubscribe: the page confirms, the POST records consent once and counts on the campaign; an altered token is 404', async () => {
    const { ws, ada } = await audienceWorkspace();
    const c = await readyCampaign(ws);
    await ws.api('POST', `/v1/email-campaigns/${c.id}/send`);
    await finished(ws, c.id);
    const token = (await recipients(ws, c.id)).find((r) => r.contact_id === ada)!.unsubscribe_token;
    const page = await call('GET', `/u/${token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<form method="post">');
    const altered = token.slice(0, -1) + (token.endsWith('0') ? '1' : '0');
    expect((await call('GET', `/u/${altered}`)).status).toBe(404);
    expect((await call('POST', `/u/${altered}`, oneClick)).status).toBe(404);
    const posts = await Promise.all([call('POST', `/u/${token}`, oneClick), call('POST', `/u/${token}`, oneClick)]);
    expect(posts.map((p) => p.status)).toEqual([200, 200]);
    const consent = await ws.api('GET', `/v1/contacts/${ada}/consent`);
    expect(consent.body.email.consent_state).toBe('unsubscribed');
    expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body.counters.unsubscribed).toBe(1);
    const ledger = await rowsIn<{ action: string; source: string }>(
      ws.id,
      `SELECT action, source FROM consent_ledger WHERE workspace_id = ? AND contact_id = ? AND channel = 'email' ORDER BY created_at`,
      ws.id,
      ada,
    );
    expect(ledger.filter((l) => l.action === 'unsubscribe')).toEqual([{ action: 'unsubscribe', source: 'campaign_unsubscribe' }]);
    const events = await eventually(
      () => rowsIn<{ data: string }>(ws.id, `SELECT data FROM event_outbox WHERE workspace_id = ? AND type = 'contact.consent_changed'`, ws.id),
      (rows) => rows.some((r) => JSON.parse(r.data).action === 'unsubscribe'),
    );
    expect(events.filter((r) => JSON.parse(r.data).action === 'unsubscribe')).toHaveLength(1);
  });

  it('the campaign-schedules sweep launches due scheduled campaigns once', async () => {
    const { ws } = await audienceWorkspace();
    const c = await readyCampaign(ws);
    await ws.api('POST', `/v1/email-campaigns/${c.id}/schedule`, { scheduled_at: new Date(Date.now() + 60_000).toISOString() });
    await rowsIn(ws.id, `UPDATE email_campaigns SET scheduled_at = '2020-01-01T00:00:00.000Z' WHERE id = ?`, c.id);
    const runs = await Promise.all([adminOk('POST', '/sweeps/campaign-schedules'), adminOk('POST', '/sweeps/campaign-schedules')]);
    expect(runs.reduce((n, r) => n + (r.result.email_campaigns_started ?? 0), 0)).toBeLessThanOrEqual(1);
    const done = await finished(ws, c.id);
    expect(done.status).toBe('sent');
    expect(await outbox(ws)).toHaveLength(2);
  });

  it('the sweep re-drives a stalled campaign: a lost hand-off fails (never resent), queued recipients go out, counters are recounted', async () => {
    const { ws, ada, bob } = await audienceWorkspace();
    const c = await readyCampaign(ws);
    await ws.api('POST', `/v1/email-campaigns/${c.id}/send`);
    await finished(ws, c.id);
    const stale = '2020-01-01T00:00:00.000Z';
    // Ada's worker died mid hand-off; Bob's send message was lost before it ran.
    await rowsIn(
      ws.id,
      `UPDATE email_campaign_recipients SET status = CASE contact_id WHEN ? THEN 'sending' ELSE 'queued' END, send_id = NULL, updated_at = ? WHERE campaign_id = ?`,
      ada,
      stale,
      c.id,
    );
    await rowsIn(
      ws.id,
      `UPDATE email_campaigns SET status = 'sending', sent = 7, failed = 7, updated_at = ?1, lease_until = ?1 WHERE id = ?2`,
      stale,
      c.id,
    );
    const run = await adminOk('POST', '/sweeps/campaign-schedules');
    expect(run.result.email_campaigns_redriven).toBe(1);
    const done = await finished(ws, c.id);
    expect(done).toMatchObject({ status: 'sent', counters: { targeted: 2, sent: 1, failed: 1 } });
    const rows = await rowsIn<{ contact_id: string; status: string; error: string | null }>(
      ws.id,
      'SELECT contact_id, status, error FROM email_campaign_recipients WHERE campaign_id = ?',
      c.id,
    );
    expect(rows.find((r) => r.contact_id === ada)).toMatchObject({ status: 'failed', error: 'no_provider_answer' });
    expect(rows.find((r) => r.contact_id === bob)).toMatchObject({ status: 'sent', error: null });
    expect(await outbox(ws, 'ada@example.com')).toHaveLength(1);
    expect(await outbox(ws, 'bob@example.com')).toHaveLength(2);
  });
});

describe('email campaign headers', () => {
  it('create and PATCH refuse control characters in the subject (400)', async () => {
    const { ws } = await emailWorkspace();
    const draft = await readyCampaign(ws);
    for (const subject of BAD_SUBJECTS) {
      for (const res of [
        await ws.api('POST', '/v1/email-campaigns', { name: 'Bad', subject }),
        await ws.api('PATCH', `/v1/email-campaigns/${draft.id}`, { subject }),
      ]) {
        expect(res.status, JSON.stringify(subject)).toBe(400);
        expect(res.body.message).toEqual(['subject: subject must not contain line breaks or control characters']);
      }
    }
    expect((await ws.api('GET', `/v1/email-campaigns/${draft.id}`)).body.subject).toBe(draft.subject);
    expect((await ws.api('GET', '/v1/email-campaigns')).body.total).toBe(1);
  });

  it('a stored subject, a contact field in it and the sender name reach the provider on one line with one From address', async () => {
    const { ws, sender } = await emailWorkspace();
    const ada = await subscribedContact(ws, 'ada@example.com', { first_name: 'Ada' });
    await rowsIn(ws.id, 'UPDATE contacts SET first_name = ? WHERE id = ?', 'Ada\u001b[31m\u0000', ada);
    await rowsIn(
      ws.id,
      'UPDATE sender_profiles SET from_name = ? WHERE id = ?',
      '<evil@attacker.example>, Real\r\nBcc: victim@example.com',
      sender!.id,
    );
    const c = await readyCampaign(ws);
    await rowsIn(ws.id, 'UPDATE email_campaigns SET subject = ? WHERE id = ?', 'Hi [[first_name]]\r\nBcc: victim@example.com\u000b\u0000!', c.id);
    expect((await ws.api('POST', `/v1/email-campaigns/${c.id}/send`)).status).toBe(201);
    expect((await finished(ws, c.id)).counters).toMatchObject({ sent: 1, failed: 0 });
    const [mail] = await outbox(ws, 'ada@example.com');
    expect(mail.subject).toBe('Hi Ada [31m Bcc: victim@example.com !');
    expect(mail.from).toBe(`"<evil@attacker.example>, Real Bcc: victim@example.com" <${ADDRESS}>`);
    expectOneMailbox(mail.from);
  });
});
