import { describe, expect, it } from 'vitest';
import { finished, readyCampaign, subscribedContact } from '../email-campaigns/support';
import { newsletter, readyIssue, subscribe } from '../newsletters/support';
import { rowsIn, rowsOnShards, runOnShards, shardOf } from '../support/db';
import { admin, adminOk, eventually, SHARDS, type TestWorkspace } from '../support/harness';
import { counted } from '../support/round-trips';
import { emailWorkspace, outbox, send, sendBody } from './support';

/**
 * The platform list is one list in the control plane. A shard bound after an entry was added holds
 * none of it; `forgetOnShards` makes every shard such a shard for one address (an earlier release
 * wrote each entry into every shard bound at that moment, and read only the workspace's own).
 */
const forgetOnShards = (email: string) => runOnShards('DELETE FROM global_email_suppressions WHERE email = ?', email);

async function listed(email: string, reason = 'spamtrap') {
  const entry = await adminOk('POST', '/global-suppressions', { email, reason });
  await forgetOnShards(email.toLowerCase());
  return entry;
}

/** A row an earlier release left in a shard's own copy of the list. */
async function leftInShard(ws: TestWorkspace, email: string, reason = 'spamtrap') {
  await (await shardOf(ws.id))
    .prepare('INSERT INTO global_email_suppressions (email, reason, created_at) VALUES (?, ?, ?)')
    .bind(email, reason, new Date().toISOString())
    .run();
}

const unique = (label: string) => `${label}-${crypto.randomUUID()}@global.example`;
const sendStatus = async (ws: TestWorkspace, to: string) => (await send(ws, { to })).body.status;
const sendRows = (ws: TestWorkspace) =>
  rowsIn<{ to: string; status: string }>(ws.id, 'SELECT "to", status FROM email_sends WHERE workspace_id = ? ORDER BY "to"', ws.id);

