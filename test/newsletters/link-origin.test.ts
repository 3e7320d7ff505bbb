import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { deliverNewsletters, handleDeliveries } from '../../src/modules/newsletters/delivery';
import { shardDb } from '../../src/platform/d1/shards';
import { emailWorkspace, outbox, type OutboxMessage } from '../email/support';
import { cronTick } from '../support/cron';
import { rowsIn } from '../support/db';
import { eventually, type TestWorkspace } from '../support/harness';
import { newsletter, readyIssue, subscribe } from './support';

async function subscriber(ws: TestWorkspace, newsletterId: string, email: string) {
  const c = await ws.api('POST', '/v1/contacts', { email, first_name: 'Ada' });
  await ws.api('PUT', `/v1/contacts/${c.body.id}/consent/email`, { state: 'subscribed' });
  await subscribe(ws, newsletterId, c.body.id);
}

/** The links this service puts in a message: the List-Unsubscribe URL and every URL of the HTML but the content's own. */
const links = (m: OutboxMessage) => [
  m.headers['List-Unsubscribe'].slice(1, -1),
  ...[...m.html.matchAll(/(?:href|src)="([^"]+)"/g)].map((x) => x[1]).filter((u) => u !== NOTES),
];

const NOTES = 'https://example.com/notes';
const CONTENT = { markdown: `Read [the notes](${NOTES}).\n\nUnsubscribe: [[unsubscribe_url]]` };

describe('links in newsletter mail sent by the delivery sweep', () => {
  it('point at the origin of the request that scheduled the issue (List-Unsubscribe and [[unsubscribe_url]]), through the publish and delivery sweeps and the send queue', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws);
    await subscriber(ws, n.id, 'ada@example.com');
    const issue = await readyIssue(ws, n.id, 'One', { content: CONTENT });
    expect(
      (await ws.api('POST', `/v1/newsletter-issues/${issue.id}/schedule`, { scheduled_at: new Date(Date.now() + 60_000).toISOString() })).status,
    ).toBe(200);
    await rowsIn(ws.id, `UPDATE newsletter_issues SET scheduled_at = '2020-01-01T00:00:00.000Z' WHERE id = ?`, issue.id);
    // The sweeps of one tick run side by side: the tick that publishes may come before the one that delivers.
    const [mail] = await eventually(
      async () => {
        await cronTick();
        return outbox(ws, 'ada@example.com');
      },
      (m) => m.length === 1,
      15_000,
    );
    const urls = links(mail);
    expect(urls[0]).toMatch(/^https:\/\/api\.test\/u\//);
    expect(mail.html).toContain(urls[0]);
    expect(mail.text).toContain(urls[0]);
    for (const u of urls) expect(u).toMatch(/^https:\/\/api\.test\//);
    expect(mail.html + mail.text).not.toContain('localhost');
  });

  it('an issue with no kept origin takes PUBLIC_BASE_URL; with neither the delivery fails as no_link_origin, sending nothing', async () => {
    const { ws } = await emailWorkspace();
    const n = await newsletter(ws);
    await subscriber(ws, n.id, 'ada@example.com');
    await subscriber(ws, n.id, 'bob@example.com');
    const issue = await readyIssue(ws, n.id, 'One', { content: CONTENT });
    expect((await ws.api('POST', `/v1/newsletter-issues/${issue.id}/publish`)).status).toBe(200);
    await rowsIn(ws.id, 'UPDATE newsletter_issues SET link_origin = NULL WHERE id = ?', issue.id);
    const [{ shard }] = (await (env as any).DB.prepare('SELECT shard FROM workspaces WHERE id = ?').bind(ws.id).all()).results;
    // The sweep's queue messages are kept here and handed to the consumer with the environment under test.
    const queued: { body: any }[] = [];
    const sweepEnv = { ...(env as any), SEND_QUEUE: { sendBatch: async (messages: { body: unknown }[]) => void queued.push(...messages) } };
    await deliverNewsletters(sweepEnv, shardDb(env as any, shard));
    expect(queued).toHaveLength(1);
    const [ada, bob] = [...queued[0].body.delivery_ids].sort();
    await handleDeliveries({ ...(env as any), PUBLIC_BASE_URL: 'https://links.example.com' }, { ...queued[0].body, delivery_ids: [ada] });
    await handleDeliveries(env as any, { ...queued[0].body, delivery_ids: [bob] });
    const mail = await outbox(ws);
    expect(mail).toHaveLength(1);
    expect(links(mail[0])[0]).toMatch(/^https:\/\/links\.example\.com\/u\//);
    expect(mail[0].text).toContain(links(mail[0])[0]);
    const rows = await rowsIn<{ id: string; status: string; reason: string | null }>(
      ws.id,
      'SELECT id, status, reason FROM newsletter_deliveries WHERE workspace_id = ? ORDER BY id',
      ws.id,
    );
    expect(rows).toEqual([
      { id: ada, status: 'sent', reason: null },
      { id: bob, status: 'failed', reason: 'no_link_origin' },
    ]);
  });
});
