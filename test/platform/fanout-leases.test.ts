import { describe, expect, it } from 'vitest';
import { PAGE_SIZE as EMAIL_PAGE, redriveStaleCampaigns as redriveEmail } from '../../src/modules/email-campaigns/fanout';
import { PAGE_SIZE as WHATSAPP_PAGE, redriveStaleCampaigns as redriveWhatsApp } from '../../src/modules/whatsapp/fanout';
import type { Bindings } from '../../src/env';
import { workspaceDb } from '../../src/platform/d1/shards';
import { LEASE_MS } from '../../src/platform/fanout/lease';
import type { QueueMessageBody } from '../../src/platform/manifest';
import { bulkSubscribers, finished, heldCampaign, mailCount } from '../email-campaigns/support';
import { emailWorkspace } from '../email/support';
import { rowsIn } from '../support/db';
import { eventually, type TestWorkspace } from '../support/harness';
import { gatedShards } from '../support/gate';
import { recordingEnv } from '../support/plans';
import { deliver } from '../support/send-queue';
import { heldWhatsAppCampaign, whatsappCount } from '../whatsapp/helpers';

/**
 * A running campaign, email or WhatsApp, is held by its fan-out's lease (a minute, renewed by every
 * batch its pages and chunks write); the `campaign-schedules` sweep re-drives one whose lease
 * lapsed. Each rule runs once per channel. Time is the sweep's `now`, or the campaign's
 * `lease_until` set back; nothing waits for a clock.
 */
type Held = { ws: TestWorkspace; c: { id: string }; rec: ReturnType<typeof recordingEnv> };

const CHANNELS = [
  {
    channel: 'email',
    table: 'email_campaigns',
    pageSize: EMAIL_PAGE,
    redrive: redriveEmail,
    /** A page message's fields besides the campaign and its place in the walk. */
    pageFields: { kind: 'email-campaign-page', base_url: 'https://links.example' },
    /** A sending campaign to `count` subscribers, its queue messages held in `rec`. */
    async held(count: number): Promise<Held> {
      const { ws } = await emailWorkspace();
      await bulkSubscribers(ws, count);
      return { ws, ...(await heldCampaign(ws)) };
    },
    /** The messages the sandbox accepted for the workspace, and how many recipients they went to. */
    reached: async (ws: TestWorkspace) => {
      const { mails, addresses } = await mailCount(ws);
      return { messages: mails, recipients: addresses };
    },
    /** The campaign once it left its running status: its status and its counters. */
    ended: async (ws: TestWorkspace, id: string) => {
      const { status, counters } = await finished(ws, id);
      return { status, counters };
    },
    endStatus: 'sent',
  },
  {
    channel: 'WhatsApp',
    table: 'whatsapp_campaigns',
    pageSize: WHATSAPP_PAGE,
    redrive: redriveWhatsApp,
    pageFields: { kind: 'whatsapp-campaign-page' },
    async held(count: number): Promise<Held> {
      const rec = recordingEnv([]);
      return { ...(await heldWhatsAppCampaign(count, rec)), rec };
    },
    reached: async (ws: TestWorkspace) => {
      const { messages, numbers } = await whatsappCount(ws);
      return { messages, recipients: numbers };
    },
    ended: async (ws: TestWorkspace, id: string) => {
      const { status, stats } = await eventually(
        async () => (await ws.api('GET', `/v1/campaigns/${id}`)).body,
        (c) => c.status !== 'running',
        20_000,
      );
      return { status, counters: stats };
    },
    endStatus: 'completed',
  },
];

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