describe('the platform list holds for every shard', () => {
  it('a send from a shard that never held the entry is suppressed exactly as a workspace suppression is', async () => {
    for (const shard of SHARDS) {
      const { ws } = await emailWorkspace({ shard });
      const platform = unique('platform');
      const own = unique('own');
      await listed(platform.toUpperCase());
      await ws.api('POST', '/v1/suppressions', { email: own });
      const byPlatform = await send(ws, { to: platform });
      const byWorkspace = await send(ws, { to: own });
      const shape = (b: any) => ({ status: b.status, reason: b.reason, duplicate: b.duplicate, provider_message_id: b.provider_message_id });
      expect([byPlatform.status, shape(byPlatform.body)], shard).toEqual([
        201,
        { status: 'suppressed', reason: 'suppressed', duplicate: false, provider_message_id: null },
      ]);
      expect([byWorkspace.status, shape(byWorkspace.body)]).toEqual([byPlatform.status, shape(byPlatform.body)]);
      expect(await outbox(ws)).toEqual([]);
      expect(await sendRows(ws)).toEqual([own, platform].sort().map((to) => ({ to, status: 'suppressed' })));
    }
  });

  it('POST /v1/emails reads the list beside its read batch: two shard round trips as before, one control-plane look-up more', async () => {
    const { ws } = await emailWorkspace();
    const address = unique('counted');
    await listed(address);
    // What authentication costs the control plane on this instance (the key look-up, kept after a first request unless
    // caches are off; an operator write drops it, so after the last one).
    await counted(ws, 'GET', '/v1/sender-profiles');
    const keyLookup = (await counted(ws, 'GET', '/v1/sender-profiles')).control;
    const sent = await counted(ws, 'POST', '/v1/emails', sendBody({ to: unique('fresh') }));
    expect([sent.status, sent.body.status, sent.roundTrips, sent.control]).toEqual([201, 'sent', 2, keyLookup + 1]);
    const refused = await counted(ws, 'POST', '/v1/emails', sendBody({ to: address }));
    expect([refused.status, refused.body.status, refused.roundTrips, refused.control]).toEqual([201, 'suppressed', 2, keyLookup + 1]);
  });

  it('campaign fan-out, the estimate and the consent read leave out an address the shard never held', async () => {
    const { ws } = await emailWorkspace();
    const tag = crypto.randomUUID().slice(0, 8);
    const ada = await subscribedContact(ws, `ada-${tag}@example.com`);
    const gus = await subscribedContact(ws, `gus-${tag}@example.com`);
    await listed(`gus-${tag}@example.com`);
    expect((await ws.api('GET', `/v1/contacts/${gus}/consent`)).body.email).toMatchObject({ consent_state: 'subscribed', suppressed: true });
    expect((await ws.api('GET', `/v1/contacts/${ada}/consent`)).body.email).toMatchObject({ suppressed: false });
    const put = await ws.api('PUT', `/v1/contacts/${gus}/consent/email`, { state: 'subscribed' });
    expect([put.status, put.body.email.suppressed]).toEqual([200, true]);

    const picked = await adminOk('POST', `/workspaces/${ws.id}/audiences`, { name: 'Both', kind: 'static', contact_ids: [ada, gus] });
    const byAudience = await readyCampaign(ws, { audience_id: picked.id });
    expect((await ws.api('GET', `/v1/email-campaigns/${byAudience.id}/estimate`)).body).toEqual({ count: 1 });
    const everyone = await readyCampaign(ws);
    expect((await ws.api('GET', `/v1/email-campaigns/${everyone.id}/estimate`)).body).toEqual({ count: 1 });
    expect((await ws.api('POST', `/v1/email-campaigns/${everyone.id}/send`)).status).toBe(201);
    const done = await finished(ws, everyone.id);
    expect(done.counters).toMatchObject({ targeted: 1, sent: 1, failed: 0 });
    expect((await outbox(ws)).map((m) => m.to)).toEqual([`ada-${tag}@example.com`]);
  });

  it('a newsletter delivery to a listed address is skipped as suppressed', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws);
    const address = unique('reader');
    const reader = (await ws.api('POST', '/v1/contacts', { email: address })).body.id;
    await ws.api('PUT', `/v1/contacts/${reader}/consent/email`, { state: 'subscribed' });
    await subscribe(ws, n.id, reader);
    await listed(address);
    expect((await ws.api('POST', `/v1/newsletter-issues/${(await readyIssue(ws, n.id)).id}/publish`)).status).toBe(200);
    await adminOk('POST', '/sweeps/deliver-newsletters');
    const deliveries = () =>
      rowsIn<{ status: string; reason: string | null }>(ws.id, 'SELECT status, reason FROM newsletter_deliveries WHERE workspace_id = ?', ws.id);
    const rows = await eventually(deliveries, (r) => r.length === 1 && r[0].status !== 'queued');
    expect(rows).toEqual([{ status: 'skipped', reason: 'suppressed' }]);
    expect(await outbox(ws)).toEqual([]);
  });
});

