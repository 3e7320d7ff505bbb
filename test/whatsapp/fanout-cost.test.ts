import { describe, expect, it } from 'vitest';
import { SEND_CHUNK } from '../../src/platform/fanout/pages';
import { handlePage, PAGE_SIZE } from '../../src/modules/whatsapp/fanout';
import { startCampaign } from '../../src/modules/whatsapp/campaigns';
import { workspaceDb } from '../../src/platform/d1/shards';
import { rowsIn, shardOf } from '../support/db';
import { expectBoundedPlans, recordingEnv, roundTrips, type Ran } from '../support/plans';
import { messagesOf, outboxOf, template, waWorkspace } from './helpers';

/** A page's own round trips: the campaign, the audience page, the batch writing its rows. */
const PAGE_OWN = 3;
/** A chunk's: the claim read with the campaign, template and contacts; the messages recorded; the provider; the settle. */
const CHUNK = 4;

/** A running campaign to `count` new contacts whose queue messages are held: pages run only when the test hands them over. */
async function heldCampaign(count: number) {
  const ws = await waWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
  const t = await template(ws, { body: 'Hi {{1}}, your code is {{2}}' });
  for (let i = 0; i < count; i++) await ws.api('POST', '/v1/contacts', { phone: `+1415555${String(1000 + i)}`, first_name: `C${i}` });
  const c = (
    await ws.api('POST', '/v1/campaigns', { name: 'Held', template_id: t.id, variables: { '1': '{{contact.first_name|there}}', '2': 'CODE' } })
  ).body;
  const ran: Ran[] = [];
  const rec = recordingEnv(ran);
  expect(await startCampaign(rec.env, (await workspaceDb(rec.env, ws.id))!, ws.id, c.id)).not.toBeNull();
  return { ws, c, rec, ran, page: rec.sent.shift() };
}

describe('WhatsApp campaign fan-out cost', () => {
  it('a page takes its own three round trips plus four per chunk, whatever the chunk size, every statement bounded by its input; each recipient gets one message', async () => {
    for (const count of [3, SEND_CHUNK, SEND_CHUNK + 3]) {
      const { ws, c, rec, ran, page } = await heldCampaign(count);
      ran.length = 0;
      await handlePage(rec.env, page);
      expect(roundTrips(ran), `page of ${count}`).toBe(PAGE_OWN + CHUNK * Math.ceil(count / SEND_CHUNK));
      expect(rec.sent).toEqual([]);
      expect((await ws.api('GET', `/v1/campaigns/${c.id}`)).body).toMatchObject({
        status: 'completed',
        stats: { targeted: count, sent: count, failed: 0 },
      });
      expect((await outboxOf(ws)).length).toBe(count);
      const messages = await messagesOf(ws);
      expect(messages.length).toBe(count);
      expect(messages.every((m: any) => m.status === 'sent' && m.wamid && m.conversation_id && m.campaign_id === c.id)).toBe(true);
      // A redelivered page writes nothing, claims nothing and sends nothing.
      await handlePage(rec.env, page);
      expect((await outboxOf(ws)).length).toBe(count);
      expect(await expectBoundedPlans(await shardOf(ws.id), ran)).toBeGreaterThan(8);
    }
  });

  it('pages walk the audience in (creation time, id) order: every contact targeted and sent once, ties in creation time included; a cursor of id alone resumes too', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { body: 'Hi {{1}}' });
    const db = await shardOf(ws.id);
    const ids = Array.from({ length: 2 * PAGE_SIZE + 3 }, () => crypto.randomUUID());
    for (let i = 0; i < ids.length; i += 100) {
      await db.batch(
        ids.slice(i, i + 100).map((id, k) => {
          const at = new Date(Date.UTC(2025, 0, 1) + Math.floor((i + k) / 3) * 1000).toISOString();
          return db
            .prepare(
              `INSERT INTO contacts (id, workspace_id, phone, first_name, whatsapp_consent_state, block_state, custom_fields, created_at, updated_at) VALUES (?, ?, ?, 'Bulk', 'subscribed', 'none', '{}', ?, ?)`,
            )
            .bind(id, ws.id, `+1415777${String(i + k).padStart(4, '0')}`, at, at);
        }),
      );
    }
    const c = (await ws.api('POST', '/v1/campaigns', { name: 'Pages', template_id: t.id, variables: { '1': 'you' } })).body;
    const rec = recordingEnv([]);
    expect(await startCampaign(rec.env, (await workspaceDb(rec.env, ws.id))!, ws.id, c.id)).not.toBeNull();
    const targeted: number[] = [];
    let message = rec.sent.shift();
    while (message) {
      // The second page resumes from the contact id alone, as a page message enqueued before cursors carried the creation time does.
      await handlePage(rec.env, targeted.length === 1 ? { ...message, after_created_at: undefined } : message);
      targeted.push((await ws.api('GET', `/v1/campaigns/${c.id}`)).body.stats.targeted);
      const out = rec.sent.splice(0);
      expect(out.length).toBeLessThanOrEqual(1);
      message = out[0];
    }
    expect(targeted).toEqual([PAGE_SIZE, 2 * PAGE_SIZE, ids.length]);
    const rows = await rowsIn<{ contact_id: string }>(ws.id, 'SELECT contact_id FROM whatsapp_campaign_recipients WHERE campaign_id = ?', c.id);
    expect(new Set(rows.map((r) => r.contact_id))).toEqual(new Set(ids));
    expect((await ws.api('GET', `/v1/campaigns/${c.id}`)).body).toMatchObject({
      status: 'completed',
      stats: { targeted: ids.length, sent: ids.length, failed: 0 },
    });
  });
});
