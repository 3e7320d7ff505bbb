import { runInDurableObject } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LEASE_MAX, PERSIST_AFTER_MS, type RateLimiter } from '../../src/durable-objects/rate-limiter';
import { spendLeasedToken } from '../../src/platform/rate-limit';
import { adminOk, call, freshIp, makeWorkspace } from '../support/harness';
import { rowsOnShards } from '../support/db';

const limiter = (subject: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject));
const storedWindow = (subject: string) =>
  runInDurableObject(limiter(subject), (_: RateLimiter, state: DurableObjectState) => state.storage.kv.get<{ start: number; count: number }>('window'));

const minute = () => Math.floor(Date.now() / 60_000);

/**
 * Windows are wall-clock minutes: a run within one minute must admit exactly `limit` of
 * `sent`; one that straddles a boundary starts a second window part-way, so anywhere
 * from `limit` to `sent` (never fewer than the limit, never more than asked).
 */
function expectAdmitted(ok: number, limit: number, sent: number, startedIn: number) {
  if (minute() === startedIn) expect(ok).toBe(limit);
  else {
    expect(ok).toBeGreaterThanOrEqual(limit);
    expect(ok).toBeLessThanOrEqual(Math.min(sent, 2 * limit));
  }
}

describe('rate limits (Part 1 Limits)', () => {
  it('counts exactly per API key under concurrency and answers 429 with Retry-After', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 10 } });
    const started = minute();
    const results = await Promise.all(Array.from({ length: 25 }, () => ws.api('GET', '/v1/pipelines')));
    const ok = results.filter((r) => r.status === 200).length;
    const limited = results.filter((r) => r.status === 429);
    expectAdmitted(ok, 10, 25, started);
    expect(limited.length).toBe(25 - ok);
    const retryAfter = Number(limited[0].headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited[0].body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
  });

  it('the default per-key limit holds exactly: 150 parallel requests on one key from many IPs, 100 succeed', async () => {
    const ws = await makeWorkspace();
    const started = minute();
    const results = await Promise.all(Array.from({ length: 150 }, () => call('GET', '/v1/pipelines', { key: ws.key, ip: freshIp() })));
    const ok = results.filter((r) => r.status === 200).length;
    expectAdmitted(ok, 100, 150, started);
    expect(results.filter((r) => r.status === 429)).toHaveLength(150 - ok);
  });

  it('counts in memory and writes the window to storage within a second; a fresh instance resumes from it', async () => {
    const subject = `test:${crypto.randomUUID()}`;
    for (let i = 0; i < 5; i++) await limiter(subject).hit(60_000);
    await new Promise((r) => setTimeout(r, PERSIST_AFTER_MS + 300));
    const stored = await storedWindow(subject);
    expect(stored?.count).toBe(5);

    // An instance that starts with a stored window (as after an eviction) continues its count.
    const resumed = `test:${crypto.randomUUID()}`;
    await runInDurableObject(limiter(resumed), (_: RateLimiter, state: DurableObjectState) => state.storage.kv.put('window', { ...stored!, count: 41 }));
    const next = await limiter(resumed).hit(60_000);
    // A minute boundary in between starts a new window.
    expect(next.count).toBe(next.resetAt - 60_000 === stored!.start ? 42 : 1);
  });

  it('tells the key its budget on every answer', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 50 } });
    const first = await ws.api('GET', '/v1/pipelines');
    const second = await ws.api('GET', '/v1/pipelines');
    expect(first.headers.get('ratelimit-limit')).toBe('50');
    const [a, b] = [first, second].map((r) => Number(r.headers.get('ratelimit-remaining')));
    // A minute boundary between the two resets the window; otherwise the budget shrank by one.
    expect(b === a - 1 || b === 49).toBe(true);
    expect(Number(second.headers.get('ratelimit-reset'))).toBeLessThanOrEqual(60);
  });

  it('tells the key its budget on a 429 too', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 2 } });
    const answers = await Promise.all(Array.from({ length: 6 }, () => ws.api('GET', '/v1/pipelines')));
    const limited = answers.find((r) => r.status === 429)!;
    expect(limited.headers.get('ratelimit-limit')).toBe('2');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    const reset = Number(limited.headers.get('ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(0);
    expect(reset).toBeLessThanOrEqual(60);
    expect(limited.headers.get('retry-after')).not.toBeNull();
  });

  it('shares the per-key bucket across source IPs and keeps other keys unaffected', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 3 } });
    const other = await makeWorkspace({ rate_limits: { per_key_per_minute: 3 } });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await call('GET', '/v1/pipelines', { key: ws.key, ip: freshIp() })).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    expect((await other.api('GET', '/v1/pipelines')).status).toBe(200);
  });

  it('gives POST /v1/emails its own per-key bucket', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 50, emails_per_minute: 2 } });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await ws.api('POST', '/v1/emails', {})).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(1);
    expect(statuses.slice(0, 2)).not.toContain(429);
    // The email bucket does not consume the general one.
    expect((await ws.api('GET', '/v1/pipelines')).status).toBe(200);
  });

  it('limits a source IP across all API keys (default 300 per minute)', async () => {
    const ip = freshIp();
    const keys = await Promise.all([0, 1, 2, 3].map(() => makeWorkspace({ rate_limits: { per_key_per_minute: 1000 } })));
    const statuses: number[] = [];
    const started = minute();
    for (let round = 0; round < 8; round++) {
      const batch = await Promise.all(Array.from({ length: 40 }, (_, i) => call('GET', '/v1/pipelines', { key: keys[i % 4].key, ip })));
      statuses.push(...batch.map((r) => r.status));
    }
    const ok = statuses.filter((s) => s === 200).length;
    expectAdmitted(ok, 300, 320, started);
    expect(statuses.filter((s) => s === 429).length).toBe(320 - ok);
  });

  it('leases a source IP\'s budget in small parts that never add up to more than the limit', async () => {
    const subject = `test:${crypto.randomUUID()}`;
    const grants: number[] = [];
    for (let i = 0; i < 40; i++) grants.push((await limiter(subject).lease(60_000, 25)).granted);
    const spent = grants.reduce((a, b) => a + b, 0);
    // A minute boundary in between starts a new window with a fresh 25.
    expect([25, 50]).toContain(spent);
    expect(Math.max(...grants)).toBeLessThanOrEqual(LEASE_MAX);
    // Near the end of the budget a lease shrinks to one token, so little sits unspent in any isolate.
    expect(grants.filter((g) => g > 0).slice(-3)).toEqual([1, 1, 1]);
    expect(grants.at(-1)).toBe(0);
  });

  it("keeps an IP's lease call alive past the request that made it (others in the isolate may be waiting on it)", async () => {
    const kept: Promise<unknown>[] = [];
    const subject = `test:${crypto.randomUUID()}`;
    const waiting = Array.from({ length: 3 }, () => spendLeasedToken(env, subject, 100, (work) => kept.push(work)));
    expect(kept).toHaveLength(1);
    expect(await Promise.all(waiting)).toEqual([null, null, null]);
    await Promise.all(kept);
    // The lease covered all three: no second call.
    expect(kept).toHaveLength(1);
  });

  it('spends leased tokens without asking the IP\'s limiter on every request', async () => {
    const ws = await makeWorkspace();
    const ip = freshIp();
    for (let i = 0; i < 15; i++) expect((await call('GET', '/v1/pipelines', { key: ws.key, ip })).status).toBe(200);
    await new Promise((r) => setTimeout(r, PERSIST_AFTER_MS + 300));
    // Two leases of LEASE_MAX cover 15 requests; a counter per request would hold 15.
    const stored = await storedWindow(`ip:${ip}`);
    expect(stored!.count % LEASE_MAX).toBe(0);
  });

  it('answers a refused read with its 429 only, before any other error, and lets it change nothing', async () => {
    // Reads run while the key's limiter answers; the verdict still decides the answer.
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 2 }, features: ['orders'] }, { pipeline: false });
    const started = minute();
    const filter = (plan: string) => `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ $where: { field: 'custom_fields.plan', op: 'neq', value: plan } }))}`;
    const first = await ws.api('GET', filter('a'));
    const gated = await ws.api('GET', '/v1/deals');
    const refused = await Promise.all([ws.api('GET', filter('b')), ws.api('GET', '/v1/deals'), ws.api('GET', '/v1/contacts?limit=-1')]);
    await new Promise((r) => setTimeout(r, 200));
    if (minute() !== started) return; // a new window admitted some of them: nothing to check
    expect(first.status).toBe(200);
    expect(gated.status).toBe(403);
    for (const res of refused) {
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
      expect(res.headers.get('ratelimit-remaining')).toBe('0');
      expect(res.headers.get('bookmark')).toBeNull();
    }
    // The admitted list stored its answer after the response; the refused one stored nothing.
    expect(await rowsOnShards('SELECT key FROM contact_list_cache WHERE workspace_id = ?', ws.id)).toHaveLength(1);
  });

  it('applies per-workspace overrides set through the operator API', async () => {
    const ws = await makeWorkspace();
    await adminOk('PATCH', `/workspaces/${ws.id}`, { rate_limits: { per_key_per_minute: 1 } });
    const first = await ws.api('GET', '/v1/pipelines');
    const second = await ws.api('GET', '/v1/pipelines');
    expect([first.status, second.status]).toContain(429);
  });
});
