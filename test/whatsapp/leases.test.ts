import { describe, expect, it } from 'vitest';
import { startCampaign } from '../../src/modules/whatsapp/campaigns';
import { PAGE_SIZE, redriveStaleCampaigns } from '../../src/modules/whatsapp/fanout';
import { LEASE_MS } from '../../src/modules/whatsapp/lease';
import type { Bindings } from '../../src/env';
import { workspaceDb } from '../../src/platform/d1/shards';
import type { QueueMessageBody } from '../../src/platform/manifest';
import { rowsIn, shardOf } from '../support/db';
import { eventually, type TestWorkspace } from '../support/harness';
import { recordingEnv } from '../support/plans';
import { gatedShards } from '../support/gate';
import { deliver } from '../support/send-queue';
import { template, waWorkspace } from './helpers';

/**
 * A running WhatsApp campaign is held by its fan-out's lease (a minute, renewed by every batch its
 * pages and chunks write); the `campaign-schedules` sweep re-drives one whose lease lapsed. Time is
 * the sweep's `now`, or the campaign's `lease_until` set back; nothing waits for a clock.
 */
type Rec = ReturnType<typeof recordingEnv>;

/** A running campaign to `count` subscribed contacts written straight to the shard, its messages held in `rec`. */
async function heldWhatsAppCampaign(count: number, rec: Rec) {
  const ws = await waWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
  const t = await template(ws, { body: 'Hi {{1}}' });
  const db = await shardOf(ws.id);
  for (let i = 0; i < count; i += 100) {
    await db.batch(
      Array.from({ length: Math.min(100, count - i) }, (_, k) => {
        const at = new Date(Date.UTC(2025, 0, 1) + (i + k) * 1000).toISOString();
        return db
          .prepare(
            `INSERT INTO contacts (id, workspace_id, phone, first_name, whatsapp_consent_state, block_state, custom_fields, created_at, updated_at) VALUES (?, ?, ?, 'Lease', 'subscribed', 'none', '{}', ?, ?)`,
          )
          .bind(crypto.randomUUID(), ws.id, `+1415666${String(i + k).padStart(4, '0')}`, at, at);
      }),
    );
  }
  const c = (await ws.api('POST', '/v1/campaigns', { name: 'Leased', template_id: t.id, variables: { '1': 'you' } })).body;
  expect(await startCampaign(rec.env, (await workspaceDb(rec.env, ws.id))!, ws.id, c.id)).not.toBeNull();
  return { ws, c };
}

const campaignRow = async (ws: TestWorkspace, id: string) =>
  (
    await rowsIn<{ lease_until: string; updated_at: string; drive: number; status: string }>(
      ws.id,
      'SELECT lease_until, updated_at, drive, status FROM whatsapp_campaigns WHERE id = ?',
      id,
    )
  )[0];
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const takeOf = (waiting: QueueMessageBody[], id: string) => {
  const mine = waiting.filter((m) => m.campaign_id === id);
  waiting.splice(0, waiting.length, ...waiting.filter((m) => m.campaign_id !== id));
  return mine;
};
async function drainCampaign(env: Bindings, waiting: QueueMessageBody[], id: string) {
  for (let mine = takeOf(waiting, id); mine.length; mine = takeOf(waiting, id)) {
    for (const m of mine) await deliver(env, waiting, [m]);
  }
}
const sweep = async (env: Bindings, ws: TestWorkspace, now?: string) => redriveStaleCampaigns(env, (await workspaceDb(env, ws.id))!, now);
const sentTo = async (ws: TestWorkspace) =>
  (
    await rowsIn<{ messages: number; numbers: number }>(
      ws.id,
      `SELECT count(*) AS messages, count(DISTINCT "to") AS numbers FROM sandbox_outbox WHERE workspace_id = ? AND channel = 'whatsapp'`,
      ws.id,
    )
  )[0];
const completed = (ws: TestWorkspace, id: string) =>
  eventually(
    async () => (await ws.api('GET', `/v1/campaigns/${id}`)).body,
    (c) => c.status !== 'running',
    20_000,
  );

