import { describe, expect, it } from 'vitest';
import { emailWorkspace, outbox, type OutboxMessage } from '../email/support';
import { cronTick } from '../support/cron';
import { rowsIn } from '../support/db';
import type { TestWorkspace } from '../support/harness';
import { finished, readyCampaign, subscribedContact } from './support';

/** A campaign scheduled through the API (at https://api.test) and now due. */
async function dueCampaign(ws: TestWorkspace) {
  await subscribedContact(ws, 'ada@example.com', { first_name: 'Ada' });
  const c = await readyCampaign(ws, { content: { markdown: 'Read [the notes](https://example.com/notes).\n\n[[unsubscribe_url]]' } });
  expect((await ws.api('POST', `/v1/email-campaigns/${c.id}/schedule`, { scheduled_at: new Date(Date.now() + 60_000).toISOString() })).status).toBe(
    201,
  );
  await rowsIn(ws.id, `UPDATE email_campaigns SET scheduled_at = '2020-01-01T00:00:00.000Z' WHERE id = ?`, c.id);
  return c;
}

/** Every link the message carries: the List-Unsubscribe header and each URL of the HTML. */
const links = (m: OutboxMessage) => [m.headers['List-Unsubscribe'].slice(1, -1), ...[...m.html.matchAll(/(?:href|src)="([^"]+)"/g)].map((x) => x[1])];

describe('links in campaign mail sent by the cron sweep', () => {
  it('point at the origin of the request that scheduled the campaign (unsubscribe, open pixel, click links), never a made-up localhost', async () => {
    const { ws } = await emailWorkspace();
    const c = await dueCampaign(ws);
    await cronTick();
    expect((await finished(ws, c.id)).status).toBe('sent');
    const [mail] = await outbox(ws, 'ada@example.com');
    const urls = links(mail);
    expect(urls[0]).toMatch(/^https:\/\/api\.test\/u\//);
    expect(mail.html).toContain(urls[0]);
    expect(mail.text).toContain(urls[0]);
    expect(urls.some((u) => u.startsWith('https://api.test/t/o/'))).toBe(true);
    expect(urls.some((u) => u.startsWith('https://api.test/t/c/'))).toBe(true);
    for (const u of urls) expect(u).toMatch(/^https:\/\/api\.test\//);
    expect(mail.html + mail.text).not.toContain('localhost');
  });

  it('a campaign with no kept origin takes PUBLIC_BASE_URL; with neither it waits, scheduled, instead of mailing links to nowhere', async () => {
    const { ws } = await emailWorkspace();
    const c = await dueCampaign(ws);
    await rowsIn(ws.id, 'UPDATE email_campaigns SET link_origin = NULL WHERE id = ?', c.id);
    await cronTick();
    expect((await ws.api('GET', `/v1/email-campaigns/${c.id}`)).body.status).toBe('scheduled');
    expect(await outbox(ws)).toEqual([]);
    await cronTick({ PUBLIC_BASE_URL: 'https://links.example.com/' });
    expect((await finished(ws, c.id)).status).toBe('sent');
    const [mail] = await outbox(ws, 'ada@example.com');
    for (const u of links(mail)) expect(u).toMatch(/^https:\/\/links\.example\.com\/(u|t)\//);
  });
});
