import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { eligibleCountSql, emailEligiblePage } from '../../src/modules/contacts/consent/eligibility';
import { dbFor } from '../../src/platform/d1/db';
import { platformListJson } from '../../src/modules/suppressions/platform-list';
import { emailWorkspace } from '../email/support';
import { rowsIn, shardOf } from '../support/db';
import { adminOk, type TestWorkspace } from '../support/harness';
import { counted } from '../support/round-trips';
import { readyCampaign, subscribedContact } from './support';

/** Sets columns of a contact directly (states the API reaches only through provider facts). */
async function setColumns(ws: TestWorkspace, id: string, set: string) {
  await (await shardOf(ws.id)).prepare(`UPDATE contacts SET ${set} WHERE workspace_id = ? AND id = ?`).bind(ws.id, id).run();
}

/**
 * Two eligible contacts among every way to miss the baseline: not subscribed, no address,
 * blocked, complained, each suppressing deliverability, the workspace list, the platform list,
 * a blacklisted phone, and both lists at once (subtracted once, not twice), plus list entries
 * naming contacts the baseline already leaves out (subtracted not at all).
 */
async function mixedWorkspace() {
  const { ws } = await emailWorkspace();
  const tag = crypto.randomUUID().slice(0, 8);
  const address = (name: string) => `${name}-${tag}@example.com`;
  await subscribedContact(ws, address('ada'), { country: 'GB' });
  await subscribedContact(ws, address('bob'), { country: 'DE' });
  await ws.api('POST', '/v1/contacts', { email: address('eve') });
  await ws.api('POST', '/v1/contacts', { phone: '+12125550101', name: 'No address' });
  for (const [name, set] of [
    ['blocked', "block_state = 'workspace'"],
    ['complained', "email_complained_at = '2026-01-01T00:00:00.000Z'"],
    ['undeliverable', "email_deliverability = 'undeliverable'"],
    ['bounced', "email_deliverability = 'bounced'"],
    ['complaint', "email_deliverability = 'complained'"],
    ['invalid', "email_deliverability = 'invalid'"],
  ]) {
    await setColumns(ws, await subscribedContact(ws, address(name), { country: 'DE' }), set);
  }
  await subscribedContact(ws, address('sue'), { country: 'DE' });
  await ws.api('POST', '/v1/suppressions', { email: address('sue') });
  await subscribedContact(ws, address('gus'), { country: 'DE' });
  await adminOk('POST', '/global-suppressions', { email: address('gus'), reason: 'spamtrap' });
  await subscribedContact(ws, address('ben'), { phone: '+12125550199', country: 'DE' });
  await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+12125550199' });
  // On the workspace list and blacklisted, and on both suppression lists: each subtracted once.
  await subscribedContact(ws, address('two'), { phone: '+12125550198', country: 'DE' });
  await ws.api('POST', '/v1/suppressions', { email: address('two') });
  await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+12125550198' });
  await subscribedContact(ws, address('all'), { country: 'DE' });
  await ws.api('POST', '/v1/suppressions', { email: address('all') });
  await adminOk('POST', '/global-suppressions', { email: address('all'), reason: 'spamtrap' });
  // Listed, but never counted: not subscribed, or blocked.
  await ws.api('POST', '/v1/suppressions', { email: address('eve') });
  const blockedPhone = await subscribedContact(ws, address('blockedphone'), { phone: '+12125550197' });
  await setColumns(ws, blockedPhone, "block_state = 'workspace'");
  await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+12125550197' });
  return ws;
}

