import { describe, expect, it } from 'vitest';
import { PAGE_SIZE, redriveStaleCampaigns } from '../../src/modules/email-campaigns/fanout';
import { LEASE_MS } from '../../src/modules/email-campaigns/lease';
import type { Bindings } from '../../src/env';
import { workspaceDb } from '../../src/platform/d1/shards';
import type { QueueMessageBody } from '../../src/platform/manifest';
import { emailWorkspace } from '../email/support';
import { rowsIn } from '../support/db';
import type { TestWorkspace } from '../support/harness';
import { gatedShards } from '../support/gate';
import { deliver } from '../support/send-queue';
import { bulkSubscribers, finished, heldCampaign, mailCount } from './support';

/**
 * A sending campaign is held by its fan-out's lease (a minute, renewed by every batch its pages and
 * chunks write); the `campaign-schedules` sweep re-drives one whose lease lapsed. Time is the
 * sweep's `now`, or the campaign's `lease_until` set back; nothing waits for a clock.
 */
const campaignRow = async (ws: TestWorkspace, id: string) =>
  (
    await rowsIn<{ lease_until: string; updated_at: string; drive: number; status: string }>(
      ws.id,
      'SELECT lease_until, updated_at, drive, status FROM email_campaigns WHERE id = ?',
      id,
    )
  )[0];
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
/** The held messages of one campaign, taken out of the queue (a sweep runs over the whole shard). */
const takeOf = (waiting: QueueMessageBody[], id: string) => {
  const mine = waiting.filter((m) => m.campaign_id === id);
  waiting.splice(0, waiting.length, ...waiting.filter((m) => m.campaign_id !== id));
  return mine;
};
/** Delivers the campaign's held messages, a batch each, until none is left. */
async function drainCampaign(env: Bindings, waiting: QueueMessageBody[], id: string) {
  for (let mine = takeOf(waiting, id); mine.length; mine = takeOf(waiting, id)) {
    for (const m of mine) await deliver(env, waiting, [m]);
  }
}
const sweep = async (env: Bindings, ws: TestWorkspace, now?: string) => redriveStaleCampaigns(env, (await workspaceDb(env, ws.id))!, now);

