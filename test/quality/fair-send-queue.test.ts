import { describe, expect, it } from 'vitest';
import { PAGE_SIZE as EMAIL_PAGE, redriveStaleCampaigns as redriveEmail } from '../../src/modules/email-campaigns/fanout';
import { PAGE_SIZE as WHATSAPP_PAGE, redriveStaleCampaigns as redriveWhatsApp } from '../../src/modules/whatsapp/fanout';
import type { Bindings } from '../../src/env';
import { workspaceDb } from '../../src/platform/d1/shards';
import type { QueueMessageBody } from '../../src/platform/manifest';
import { queueConsumer } from '../../src/queue';
import { bulkSubscribers, heldCampaign, mailCount, readyCampaign } from '../email-campaigns/support';
import { emailWorkspace } from '../email/support';
import { rowsIn, shardOf } from '../support/db';
import type { TestWorkspace } from '../support/harness';
import { recordingEnv, type Ran } from '../support/plans';
import { deliver, nextBatch } from '../support/send-queue';
import { heldWhatsAppCampaign, whatsappCount } from '../whatsapp/helpers';

/**
 * The send queue is shared by every workspace's campaigns (email and WhatsApp) and newsletter
 * deliveries. A campaign keeps one message on it at a time, so a send launched later waits behind
 * one message per send in progress, however large those are. The consumer here is the Worker's own
 * queue entry; the queue is held in memory so the test decides the order messages are taken in.
 */

const OLD = '2020-01-01T00:00:00.000Z';

/** The query plan of the statement that reads a campaign's still-queued recipients (a drain page's). */
async function drainPlan(ws: TestWorkspace, ran: Ran[]) {
  const drains = ran.filter((r) => /AND status = 'queued' LIMIT/.test(r.sql));
  expect(drains.length).toBeGreaterThan(0);
  const { sql, params } = drains[0];
  const plan = await (await shardOf(ws.id))
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return plan.results.map((r) => r.detail).join('\n');
}

const ofCampaign = (id: string) => (m: QueueMessageBody) => m.campaign_id === id;

/** Leaves in `waiting` only the campaign's messages (a re-drive runs over the whole shard). */
const keepOnly = (waiting: QueueMessageBody[], id: string) => waiting.splice(0, waiting.length, ...waiting.filter(ofCampaign(id)));

/** Delivers the held messages one at a time, newest first (any order is the queue's to choose), until none is left; answers the most that ever waited. */
async function drainNewestFirst(env: Bindings, waiting: QueueMessageBody[]) {
  let most = 0;
  while (waiting.length) {
    most = Math.max(most, waiting.length);
    await deliver(env, waiting, [waiting.pop()!]);
  }
  return most;
}