describe('GET /v1/email-campaigns/{id}/estimate', () => {
  it('counts exactly the baseline, alone and narrowed by a filter', async () => {
    const ws = await mixedWorkspace();
    const everyone = await readyCampaign(ws);
    expect((await ws.api('GET', `/v1/email-campaigns/${everyone.id}/estimate`)).body).toEqual({ count: 2 });
    const germans = await readyCampaign(ws, { audience_filters: { $where: { field: 'country', op: 'eq', value: 'DE' } } });
    expect((await ws.api('GET', `/v1/email-campaigns/${germans.id}/estimate`)).body).toEqual({ count: 1 });
    const audience = await adminOk('POST', `/workspaces/${ws.id}/audiences`, {
      name: 'Germans',
      kind: 'dynamic',
      filters: { $where: { field: 'country', op: 'eq', value: 'DE' } },
    });
    const byAudience = await readyCampaign(ws, { audience_id: audience.id });
    expect((await ws.api('GET', `/v1/email-campaigns/${byAudience.id}/estimate`)).body).toEqual({ count: 1 });
  });

  it('answers a campaign without targeting in one round trip; an unknown one 404s', async () => {
    const ws = await mixedWorkspace();
    const everyone = await readyCampaign(ws);
    const res = await counted(ws, 'GET', `/v1/email-campaigns/${everyone.id}/estimate`);
    expect([res.status, res.body, res.roundTrips]).toEqual([200, { count: 2 }, 1]);
    const unknown = await counted(ws, 'GET', `/v1/email-campaigns/${crypto.randomUUID()}/estimate`);
    expect([unknown.status, unknown.body.error.code, unknown.roundTrips]).toEqual([404, 'campaign_not_found', 1]);
  });

  it('counts entries of the eligible-contacts index and walks the workspace lists once instead of probing them per contact', async () => {
    const ws = await mixedWorkspace();
    const query = new SQLiteAsyncDialect().sqlToQuery(
      sql`SELECT ${eligibleCountSql(sql`${ws.id}`, sql`1`, false, sql`${await platformListJson(env)}`)} AS n`,
    );
    const db = await shardOf(ws.id);
    const plan = (
      await db
        .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
        .bind(...query.params)
        .all<{ detail: string }>()
    ).results.map((r) => r.detail);
    // `email IS NOT NULL` bounds the range from below.
    expect(plan).toContain('SEARCH c USING INDEX contacts_email_eligible (workspace_id=? AND email>?)');
    expect(plan).toContain('SEARCH s USING COVERING INDEX email_suppressions_workspace_email (workspace_id=?)');
    expect(plan).toContain('SEARCH c USING INDEX contacts_email_eligible (workspace_id=? AND email=?)');
    expect(plan).toContain('SEARCH b USING COVERING INDEX phone_blacklist_workspace_phone (workspace_id=?)');
    // The platform list (from the control plane) is walked once too, each address probing the index.
    expect(plan.some((d) => /^SCAN p VIRTUAL TABLE/.test(d))).toBe(true);
    // The workspace's lists are never looked up once per contact.
    expect(
      plan.filter((d) =>
        /email_suppressions_workspace_email \(workspace_id=\? AND email=\?\)|phone_blacklist_workspace_phone \(workspace_id=\? AND phone=\?\)/.test(
          d,
        ),
      ),
    ).toEqual([]);
    expect(plan.some((d) => d.includes('contacts_workspace_email_consent') || /SCAN c\b/.test(d))).toBe(false);
    const [{ n }] = (
      await db
        .prepare(query.sql)
        .bind(...query.params)
        .all<{ n: number }>()
    ).results;
    expect(n).toBe(2);
    // The index holds exactly the contacts the baseline admits on their own columns.
    const [{ entries }] = await rowsIn<{ entries: number }>(
      ws.id,
      `SELECT count(*) AS entries FROM contacts INDEXED BY contacts_email_eligible WHERE workspace_id = ? AND email IS NOT NULL AND email_consent_state = 'subscribed'
        AND block_state = 'none' AND email_complained_at IS NULL AND email_deliverability NOT IN ('undeliverable', 'bounced', 'complained', 'invalid')`,
      ws.id,
    );
    expect(entries).toBe(7);
  });

  it('walks listed contacts by id through contacts_id, the unique index the schema names', async () => {
    const ws = await mixedWorkspace();
    const db = await shardOf(ws.id);
    const index = (await db.prepare("SELECT name, [unique] AS u FROM pragma_index_list('contacts') WHERE name = 'contacts_id'").all()).results;
    expect(index).toEqual([{ name: 'contacts_id', u: 1 }]);
    expect((await db.prepare("SELECT name FROM pragma_index_info('contacts_id')").all()).results).toEqual([{ name: 'id' }]);
    const ids = JSON.stringify([crypto.randomUUID(), crypto.randomUUID()]);
    const listed = sql`c.id IN (SELECT value FROM json_each(${ids}))`;
    const count = new SQLiteAsyncDialect().sqlToQuery(sql`SELECT ${eligibleCountSql(sql`${ws.id}`, listed, true, sql`${'[]'}`)} AS n`);
    const page = emailEligiblePage(dbFor(db), ws.id, { extra: listed, listed: true }, { limit: 10 }).getQuery();
    for (const query of [count, page]) {
      const plan = (
        await db
          .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
          .bind(...query.params)
          .all<{ detail: string }>()
      ).results.map((r) => r.detail);
      expect(plan, plan.join('\n')).toContain('SEARCH c USING INDEX contacts_id (id=?)');
      expect(plan.some((d) => d.includes('sqlite_autoindex_contacts_1'))).toBe(false);
    }
  });
});