describe('email campaigns held by a lease', () => {
  it('re-drives a campaign whose page message was lost once its lease lapsed, not before, and sends each recipient once', async () => {
    const { ws } = await emailWorkspace();
    const ids = await bulkSubscribers(ws, 60);
    const { c, rec } = await heldCampaign(ws);
    // The launch holds the campaign for a lease; its first page message is lost.
    expect(takeOf(rec.sent, c.id)).toHaveLength(1);
    const { lease_until, updated_at, drive } = await campaignRow(ws, c.id);
    // A minute from its last progress: with the sweep every minute, work whose worker died moves again within two.
    expect(Date.parse(lease_until) - Date.parse(updated_at)).toBe(LEASE_MS);
    expect(LEASE_MS).toBe(60_000);
    await sweep(rec.env, ws, plus(lease_until, -1));
    await sweep(rec.env, ws, lease_until);
    expect(takeOf(rec.sent, c.id)).toEqual([]);
    await sweep(rec.env, ws, plus(lease_until, 1));
    const redriven = takeOf(rec.sent, c.id);
    expect(redriven).toEqual([
      {
        kind: 'email-campaign-page',
        workspace_id: ws.id,
        campaign_id: c.id,
        base_url: 'https://links.example',
        after: null,
        drain: true,
        drive: drive + 1,
      },
    ]);
    // The re-drive does not renew the lease: a later pass, while that message still waits, sends another;
    // whichever runs first carries the campaign on and the other stops.
    await sweep(rec.env, ws, plus(lease_until, 60_000));
    const again = takeOf(rec.sent, c.id);
    expect(again).toMatchObject([{ drain: true, drive: drive + 2 }]);
    rec.sent.push(...redriven, ...again);
    await drainCampaign(rec.env, rec.sent, c.id);
    expect(await finished(ws, c.id)).toMatchObject({ status: 'sent', counters: { targeted: ids.length, sent: ids.length, failed: 0 } });
    expect(await mailCount(ws)).toEqual({ mails: ids.length, addresses: ids.length });
  });

  it('sends one message when two sweeps re-drive the same campaign at once', async () => {
    const { ws } = await emailWorkspace();
    await bulkSubscribers(ws, 5);
    const { c, rec } = await heldCampaign(ws);
    takeOf(rec.sent, c.id);
    const { lease_until } = await campaignRow(ws, c.id);
    await Promise.all([sweep(rec.env, ws, plus(lease_until, 1)), sweep(rec.env, ws, plus(lease_until, 1))]);
    expect(takeOf(rec.sent, c.id)).toHaveLength(1);
    expect((await campaignRow(ws, c.id)).drive).toBe(1);
  });

  it('sends each recipient once when the re-driven page and the original page both run', async () => {
    const { ws } = await emailWorkspace();
    const ids = await bulkSubscribers(ws, PAGE_SIZE + 5);
    const { c, rec } = await heldCampaign(ws);
    // The original first page is merely slow: it targeted its recipients, then stalls before its chunks claim them.
    const slow = gatedShards(rec.env, /SET status = 'sending'/);
    const original = deliver(slow.env, rec.sent, takeOf(rec.sent, c.id));
    await slow.reached;
    await rowsIn(ws.id, "UPDATE email_campaigns SET lease_until = '2020-01-01T00:00:00.000Z' WHERE id = ? RETURNING id", c.id);
    await sweep(rec.env, ws);
    const redriven = takeOf(rec.sent, c.id);
    expect(redriven).toMatchObject([{ drain: true, drive: 1 }]);
    // The re-driven page sends the queued recipients; then the original's chunks go on while the campaign
    // still sends (its second page is still to target), and claim none of them.
    await deliver(rec.env, rec.sent, redriven);
    expect(await mailCount(ws)).toEqual({ mails: PAGE_SIZE, addresses: PAGE_SIZE });
    slow.release();
    await original;
    expect(await mailCount(ws)).toEqual({ mails: PAGE_SIZE, addresses: PAGE_SIZE });
    await drainCampaign(rec.env, rec.sent, c.id);
    expect(await finished(ws, c.id)).toMatchObject({ status: 'sent', counters: { targeted: ids.length, sent: ids.length, failed: 0 } });
    expect(await mailCount(ws)).toEqual({ mails: ids.length, addresses: ids.length });
  });

  it("stops the older chain's next page once a re-drive holds the campaign, and carries it on when that lapses too", async () => {
    const { ws } = await emailWorkspace();
    const ids = await bulkSubscribers(ws, PAGE_SIZE + 5);
    const { c, rec } = await heldCampaign(ws);
    await deliver(rec.env, rec.sent, takeOf(rec.sent, c.id));
    // The first page went out; the second page's message waits longer than the lease.
    const [second] = takeOf(rec.sent, c.id);
    expect(second).toMatchObject({ after: expect.any(String), drive: 0 });
    const { lease_until } = await campaignRow(ws, c.id);
    await sweep(rec.env, ws, plus(lease_until, 1));
    const [drain] = takeOf(rec.sent, c.id);
    expect(drain).toMatchObject({ drain: true, drive: 1 });
    await deliver(rec.env, rec.sent, [drain]);
    // Nothing was left queued: the new chain targets again from the first page.
    const [retarget] = takeOf(rec.sent, c.id);
    expect(retarget).toMatchObject({ after: null, drive: 1 });

    // While the new chain holds the campaign, the older chain's page does nothing and hands on nothing.
    await rowsIn(ws.id, "UPDATE email_campaigns SET lease_until = '2999-01-01T00:00:00.000Z' WHERE id = ? RETURNING id", c.id);
    await deliver(rec.env, rec.sent, [second]);
    expect(takeOf(rec.sent, c.id)).toEqual([]);
    expect(await mailCount(ws)).toEqual({ mails: PAGE_SIZE, addresses: PAGE_SIZE });

    // Once that chain's lease lapsed too, a page of any chain takes the campaign over and carries it on.
    await rowsIn(ws.id, "UPDATE email_campaigns SET lease_until = '2020-01-01T00:00:00.000Z' WHERE id = ? RETURNING id", c.id);
    await deliver(rec.env, rec.sent, [second]);
    expect((await campaignRow(ws, c.id)).drive).toBe(2);
    rec.sent.push(retarget);
    await drainCampaign(rec.env, rec.sent, c.id);
    expect(await finished(ws, c.id)).toMatchObject({ status: 'sent', counters: { targeted: ids.length, sent: ids.length, failed: 0 } });
    expect(await mailCount(ws)).toEqual({ mails: ids.length, addresses: ids.length });
  });

  it('renews the lease with every batch a page writes', async () => {
    const { ws } = await emailWorkspace();
    await bulkSubscribers(ws, 5);
    const { c, rec } = await heldCampaign(ws);
    await rowsIn(ws.id, "UPDATE email_campaigns SET lease_until = '2020-01-01T00:00:00.000Z' WHERE id = ? RETURNING id", c.id);
    await deliver(rec.env, rec.sent, takeOf(rec.sent, c.id));
    const row = await campaignRow(ws, c.id);
    expect(row.status).toBe('sent');
    expect(row.lease_until > '2020-01-01T00:00:00.000Z').toBe(true);
    expect(row.drive).toBe(0);
  });
});