describe.each(CHANNELS)('$channel campaigns held by a lease', ({ table, pageSize, redrive, pageFields, held, reached, ended, endStatus }) => {
  const campaignRow = async (ws: TestWorkspace, id: string) =>
    (
      await rowsIn<{ lease_until: string; updated_at: string; drive: number; status: string }>(
        ws.id,
        `SELECT lease_until, updated_at, drive, status FROM ${table} WHERE id = ?`,
        id,
      )
    )[0];
  const setLease = (ws: TestWorkspace, id: string, until: string) =>
    rowsIn(ws.id, `UPDATE ${table} SET lease_until = ? WHERE id = ? RETURNING id`, until, id);
  const sweep = async (env: Bindings, ws: TestWorkspace, now?: string) => redrive(env, (await workspaceDb(env, ws.id))!, now);
  const everyoneOnce = async (ws: TestWorkspace, id: string, count: number) => {
    expect(await ended(ws, id)).toEqual({ status: endStatus, counters: expect.objectContaining({ targeted: count, sent: count, failed: 0 }) });
    expect(await reached(ws)).toEqual({ messages: count, recipients: count });
  };

  it('re-drives a campaign whose page message was lost once its lease lapsed, not before, and reaches each recipient once', async () => {
    const { ws, c, rec } = await held(60);
    // The start holds the campaign for a lease; its first page message is lost.
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
    expect(redriven).toEqual([{ ...pageFields, workspace_id: ws.id, campaign_id: c.id, after: null, drain: true, drive: drive + 1 }]);
    // The re-drive does not renew the lease: a later pass, while that message still waits, sends another;
    // whichever runs first carries the campaign on and the other stops.
    await sweep(rec.env, ws, plus(lease_until, 60_000));
    const again = takeOf(rec.sent, c.id);
    expect(again).toMatchObject([{ drain: true, drive: drive + 2 }]);
    rec.sent.push(...redriven, ...again);
    await drainCampaign(rec.env, rec.sent, c.id);
    await everyoneOnce(ws, c.id, 60);
  });

  it('sends one message when two sweeps re-drive the same campaign at once', async () => {
    const { ws, c, rec } = await held(5);
    takeOf(rec.sent, c.id);
    const { lease_until } = await campaignRow(ws, c.id);
    await Promise.all([sweep(rec.env, ws, plus(lease_until, 1)), sweep(rec.env, ws, plus(lease_until, 1))]);
    expect(takeOf(rec.sent, c.id)).toHaveLength(1);
    expect((await campaignRow(ws, c.id)).drive).toBe(1);
  });

  it('reaches each recipient once when the re-driven page and the original page both run', async () => {
    const count = pageSize + 5;
    const { ws, c, rec } = await held(count);
    // The original first page is merely slow: it targeted its recipients, then stalls before its chunks claim them.
    const slow = gatedShards(rec.env, /SET status = 'sending'/);
    const original = deliver(slow.env, rec.sent, takeOf(rec.sent, c.id));
    await slow.reached;
    await setLease(ws, c.id, '2020-01-01T00:00:00.000Z');
    await sweep(rec.env, ws);
    const redriven = takeOf(rec.sent, c.id);
    expect(redriven).toMatchObject([{ drain: true, drive: 1 }]);
    // The re-driven page sends the queued recipients; then the original's chunks go on while the campaign
    // still runs (its second page is still to target), and claim none of them.
    await deliver(rec.env, rec.sent, redriven);
    expect(await reached(ws)).toEqual({ messages: pageSize, recipients: pageSize });
    slow.release();
    await original;
    expect(await reached(ws)).toEqual({ messages: pageSize, recipients: pageSize });
    await drainCampaign(rec.env, rec.sent, c.id);
    await everyoneOnce(ws, c.id, count);
  });

  it("stops the older chain's next page once a re-drive holds the campaign, and carries it on when that lapses too", async () => {
    const count = pageSize + 5;
    const { ws, c, rec } = await held(count);
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
    await setLease(ws, c.id, '2999-01-01T00:00:00.000Z');
    await deliver(rec.env, rec.sent, [second]);
    expect(takeOf(rec.sent, c.id)).toEqual([]);
    expect(await reached(ws)).toEqual({ messages: pageSize, recipients: pageSize });

    // Once that chain's lease lapsed too, a page of any chain takes the campaign over and carries it on.
    await setLease(ws, c.id, '2020-01-01T00:00:00.000Z');
    await deliver(rec.env, rec.sent, [second]);
    expect((await campaignRow(ws, c.id)).drive).toBe(2);
    rec.sent.push(retarget);
    await drainCampaign(rec.env, rec.sent, c.id);
    await everyoneOnce(ws, c.id, count);
  });

  it('renews the lease with every batch a page writes', async () => {
    const { ws, c, rec } = await held(5);
    await setLease(ws, c.id, '2020-01-01T00:00:00.000Z');
    await deliver(rec.env, rec.sent, takeOf(rec.sent, c.id));
    const row = await campaignRow(ws, c.id);
    expect(row.status).toBe(endStatus);
    expect(row.lease_until > '2020-01-01T00:00:00.000Z').toBe(true);
    expect(row.drive).toBe(0);
  });
});
