import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { manageUrl } from '../../src/modules/bookings/confirmation';
import { shardDb } from '../../src/platform/d1/shards';
import { controlD1, rowsIn } from '../support/db';
import { call, freshIp, makeWorkspace, type TestWorkspace } from '../support/harness';
import { publicPost, unreachableLimiter, type PageAnswer } from '../support/public-posts';
import { inOneRateWindow } from '../support/rate-windows';
import { book, futureHour, invitee, setupType } from '../bookings/helpers';
import { mint } from '../payment-requests/helpers';
import { emailWorkspace } from '../email/support';
import { newsletter, subscribe } from '../newsletters/support';

/** One public POST route family: where a junk post goes, and a real target whose state shows whether a post did its work. */
type Family = {
  name: string;
  /** The var that sets the family's budget per source IP; the tests set it to 10. */
  limitVar: string;
  junk: (ws: TestWorkspace) => string;
  target: () => Promise<{ ws: TestWorkspace; path: string; fields?: Record<string, string>; untouched: () => Promise<boolean> }>;
};

const paymentTarget = async () => {
  const ws = await makeWorkspace();
  const r = await mint(ws);
  return {
    ws,
    path: new URL(r.pay_url).pathname,
    untouched: async () => (await ws.api('GET', `/v1/payment-requests/${r.id}`)).body.status === 'pending',
  };
};

const shardNameOf = async (wsId: string) =>
  (await controlD1().prepare('SELECT shard FROM workspaces WHERE id = ?').bind(wsId).first<{ shard: string }>())!.shard;

const manageTarget = async () => {
  const { ws, mt } = await setupType();
  const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee('limits') });
  const [row] = await rowsIn<{ id: string }>(ws.id, 'SELECT id FROM bookings WHERE workspace_id = ?', ws.id);
  const url = await manageUrl(shardDb(env as unknown as Bindings, await shardNameOf(ws.id)), ws.id, 'https://api.test', row.id);
  return {
    ws,
    path: `${new URL(url).pathname}/cancel`,
    fields: { confirm: 'yes' },
    untouched: async () => (await ws.api('GET', `/v1/bookings/${b.body.id}`)).body.status === 'confirmed',
  };
};

const unsubscribeTarget = async () => {
  const { ws } = await emailWorkspace();
  const n = await newsletter(ws);
  const c = await ws.api('POST', '/v1/contacts', { email: `limits-${crypto.randomUUID().slice(0, 8)}@example.com` });
  await subscribe(ws, n.id, c.body.id);
  const [sub] = await rowsIn<{ unsubscribe_token: string }>(
    ws.id,
    'SELECT unsubscribe_token FROM newsletter_subscriptions WHERE contact_id = ?',
    c.body.id,
  );
  return {
    ws,
    path: `/u/${sub.unsubscribe_token}`,
    untouched: async () => (await ws.api('GET', `/v1/newsletters/${n.id}`)).body.active_subscriber_count === 1,
  };
};

const FAMILIES: Family[] = [
  {
    name: 'POST /pay/{token}',
    limitVar: 'RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE',
    junk: (ws) => `/pay/${ws.id}.${'0'.repeat(32)}`,
    target: paymentTarget,
  },
  {
    name: 'POST /book/{ws}/manage/{token}/cancel',
    limitVar: 'RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE',
    junk: (ws) => `/book/${ws.id}/manage/${crypto.randomUUID()}.${'A'.repeat(32)}/cancel`,
    target: manageTarget,
  },
  {
    name: 'POST /u/{token}',
    limitVar: 'RATE_LIMIT_UNSUBSCRIBE_PER_IP_PER_MINUTE',
    junk: (ws) => `/u/${ws.id}.${'0'.repeat(32)}`,
    target: unsubscribeTarget,
  },
];

const expectRefusedPage = (res: PageAnswer) => {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toContain('text/html');
  expect(res.body).toContain('Too many requests');
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
};

describe.each(FAMILIES)('$name: per-IP limit', (family) => {
  it('a budget of 10 posts a minute from one IP: the 11th answers a 429 page and does nothing; other IPs and families are unaffected', async () => {
    await inOneRateWindow(async () => {
      const { ws, path, fields, untouched } = await family.target();
      const ip = freshIp();
      const vars = { [family.limitVar]: '10' };
      for (let i = 0; i < 10; i++) expect((await publicPost(family.junk(ws), { ip, vars })).status).toBe(404);
      expectRefusedPage(await publicPost(path, { ip, vars, fields }));
      expect(await untouched()).toBe(true);
      // Each family has its own budget: the same IP still reaches the others.
      for (const other of FAMILIES.filter((f) => f !== family))
        expect((await publicPost(other.junk(ws), { ip, vars: { [other.limitVar]: '10' } })).status).toBe(404);
      // Another IP does the work.
      const done = await publicPost(path, { ip: freshIp(), vars, fields });
      expect(done.status).toBeLessThan(400);
      expect(await untouched()).toBe(false);
    });
  });

  it('answers JSON to JSON and fails open while the limiter cannot be reached', async () => {
    await inOneRateWindow(async () => {
      const { ws, path, fields, untouched } = await family.target();
      const ip = freshIp();
      const vars = { [family.limitVar]: '1' };
      expect((await publicPost(family.junk(ws), { ip, json: {}, vars })).status).toBe(404);
      const refused = await publicPost(family.junk(ws), { ip, json: {}, vars });
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
      expect(refused.json.message).toMatch(/^Rate limit exceeded: 1 requests per minute per source IP\. Retry after \d+ seconds\.$/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

      const unlimited = await publicPost(path, { ip, fields, vars: { ...vars, RATE_LIMITER: unreachableLimiter } });
      expect(unlimited.status).toBeLessThan(400);
      expect(await untouched()).toBe(false);
    });
  });
});

describe('default budgets', () => {
  it('10 posts a minute per IP for paying and cancelling; 600 for unsubscribing, which mailbox providers post from shared addresses', async () => {
    await inOneRateWindow(async () => {
      const { ws, path, untouched } = await unsubscribeTarget();
      const ip = freshIp();
      for (let i = 0; i < 30; i++) expect((await publicPost(`/u/${ws.id}.${'0'.repeat(32)}`, { ip })).status).toBe(404);
      expect((await publicPost(path, { ip })).status).toBeLessThan(400);
      expect(await untouched()).toBe(false);
      const pay = await paymentTarget();
      for (let i = 0; i < 10; i++) expect((await publicPost(`/pay/${pay.ws.id}.${'0'.repeat(32)}`, { ip })).status).toBe(404);
      expect((await publicPost(pay.path, { ip })).status).toBe(429);
    });
  });
});

describe('public GET pages', () => {
  it('are not counted against the public POST budgets', async () => {
    const ip = freshIp();
    const { ws, mt } = await setupType();
    for (let i = 0; i < 12; i++) expect((await call('GET', `/book/${ws.id}/${mt.slug}?tz=UTC`, { ip })).status).toBe(200);
  });
});