describe('operator routes of the platform list', () => {
  it('POST answers 201 both ways; an entry already listed comes back as stored', async () => {
    const address = unique('twice');
    const first = await admin('POST', '/global-suppressions', { email: ` ${address.toUpperCase()} `, reason: 'spamtrap' });
    expect([first.status, first.body]).toEqual([201, { email: address, reason: 'spamtrap', created_at: expect.any(String) }]);
    const again = await admin('POST', '/global-suppressions', { email: address, reason: 'manual' });
    expect([again.status, again.body]).toEqual([201, first.body]);
    expect((await admin('POST', '/global-suppressions', { email: 'not-an-address' })).status).toBe(400);
  });

  it('GET lists entries in address order, a page at a time', async () => {
    const prefix = `list-${crypto.randomUUID()}`;
    const [a, b, c] = ['a', 'b', 'c'].map((s) => `${prefix}-${s}@example.com`);
    for (const email of [c, a, b]) await adminOk('POST', '/global-suppressions', { email, reason: `r-${email[prefix.length + 1]}` });
    const first = await admin('GET', `/global-suppressions?after=${prefix}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      data: [
        { email: a, reason: 'r-a', created_at: expect.any(String) },
        { email: b, reason: 'r-b', created_at: expect.any(String) },
      ],
      total: expect.any(Number),
      limit: 2,
      offset: 0,
      next_after: b,
    });
    const second = await adminOk('GET', `/global-suppressions?after=${encodeURIComponent(first.body.next_after)}&limit=2`);
    expect(second.data[0]).toEqual({ email: c, reason: 'r-c', created_at: expect.any(String) });
    const whole = await adminOk('GET', '/global-suppressions?limit=500');
    expect(whole.data.map((e: { email: string }) => e.email)).toEqual([...whole.data.map((e: { email: string }) => e.email)].sort());
    expect((await admin('GET', '/global-suppressions?limit=-1')).status).toBe(400);
  });

  it('GET takes email (exact, any case) and offset, and counts the matches in total', async () => {
    const prefix = `paged-${crypto.randomUUID()}`;
    const [a, b] = ['a', 'b'].map((s) => `${prefix}-${s}@example.com`);
    for (const email of [a, b]) await adminOk('POST', '/global-suppressions', { email });
    const one = await adminOk('GET', `/global-suppressions?email=${encodeURIComponent(b.toUpperCase())}`);
    expect(one).toEqual({ data: [{ email: b, reason: 'manual', created_at: expect.any(String) }], total: 1, limit: 50, offset: 0, next_after: null });
    const none = await adminOk('GET', '/global-suppressions?email=nobody-listed@example.com');
    expect([none.data, none.total]).toEqual([[], 0]);
    const skipped = await adminOk('GET', `/global-suppressions?after=${prefix}&limit=1&offset=1`);
    expect([skipped.data[0].email, skipped.limit, skipped.offset]).toEqual([b, 1, 1]);
    expect(skipped.total).toBeGreaterThanOrEqual(2);
    const malformed = await admin('GET', '/global-suppressions?offset=-1');
    expect([malformed.status, malformed.body.message]).toEqual([400, 'Invalid offset: must be a non-negative integer']);
  });

  it('DELETE takes an address off and mail goes again; a workspace list still holds; unknown 404, malformed 400', async () => {
    const { ws } = await emailWorkspace();
    const address = unique('lifted');
    const kept = unique('kept');
    await listed(address);
    await listed(kept);
    await ws.api('POST', '/v1/suppressions', { email: kept });
    expect(await sendStatus(ws, address)).toBe('suppressed');
    const removed = await admin('DELETE', `/global-suppressions/${encodeURIComponent(address.toUpperCase())}`);
    expect([removed.status, removed.body]).toEqual([200, { success: true }]);
    expect(
      (await adminOk('GET', `/global-suppressions?after=${encodeURIComponent(address.slice(0, -1))}&limit=1`)).data.map(
        (e: { email: string }) => e.email,
      ),
    ).not.toContain(address);
    expect(await sendStatus(ws, address)).toBe('sent');
    expect((await outbox(ws)).map((m) => m.to)).toEqual([address]);
    expect((await adminOk('DELETE', `/global-suppressions/${kept}`)).success).toBe(true);
    expect(await sendStatus(ws, kept)).toBe('suppressed');

    const again = await admin('DELETE', `/global-suppressions/${address}`);
    expect([again.status, again.body.message]).toEqual([404, 'Global suppression not found']);
    const malformed = await admin('DELETE', '/global-suppressions/not-an-address');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toEqual([expect.stringMatching(/^email: /)]);
  });

  it('rows an earlier release left in a shard: honoured until the sweep moves them, then listed; DELETE removes them too', async () => {
    const { ws } = await emailWorkspace();
    const moved = unique('moved');
    const dropped = unique('dropped');
    await leftInShard(ws, moved, 'legacy-reason');
    expect(await sendStatus(ws, moved)).toBe('suppressed');
    const run = await adminOk('POST', '/sweeps/global-suppressions');
    expect(run.result).toHaveProperty('global_suppressions_moved');
    expect(await rowsOnShards('SELECT email FROM global_email_suppressions WHERE email = ?', moved)).toEqual([]);
    const page = await adminOk('GET', `/global-suppressions?after=${encodeURIComponent(moved.slice(0, -1))}&limit=1`);
    expect(page.data).toEqual([{ email: moved, reason: 'legacy-reason', created_at: expect.any(String) }]);
    expect(await sendStatus(ws, moved)).toBe('suppressed');

    await leftInShard(ws, dropped);
    expect(await sendStatus(ws, dropped)).toBe('suppressed');
    expect((await admin('DELETE', `/global-suppressions/${dropped}`)).status).toBe(200);
    expect(await rowsOnShards('SELECT email FROM global_email_suppressions WHERE email = ?', dropped)).toEqual([]);
    expect(await sendStatus(ws, dropped)).toBe('sent');
  });
});