describe('fair send queue', () => {
  it('a batch runs its page messages one after another, in the order delivered; a failing one is retried alone', async () => {
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const consume = queueConsumer([
      {
        kind: 'test-in-turn',
        inTurn: true,
        run: async (_env, body: { n: number }) => {
          most = Math.max(most, ++running);
          await new Promise((r) => setTimeout(r, 5));
          order.push(body.n);
          running--;
          if (body.n === 2) throw new Error('this one fails');
        },
      },
    ]);
    const waiting: QueueMessageBody[] = [];
    const bodies = [1, 2, 3].map((n) => ({ kind: 'test-in-turn', n }));
    await deliver(recordingEnv([]).env, waiting, bodies, consume);
    expect(most).toBe(1);
    expect(order).toEqual([1, 2, 3]);
    expect(waiting).toEqual([bodies[1]]);
  });

  it('an email campaign keeps one message on the send queue at a time, whatever order the consumer takes them in, and reaches each recipient once', async () => {
    const { ws } = await emailWorkspace();
    const ids = await bulkSubscribers(ws, 2 * EMAIL_PAGE + 7);
    const { c, rec } = await heldCampaign(ws);
    expect(await drainNewestFirst(rec.env, rec.sent)).toBe(1);
    expect(await mailCount(ws)).toEqual({ mails: ids.length, addresses: ids.length });
    expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body).toMatchObject({
      status: 'sent',
      counters: { targeted: ids.length, sent: ids.length, failed: 0 },
    });
  });

  it('a WhatsApp campaign keeps one message on the send queue at a time, whatever order the consumer takes them in, and reaches each recipient once', async () => {
    const rec = recordingEnv([]);
    const count = 2 * WHATSAPP_PAGE + 3;
    const { ws, c } = await heldWhatsAppCampaign(count, rec);
    expect(await drainNewestFirst(rec.env, rec.sent)).toBe(1);
    expect(await whatsappCount(ws)).toEqual({ messages: count, numbers: count });
    expect((await ws.api('GET', `/v1/campaigns/${c.id}`)).body).toMatchObject({
      status: 'completed',
      stats: { targeted: count, sent: count, failed: 0 },
    });
  });

  it('a 10-recipient campaign launched while two large ones send waits behind one message of each: done in the first batch that reaches it, one page of each large send later', async () => {
    const rec = recordingEnv([]);
    const big = await emailWorkspace();
    const bigIds = await bulkSubscribers(big.ws, 2 * EMAIL_PAGE + 7);
    const bigEmail = await heldCampaign(big.ws, [], rec);
    const whatsappRecipients = 2 * WHATSAPP_PAGE + 3;
    const bigWhatsApp = await heldWhatsAppCampaign(whatsappRecipients, rec);
    // Both large sends are under way: the consumer took batches until the first emails went out.
    while ((await mailCount(big.ws)).mails === 0) await deliver(rec.env, rec.sent, nextBatch(rec.sent));

    const small = await emailWorkspace();
    await bulkSubscribers(small.ws, 10);
    const { c } = await heldCampaign(small.ws, [], rec);
    const ahead = rec.sent.findIndex(ofCampaign(c.id));
    expect(ahead, 'messages ahead of the small campaign when it is launched').toBeLessThanOrEqual(2);

    // The consumer takes batches in the order messages were enqueued, as the queue does.
    let batches = 0;
    let largePages = 0;
    while ((await small.ws.api('GET', `/v1/email-campaigns/${c.id}`)).body.status === 'sending') {
      const batch = nextBatch(rec.sent);
      largePages += batch.filter((m) => m.campaign_id !== c.id).length;
      await deliver(rec.env, rec.sent, batch);
      batches++;
    }
    expect(batches).toBe(1);
    expect(largePages, 'pages of the large campaigns processed before the small one was done').toBeLessThanOrEqual(2);
    expect(await mailCount(small.ws)).toEqual({ mails: 10, addresses: 10 });

    while (rec.sent.length) await deliver(rec.env, rec.sent, nextBatch(rec.sent));
    expect(await mailCount(big.ws)).toEqual({ mails: bigIds.length, addresses: bigIds.length });
    expect(await whatsappCount(bigWhatsApp.ws)).toEqual({ messages: whatsappRecipients, numbers: whatsappRecipients });
    expect((await big.ws.api('GET', `/v1/email-campaigns/${bigEmail.c.id}`)).body.status).toBe('sent');
  });

  it('the re-drive of a stalled email campaign enqueues one message however many recipients wait, then sends each once', async () => {
    const { ws } = await emailWorkspace();
    const ids = await bulkSubscribers(ws, EMAIL_PAGE + 5);
    const c = await readyCampaign(ws);
    // Targeted, then every send was lost: all its recipients still queued, nothing moved for an hour.
    await rowsIn(
      ws.id,
      `INSERT INTO email_campaign_recipients (campaign_id, contact_id, workspace_id, status, unsubscribe_token, created_at, updated_at)
        SELECT ?1, id, workspace_id, 'queued', workspace_id || '.c' || lower(hex(randomblob(16))), ?2, ?2 FROM contacts WHERE workspace_id = ?3 RETURNING 1`,
      c.id,
      OLD,
      ws.id,
    );
    await rowsIn(
      ws.id,
      `UPDATE email_campaigns SET status = 'sending', sent_at = ?1, link_origin = 'https://links.example', targeting_done_at = ?1, targeted = ?2, updated_at = ?1 WHERE id = ?3 RETURNING 1`,
      OLD,
      ids.length,
      c.id,
    );
    const ran: Ran[] = [];
    const rec = recordingEnv(ran);
    await redriveEmail(rec.env, (await workspaceDb(rec.env, ws.id))!);
    keepOnly(rec.sent, c.id);
    expect(rec.sent).toHaveLength(1);
    expect(await drainNewestFirst(rec.env, rec.sent)).toBe(1);
    expect(await mailCount(ws)).toEqual({ mails: ids.length, addresses: ids.length });
    // The queued recipients are read from the index of open recipients, never by walking the campaign.
    expect(await drainPlan(ws, ran)).toMatch(/USING (COVERING )?INDEX email_campaign_recipients_open \(campaign_id=\? AND status=\?\)/);
    expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body).toMatchObject({
      status: 'sent',
      counters: { targeted: ids.length, sent: ids.length, failed: 0 },
    });
  });

  it('the re-drive of a stalled WhatsApp campaign enqueues one message however many recipients wait, then sends each once', async () => {
    const ran: Ran[] = [];
    const rec = recordingEnv(ran);
    const count = WHATSAPP_PAGE + 3;
    const { ws, c } = await heldWhatsAppCampaign(count, rec);
    rec.sent.length = 0;
    // Targeted, then every send was lost: all its recipients still queued, nothing moved for an hour.
    await rowsIn(
      ws.id,
      `INSERT INTO whatsapp_campaign_recipients (campaign_id, contact_id, workspace_id, status, created_at, updated_at)
        SELECT ?1, id, workspace_id, 'queued', ?2, ?2 FROM contacts WHERE workspace_id = ?3 RETURNING 1`,
      c.id,
      OLD,
      ws.id,
    );
    await rowsIn(
      ws.id,
      `UPDATE whatsapp_campaigns SET targeting_done_at = ?1, targeted = ?2, updated_at = ?1, lease_until = ?1 WHERE id = ?3 RETURNING 1`,
      OLD,
      count,
      c.id,
    );
    await redriveWhatsApp(rec.env, (await workspaceDb(rec.env, ws.id))!);
    keepOnly(rec.sent, c.id);
    expect(rec.sent).toHaveLength(1);
    expect(await drainNewestFirst(rec.env, rec.sent)).toBe(1);
    expect(await whatsappCount(ws)).toEqual({ messages: count, numbers: count });
    expect((await ws.api('GET', `/v1/campaigns/${c.id}`)).body).toMatchObject({
      status: 'completed',
      stats: { targeted: count, sent: count, failed: 0 },
    });
    expect(await drainPlan(ws, ran)).toMatch(/USING (COVERING )?INDEX whatsapp_campaign_recipients_status \(campaign_id=\? AND status=\?\)/);
  });

  it('a page whose next page could not be enqueued is retried by the queue and sends nobody twice', async () => {
    const { ws } = await emailWorkspace();
    const ids = await bulkSubscribers(ws, EMAIL_PAGE + 3);
    const { c, rec } = await heldCampaign(ws);
    let refused = false;
    const flaky = {
      ...rec.env,
      SEND_QUEUE: {
        send: async (body: QueueMessageBody) => {
          if (!refused) {
            refused = true;
            throw new Error('queue unavailable');
          }
          rec.sent.push(body);
        },
        sendBatch: async (messages: { body: QueueMessageBody }[]) => void rec.sent.push(...messages.map((m) => m.body)),
      },
    } as unknown as Bindings;
    const first = rec.sent.shift()!;
    await deliver(flaky, rec.sent, [first]);
    // The page went out, its continuation did not: the queue holds the page again.
    expect(rec.sent).toEqual([first]);
    expect((await mailCount(ws)).mails).toBe(EMAIL_PAGE);
    await deliver(flaky, rec.sent, nextBatch(rec.sent));
    expect((await mailCount(ws)).mails).toBe(EMAIL_PAGE);
    expect(rec.sent).toHaveLength(1);
    await deliver(flaky, rec.sent, nextBatch(rec.sent));
    expect(rec.sent).toEqual([]);
    expect(await mailCount(ws)).toEqual({ mails: ids.length, addresses: ids.length });
    expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body).toMatchObject({
      status: 'sent',
      counters: { targeted: ids.length, sent: ids.length, failed: 0 },
    });
  });
});