describe('WhatsApp campaigns held by a lease', () => {
  it('re-drives a campaign whose page message was lost once its lease lapsed, not before, and reaches each recipient once', async () => {
    const rec = recordingEnv([]);
    const { ws, c } = await heldWhatsAppCampaign(30, rec);
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
      { kind: 'whatsapp-campaign-page', workspace_id: ws.id, campaign_id: c.id, after: null, drain: true, drive: drive + 1 },
    ]);
    rec.sent.push(...redriven);
    await drainCampaign(rec.env, rec.sent, c.id);
    expect(await completed(ws, c.id)).toMatchObject({ status: 'completed', stats: { targeted: 30, sent: 30, failed: 0 } });
    expect(await sentTo(ws)).toEqual({ messages: 30, numbers: 30 });
  });

  it('sends one message when two sweeps re-drive the same campaign at once', async () => {
    const rec = recordingEnv([]);
    const { ws, c } = await heldWhatsAppCampaign(3, rec);
    takeOf(rec.sent, c.id);
    const { lease_until } = await campaignRow(ws, c.id);
    await Promise.all([sweep(rec.env, ws, plus(lease_until, 1)), sweep(rec.env, ws, plus(lease_until, 1))]);
    expect(takeOf(rec.sent, c.id)).toHaveLength(1);
    expect((await campaignRow(ws, c.id)).drive).toBe(1);
  });

  it('reaches each recipient once when the re-driven page and the original page both run', async () => {
    const rec = recordingEnv([]);
    const count = PAGE_SIZE + 5;
    const { ws, c } = await heldWhatsAppCampaign(count, rec);
    // The original first page is merely slow: it targeted its recipients, then stalls before its chunks claim them.
    const slow = gatedShards(rec.env, /SET status = 'sending'/);
    const original = deliver(slow.env, rec.sent, takeOf(rec.sent, c.id));
    await slow.reached;
    await rowsIn(ws.id, "UPDATE whatsapp_campaigns SET lease_until = '2020-01-01T00:00:00.000Z' WHERE id = ? RETURNING id", c.id);
    await sweep(rec.env, ws);
    const redriven = takeOf(rec.sent, c.id);
    expect(redriven).toMatchObject([{ drain: true, drive: 1 }]);
    // The re-driven page sends the queued recipients; then the original's chunks go on while the campaign
    // still runs (its second page is still to target), and claim none of them.
    await deliver(rec.env, rec.sent, redriven);
    expect(await sentTo(ws)).toEqual({ messages: PAGE_SIZE, numbers: PAGE_SIZE });
    slow.release();
    await original;
    expect(await sentTo(ws)).toEqual({ messages: PAGE_SIZE, numbers: PAGE_SIZE });
    await drainCampaign(rec.env, rec.sent, c.id);
    expect(await completed(ws, c.id)).toMatchObject({ status: 'completed', stats: { targeted: count, sent: count, failed: 0 } });
    expect(await sentTo(ws)).toEqual({ messages: count, numbers: count });
  });

  it("stops the older chain's next page while a re-drive holds the campaign", async () => {
    const rec = recordingEnv([]);
    const count = PAGE_SIZE + 5;
    const { ws, c } = await heldWhatsAppCampaign(count, rec);
    await deliver(rec.env, rec.sent, takeOf(rec.sent, c.id));
    const [second] = takeOf(rec.sent, c.id);
    expect(second).toMatchObject({ after: expect.any(String), drive: 0 });
    const { lease_until } = await campaignRow(ws, c.id);
    await sweep(rec.env, ws, plus(lease_until, 1));
    const [drain] = takeOf(rec.sent, c.id);
    await deliver(rec.env, rec.sent, [drain]);
    const [retarget] = takeOf(rec.sent, c.id);
    expect(retarget).toMatchObject({ after: null, drive: 1 });
    await rowsIn(ws.id, "UPDATE whatsapp_campaigns SET lease_until = '2999-01-01T00:00:00.000Z' WHERE id = ? RETURNING id", c.id);
    await deliver(rec.env, rec.sent, [second]);
    expect(takeOf(rec.sent, c.id)).toEqual([]);
    expect(await sentTo(ws)).toEqual({ messages: PAGE_SIZE, numbers: PAGE_SIZE });
    rec.sent.push(retarget);
    await drainCampaign(rec.env, rec.sent, c.id);
    expect(await completed(ws, c.id)).toMatchObject({ status: 'completed', stats: { targeted: count, sent: count, failed: 0 } });
    expect(await sentTo(ws)).toEqual({ messages: count, numbers: count });
  });
});
