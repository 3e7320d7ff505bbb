import { describe, expect, it } from 'vitest';
import { SEND_CHUNK } from '../../src/platform/fanout/pages';
import { handlePage, PAGE_SIZE } from '../../src/modules/email-campaigns/fanout';
import type { PageMessage } from '../../src/modules/email-campaigns/launch';
import { emailWorkspace } from '../email/support';
import { rowsIn, shardOf } from '../support/db';
import { expectBoundedPlans, roundTrips, type Ran } from '../support/plans';
import { bulkSubscribers, heldCampaign, mailCount, subscribedContact } from './support';

/** A page's own round trips: the campaign, the eligible page, the batch writing its rows. */
const PAGE_OWN = 3;
/** A chunk's: the claim with the campaign, the eligibility re-check, the bulk send's read and reserve, the provider, the settle. */
const CHUNK = 6;

describe('email campaign fan-out cost', () => {
  it('every statement of a page and of its chunks is bounded by its input: lists drive probes by key, nothing walks the campaign or the workspace', async () => {
    const { ws } = await emailWorkspace();
    for (const name of ['ada', 'bob', 'cy']) await subscribedContact(ws, `${name}@example.com`, { first_name: name });
    const ran: Ran[] = [];
    const { c, rec } = await heldCampaign(ws, ran);
    await handlePage(rec.env, rec.sent.shift() as PageMessage);
    // The only page was also the last: it sent its recipients and enqueued nothing.
    expect(rec.sent).toEqual([]);
    const done = await ws.api('GET', `/v1/email-campaigns/${c.id}`);
    expect(done.body).toMatchObject({ status: 'sent', counters: { targeted: 3, sent: 3, failed: 0 } });
    // The sender candidates are the few verified profiles the operator keeps for the workspace, sorted by preference.
    expect(await expectBoundedPlans(await shardOf(ws.id), ran, /from "sender_profiles"/)).toBeGreaterThan(10);
  });

  it('a page takes its own three round trips plus six per chunk, whatever the chunk size, and sends each recipient one email, once however often it is delivered', async () => {
    for (const count of [3, SEND_CHUNK, SEND_CHUNK + 3]) {
      const { ws } = await emailWorkspace();
      await bulkSubscribers(ws, count);
      const ran: Ran[] = [];
      const { c, rec } = await heldCampaign(ws, ran);
      ran.length = 0;
      const page = rec.sent.shift() as PageMessage;
      await handlePage(rec.env, page);
      expect(roundTrips(ran), `page of ${count}`).toBe(PAGE_OWN + CHUNK * Math.ceil(count / SEND_CHUNK));
      expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body).toMatchObject({
        status: 'sent',
        counters: { targeted: count, sent: count, failed: 0 },
      });
      expect(await mailCount(ws)).toEqual({ mails: count, addresses: count });
      // A redelivered page of a sending campaign writes nothing new, claims nothing and sends nothing.
      await rowsIn(ws.id, `UPDATE email_campaigns SET status = 'sending' WHERE id = ? RETURNING 1`, c.id);
      await handlePage(rec.env, page);
      expect(await mailCount(ws)).toEqual({ mails: count, addresses: count });
      expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body.counters).toMatchObject({ targeted: count, sent: count, failed: 0 });
    }
  });

  it('pages walk the audience in (creation time, id) order: every contact targeted and sent once, ties in creation time included; a cursor of id alone resumes too', async () => {
    const { ws } = await emailWorkspace();
    const ids = await bulkSubscribers(ws, 2 * PAGE_SIZE + 7);
    const { c, rec } = await heldCampaign(ws);
    const targeted: number[] = [];
    let message = rec.sent.shift() as PageMessage | undefined;
    while (message) {
      // The second page resumes from the contact id alone, as a page message enqueued before cursors carried the creation time does.
      await handlePage(rec.env, targeted.length === 1 ? { ...message, after_created_at: undefined } : message);
      targeted.push((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body.counters.targeted);
      const out = rec.sent.splice(0) as PageMessage[];
      expect(out.length).toBeLessThanOrEqual(1);
      message = out[0];
    }
    expect(targeted).toEqual([PAGE_SIZE, 2 * PAGE_SIZE, ids.length]);
    const rows = await rowsIn<{ contact_id: string }>(ws.id, 'SELECT contact_id FROM email_campaign_recipients WHERE campaign_id = ?', c.id);
    expect(new Set(rows.map((r) => r.contact_id))).toEqual(new Set(ids));
    expect(await mailCount(ws)).toEqual({ mails: ids.length, addresses: ids.length });
    expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body).toMatchObject({
      status: 'sent',
      counters: { targeted: ids.length, sent: ids.length },
    });
  });
});
