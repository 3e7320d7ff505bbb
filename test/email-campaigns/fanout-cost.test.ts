import { describe, expect, it } from 'vitest';
import { handlePage, handleSend, PAGE_SIZE, SEND_CHUNK } from '../../src/modules/email-campaigns/fanout';
import { startCampaign, type PageMessage, type SendMessage } from '../../src/modules/email-campaigns/launch';
import { workspaceDb } from '../../src/platform/shards';
import { emailWorkspace, outbox } from '../email/support';
import { shardOf } from '../support/db';
import type { TestWorkspace } from '../support/harness';
import { expectBoundedPlans, recordingEnv, roundTrips, type Ran } from '../support/plans';
import { readyCampaign, subscribedContact } from './support';

/** `count` subscribed contacts written straight to the shard, their creation times shared in threes (ties the keyset must break by id). */
async function bulkSubscribers(ws: TestWorkspace, count: number) {
  const db = await shardOf(ws.id);
  const ids = Array.from({ length: count }, () => crypto.randomUUID());
  for (let i = 0; i < count; i += 100) {
    await db.batch(
      ids.slice(i, i + 100).map((id, k) => {
        const at = new Date(Date.UTC(2025, 0, 1) + Math.floor((i + k) / 3) * 1000).toISOString();
        return db
          .prepare(`INSERT INTO contacts (id, workspace_id, email, first_name, email_consent_state, block_state, custom_fields, created_at, updated_at) VALUES (?, ?, ?, 'Bulk', 'subscribed', 'none', '{}', ?, ?)`)
          .bind(id, ws.id, `bulk${i + k}@example.com`, at, at);
      }),
    );
  }
  return ids;
}

/** A sending campaign whose queue messages are held: pages and sends run only when the test hands them over. */
async function heldCampaign(ws: TestWorkspace, ran: Ran[] = []) {
  const rec = recordingEnv(ran);
  const c = await readyCampaign(ws);
  expect(await startCampaign(rec.env, (await workspaceDb(rec.env, ws.id))!, ws.id, c.id, 'https://links.example')).not.toBeNull();
  return { c, rec };
}

describe('email campaign fan-out cost', () => {
  it('every statement of a page and of a send is bounded by its input: lists drive probes by key, nothing walks the campaign or the workspace', async () => {
    const { ws } = await emailWorkspace();
    for (const name of ['ada', 'bob', 'cy']) await subscribedContact(ws, `${name}@example.com`, { first_name: name });
    const ran: Ran[] = [];
    const { c, rec } = await heldCampaign(ws, ran);
    await handlePage(rec.env, rec.sent.shift() as PageMessage);
    const sends = rec.sent.filter((m) => m.kind === 'email-campaign-send') as SendMessage[];
    expect(sends.map((m) => m.contact_ids.length)).toEqual([3]);
    await handleSend(rec.env, sends[0]);
    const done = await ws.api('GET', `/v1/email-campaigns/${c.id}`);
    expect(done.body).toMatchObject({ status: 'sent', counters: { targeted: 3, sent: 3, failed: 0 } });
    // The sender candidates are the few verified profiles the operator keeps for the workspace, sorted by preference.
    expect(await expectBoundedPlans(await shardOf(ws.id), ran, /from "sender_profiles"/)).toBeGreaterThan(10);
  });

  it('a chunk takes six round trips on the shard whatever its size, and sends each recipient one email', async () => {
    for (const count of [3, SEND_CHUNK]) {
      const { ws } = await emailWorkspace();
      await bulkSubscribers(ws, count);
      const ran: Ran[] = [];
      const { c, rec } = await heldCampaign(ws, ran);
      await handlePage(rec.env, rec.sent.shift() as PageMessage);
      const [send] = rec.sent.filter((m) => m.kind === 'email-campaign-send') as SendMessage[];
      expect(send.contact_ids.length).toBe(count);
      ran.length = 0;
      await handleSend(rec.env, send);
      // The claim with the campaign, the eligibility re-check, the bulk send's read and reserve, the provider, the settle.
      expect(roundTrips(ran), `chunk of ${count}`).toBe(6);
      expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body).toMatchObject({ status: 'sent', counters: { targeted: count, sent: count, failed: 0 } });
      expect((await outbox(ws)).length).toBe(count);
    }
  });

  it('pages walk the audience in (creation time, id) order: every contact targeted once, ties in creation time included; a cursor of id alone resumes too', async () => {
    const { ws } = await emailWorkspace();
    const ids = await bulkSubscribers(ws, 2 * PAGE_SIZE + 7);
    const { c, rec } = await heldCampaign(ws);
    const pages: string[][] = [];
    let message = rec.sent.shift() as PageMessage | undefined;
    while (message) {
      // The second page resumes from the contact id alone, as a page message enqueued before cursors carried the creation time does.
      await handlePage(rec.env, pages.length === 1 ? { ...message, after_created_at: undefined } : message);
      const out = rec.sent.splice(0);
      pages.push((out.filter((m) => m.kind === 'email-campaign-send') as SendMessage[]).flatMap((m) => m.contact_ids));
      message = out.find((m) => m.kind === 'email-campaign-page');
    }
    expect(pages.map((p) => p.length)).toEqual([PAGE_SIZE, PAGE_SIZE, 7]);
    expect(new Set(pages.flat())).toEqual(new Set(ids));
    const campaign = await ws.api('GET', `/v1/email-campaigns/${c.id}`);
    expect(campaign.body.counters.targeted).toBe(ids.length);
  });
});
