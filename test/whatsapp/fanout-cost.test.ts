import { describe, expect, it } from 'vitest';
import { handlePage, handleSend, PAGE_SIZE, SEND_CHUNK } from '../../src/modules/whatsapp/fanout';
import { startCampaign } from '../../src/modules/whatsapp/campaigns';
import { workspaceDb } from '../../src/platform/shards';
import { shardOf } from '../support/db';
import { expectBoundedPlans, recordingEnv, roundTrips, type Ran } from '../support/plans';
import { messagesOf, outboxOf, template, waWorkspace } from './helpers';

/** A running campaign to `count` new contacts whose queue messages are held: pages and sends run only when the test hands them over. */
async function heldCampaign(count: number) {
  const ws = await waWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
  const t = await template(ws, { body: 'Hi {{1}}, your code is {{2}}' });
  for (let i = 0; i < count; i++) await ws.api('POST', '/v1/contacts', { phone: `+1415555${String(1000 + i)}`, first_name: `C${i}` });
  const c = (await ws.api('POST', '/v1/campaigns', { name: 'Held', template_id: t.id, variables: { '1': '{{contact.first_name|there}}', '2': 'CODE' } })).body;
  const ran: Ran[] = [];
  const rec = recordingEnv(ran);
  expect(await startCampaign(rec.env, (await workspaceDb(rec.env, ws.id))!, ws.id, c.id)).not.toBeNull();
  await handlePage(rec.env, rec.sent.shift());
  const sends = rec.sent.splice(0).filter((m) => m.kind === 'whatsapp-campaign-send');
  return { ws, c, rec, ran, sends };
}

describe('WhatsApp campaign fan-out cost', () => {
  it('a chunk takes four round trips on the shard whatever its size, every statement bounded by its input; each recipient gets one message', async () => {
    for (const count of [3, SEND_CHUNK]) {
      const { ws, c, rec, ran, sends } = await heldCampaign(count);
      expect(sends.map((m) => m.contact_ids.length)).toEqual([count]);
      const page = ran.splice(0);
      await handleSend(rec.env, sends[0]);
      expect(roundTrips(ran), `chunk of ${count}`).toBe(4);
      expect((await ws.api('GET', `/v1/campaigns/${c.id}`)).body).toMatchObject({ status: 'completed', stats: { targeted: count, sent: count, failed: 0 } });
      expect((await outboxOf(ws)).length).toBe(count);
      const messages = await messagesOf(ws);
      expect(messages.length).toBe(count);
      expect(messages.every((m: any) => m.status === 'sent' && m.wamid && m.conversation_id && m.campaign_id === c.id)).toBe(true);
      // A redelivered send message claims nothing and sends nothing.
      await handleSend(rec.env, sends[0]);
      expect((await outboxOf(ws)).length).toBe(count);
      expect(await expectBoundedPlans(await shardOf(ws.id), [...page, ...ran])).toBeGreaterThan(8);
    }
  });

  it('pages walk the audience in (creation time, id) order: every contact targeted once, ties in creation time included; a cursor of id alone resumes too', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { body: 'Hi {{1}}' });
    const db = await shardOf(ws.id);
    const ids = Array.from({ length: 2 * PAGE_SIZE + 3 }, () => crypto.randomUUID());
    for (let i = 0; i < ids.length; i += 100) {
      await db.batch(
        ids.slice(i, i + 100).map((id, k) => {
          const at = new Date(Date.UTC(2025, 0, 1) + Math.floor((i + k) / 3) * 1000).toISOString();
          return db
            .prepare(`INSERT INTO contacts (id, workspace_id, phone, first_name, whatsapp_consent_state, block_state, custom_fields, created_at, updated_at) VALUES (?, ?, ?, 'Bulk', 'subscribed', 'none', '{}', ?, ?)`)
            .bind(id, ws.id, `+1415777${String(i + k).padStart(4, '0')}`, at, at);
        }),
      );
    }
    const c = (await ws.api('POST', '/v1/campaigns', { name: 'Pages', template_id: t.id, variables: { '1': 'you' } })).body;
    const rec = recordingEnv([]);
    expect(await startCampaign(rec.env, (await workspaceDb(rec.env, ws.id))!, ws.id, c.id)).not.toBeNull();
    const pages: string[][] = [];
    let message = rec.sent.shift();
    while (message) {
      // The second page resumes from the contact id alone, as a page message enqueued before cursors carried the creation time does.
      await handlePage(rec.env, pages.length === 1 ? { ...message, after_created_at: undefined } : message);
      const out = rec.sent.splice(0);
      pages.push(out.filter((m) => m.kind === 'whatsapp-campaign-send').flatMap((m) => m.contact_ids));
      message = out.find((m) => m.kind === 'whatsapp-campaign-page');
    }
    expect(pages.map((p) => p.length)).toEqual([PAGE_SIZE, PAGE_SIZE, 3]);
    expect(new Set(pages.flat())).toEqual(new Set(ids));
    expect((await ws.api('GET', `/v1/campaigns/${c.id}`)).body.stats.targeted).toBe(ids.length);
  });
});
