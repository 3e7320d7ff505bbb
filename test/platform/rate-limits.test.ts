import { createExecutionContext, evictDurableObject, runInDurableObject, SELF } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { LEASE_GRACE_MS, LEASE_MAX, type RateLimiter, type Settlement } from '../../src/durable-objects/rate-limiter';
import type { Bindings } from '../../src/env';
import { sha256Hex } from '../../src/platform/ids';
import { leaseSpendMs, TokenPools, type Clock } from '../../src/platform/rate-limit';
import { adminOk, call, eventually, freshIp, makeWorkspace, type TestWorkspace } from '../support/harness';
import { buildApp } from '../../src/app';
import { rowsOnShards } from '../support/db';
import { inOneRateWindow } from '../support/rate-windows';

const limiter = (subject: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject));
const storedWindow = (subject: string) =>
  runInDurableObject(limiter(subject), (_: RateLimiter, state: DurableObjectState) =>
    state.storage.kv.get<{ start: number; count: number }>('window'),
  );

/** The window the limiter holds in memory (storage gets it within a second). */
const windowOf = (subject: string) =>
  runInDurableObject(limiter(subject), (instance: RateLimiter) => (instance as unknown as { window: { start: number; count: number } }).window);

/**
 * The limiter binding with every `lease` and `settle` call recorded, with what it answered.
 * `settlesHeldUntil`: settle calls reach the limiter only then, as a slow one would.
 */
function countingLimiters(settlesHeldUntil?: Promise<void>) {
  const calls: { method: string; args: unknown[]; answered: Promise<unknown> }[] = [];
  const RATE_LIMITER = {
    idFromName: (name: string) => env.RATE_LIMITER.idFromName(name),
    get: (id: DurableObjectId) => {
      const stub = env.RATE_LIMITER.get(id);
      const recorded =
        (method: 'lease' | 'settle') =>
        (...args: unknown[]) => {
          const send = () => (stub[method] as (...a: unknown[]) => unknown)(...args);
          const answered = method === 'settle' && settlesHeldUntil ? settlesHeldUntil.then(send) : Promise.resolve(send());
          calls.push({ method, args, answered });
          return answered;
        };
      return { lease: recorded('lease'), settle: recorded('settle') };
    },
  };
  return { env: { ...quick, RATE_LIMITER } as unknown as Bindings, calls };
}

/** The lease spending time these tests run with (2 s by default), and the bindings that set it. */
const SPEND_MS = 100;
const quick = { ...env, RATE_LIMIT_LEASE_MS: String(SPEND_MS) } as unknown as Bindings;

const app = buildApp();

/**
 * A request to the app whose leases last 10 s (the suite's are 0.1 s), so what a test
 * reads of a limiter cannot depend on whether a give-back already ran.
 */
async function unhurried(ws: TestWorkspace, method: string, path: string) {
  const request = new Request(`https://api.test${path}`, { method, headers: { authorization: `Bearer ${ws.key}`, 'cf-connecting-ip': ws.ip } });
  return app.fetch(request, { ...env, RATE_LIMIT_LEASE_MS: '10000' }, createExecutionContext());
}

const minute = () => Math.floor(Date.now() / 60_000);

/**
 * A clock that moves only when the test moves it: whether a lease's spending time is over
 * then depends on the scenario, never on how busy the machine running it is.
 */
function manualClock(): Clock & { advance(ms: number): void } {
  let now = Date.now();
  const sleepers: { until: number; wake: () => void }[] = [];
  return {
    now: () => now,
    sleep: (ms) => new Promise<void>((wake) => sleepers.push({ until: now + ms, wake })),
    advance(ms) {
      now += ms;
      for (const sleeper of sleepers.filter((s) => s.until <= now)) {
        sleepers.splice(sleepers.indexOf(sleeper), 1);
        sleeper.wake();
      }
    },
  };
}

/** Lets every lease call made so far answer, and what its answer sets off run. */
async function answered(calls: { answered: Promise<unknown> }[]) {
  await Promise.all(calls.map((c) => c.answered));
  await new Promise((r) => setTimeout(r, 0));
}

/** Waits for work handed to `waitUntil`, including work that work hands on. */
async function drain(kept: Promise<unknown>[]) {
  for (let seen = 0; seen < kept.length; ) {
    seen = kept.length;
    await Promise.all(kept);
  }
}

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

describe('rate limits', () => {
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

  it('writes the window before answering: an instance evicted right after resumes from every count and every token handed out', async () => {
    await inOneRateWindow(async () => {
      const counted = `test:${crypto.randomUUID()}`;
      for (let i = 0; i < 5; i++) await limiter(counted).hit(60_000);
      expect((await storedWindow(counted))?.count).toBe(5);
      await evictDurableObject(limiter(counted));
      expect((await limiter(counted).hit(60_000)).count).toBe(6);

      // A fully leased window (as after a burst on many isolates), then a restart: nothing more is handed out.
      const leased = `test:${crypto.randomUUID()}`;
      let handed = 0;
      while (handed < 100) handed += (await limiter(leased).lease(60_000, 100, 50)).granted;
      await evictDurableObject(limiter(leased));
      const after = await limiter(leased).lease(60_000, 100, 50);
      expect([after.granted, after.count]).toEqual([0, 100]);
    });
  });

  it('an unreachable limiter admits a bounded number per isolate and minute (a lease at the window start: 10 at 100 a minute, at most 50), then refuses until the minute ends', async () => {
    const clock = manualClock();
    const pools = new TokenPools(clock);
    const unreachable = () => {
      throw new Error('limiter unreachable');
    };
    const broken = { ...quick, RATE_LIMITER: { idFromName: unreachable, get: unreachable } } as unknown as Bindings;
    const spend = async (subject: string, limit: number, n: number) => {
      const answers = [];
      for (let i = 0; i < n; i++) answers.push(await pools.spend(broken, subject, limit, () => {}));
      return answers;
    };
    const small = await spend('key:small', 100, 15);
    expect(small.filter((a) => a.admitted)).toHaveLength(10);
    expect(small.slice(10).every((a) => !a.admitted && a.resetAt > clock.now())).toBe(true);
    expect((await spend('key:large', 1_000_000, 60)).filter((a) => a.admitted)).toHaveLength(LEASE_MAX);
    clock.advance(60_000);
    expect((await spend('key:small', 100, 1))[0].admitted).toBe(true);

    // Through the app: a key's requests while its limiter is down, 10 answered, then 429.
    const ws = await makeWorkspace();
    const request = () =>
      app.fetch(
        new Request('https://api.test/v1/pipelines', { headers: { authorization: `Bearer ${ws.key}`, 'cf-connecting-ip': freshIp() } }),
        { ...env, RATE_LIMITER: { idFromName: unreachable, get: unreachable } },
        createExecutionContext(),
      );
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await request()).status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(10);
    expect(statuses.slice(-2)).toEqual([429, 429]);
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

  it("leases a subject's budget in small parts that never add up to more than the limit", async () => {
    await inOneRateWindow(async () => {
      const subject = `test:${crypto.randomUUID()}`;
      const grants: number[] = [];
      let settled: Settlement | undefined;
      for (let i = 0; i < 40; i++) {
        // Each lease is spent whole and carried back by the next call, as an isolate does.
        const lease = await limiter(subject).lease(60_000, 25, SPEND_MS, settled);
        grants.push(lease.granted);
        settled = lease.id ? { id: lease.id, unspent: 0 } : undefined;
      }
      expect(grants.reduce((a, b) => a + b, 0)).toBe(25);
      expect(Math.max(...grants)).toBeLessThanOrEqual(LEASE_MAX);
      // Near the end of the budget a lease shrinks to one token, so little sits unspent in any isolate.
      expect(grants.filter((g) => g > 0).slice(-3)).toEqual([1, 1, 1]);
      expect(grants.at(-1)).toBe(0);
    });
  });

  it('leases a tenth of what is left, at most 50: 10 for a key at the default 100 a minute, 50 under a high limit', async () => {
    await inOneRateWindow(async () => {
      const atDefault = await limiter(`test:${crypto.randomUUID()}`).lease(60_000, 100, SPEND_MS);
      const high = await limiter(`test:${crypto.randomUUID()}`).lease(60_000, 1_000_000, SPEND_MS);
      // As the README states the lease sizes.
      expect([atDefault.granted, high.granted]).toEqual([10, 50]);
    });
  });

  it('with nothing left to hand out, a lease waits for the open ones and grants what comes back', async () => {
    await inOneRateWindow(async () => {
      const subject = `test:${crypto.randomUUID()}`;
      const open = [];
      // Open for a minute: the waiting lease can only be answered by the settlement below.
      for (let i = 0; i < 3; i++) open.push(await limiter(subject).lease(60_000, 3, 60_000));
      expect(open.map((l) => l.granted)).toEqual([1, 1, 1]);
      let answeredYet = false;
      const waiting = limiter(subject)
        .lease(60_000, 3, 60_000)
        .then((l) => {
          answeredYet = true;
          return l;
        });
      await new Promise((r) => setTimeout(r, 150));
      expect(answeredYet).toBe(false);
      // The token another isolate did not spend comes back, and the waiting lease gets it.
      await limiter(subject).settle(open[1].id!, 1);
      const granted = await waiting;
      expect(granted).toMatchObject({ granted: 1, count: 3 });
      // Settling twice gives nothing back twice.
      await limiter(subject).settle(open[1].id!, 1);
      expect((await windowOf(subject)).count).toBe(3);
    });
  });

  it('counts a lease nobody settles as spent once its grace is over, and still credits a late settlement', async () => {
    await inOneRateWindow(async () => {
      const subject = `test:${crypto.randomUUID()}`;
      const lost = await limiter(subject).lease(60_000, 1, SPEND_MS);
      expect(lost.granted).toBe(1);
      const asked = Date.now();
      const refused = await limiter(subject).lease(60_000, 1, SPEND_MS);
      expect(refused).toMatchObject({ id: null, granted: 0, count: 1 });
      expect(Date.now() - asked).toBeGreaterThanOrEqual(SPEND_MS + LEASE_GRACE_MS - 50);
      // Past its grace it is no longer waited for.
      const again = Date.now();
      expect((await limiter(subject).lease(60_000, 1, SPEND_MS)).granted).toBe(0);
      expect(Date.now() - again).toBeLessThan(LEASE_GRACE_MS);
      await limiter(subject).settle(lost.id!, 1);
      expect((await limiter(subject).lease(60_000, 1, SPEND_MS)).granted).toBe(1);
    });
  });

  it('settles every lease once: spent ones ride the next lease call, the rest go back when their time is over', async () => {
    await inOneRateWindow(async () => {
      const { env: counted, calls } = countingLimiters();
      const kept: Promise<unknown>[] = [];
      const subject = `test:${crypto.randomUUID()}`;
      const clock = manualClock();
      const pools = new TokenPools(clock);
      // A lease and a half: the third lease is asked for when the second is half spent.
      const count = LEASE_MAX + LEASE_MAX / 2;
      const spends = await Promise.all(Array.from({ length: count }, () => pools.spend(counted, subject, 1_000_000, (work) => kept.push(work))));
      expect(spends.map((s) => s!.count)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      const leases = calls.filter((c) => c.method === 'lease');
      // The first lease; the second, taken ahead when the first was half spent; the third, taken
      // ahead when the second was, carrying the first (spent whole).
      expect(leases).toHaveLength(3);
      expect(leases[0].args[3]).toBeUndefined();
      expect(leases[1].args[3]).toBeUndefined();
      expect(leases[2].args[3]).toEqual({ id: expect.any(String), unspent: 0 });
      await answered(calls);
      expect(calls.filter((c) => c.method === 'settle')).toEqual([]);
      clock.advance(SPEND_MS);
      await drain(kept);
      // When their spending time ended, the second lease's unspent half went back, and the third, untouched, whole.
      expect(calls.filter((c) => c.method === 'settle').map((c) => c.args[1])).toEqual([LEASE_MAX / 2, LEASE_MAX]);
      expect((await windowOf(subject)).count).toBe(count);
    });
  });

  it('gives a lease whose time ran out back on the next lease call, so a slow burst never finds its window spent by its own tokens', async () => {
    await inOneRateWindow(async () => {
      const { env: counted, calls } = countingLimiters();
      const kept: Promise<unknown>[] = [];
      const subject = `test:${crypto.randomUUID()}`;
      const clock = manualClock();
      const pools = new TokenPools(clock);
      // A small window: any token of its lease still out is missed by the next lease call.
      const first = await pools.spend(counted, subject, LEASE_MAX, (work) => kept.push(work));
      expect(first).toMatchObject({ admitted: true, count: 1 });
      await answered(calls);
      // The spending time ends while requests still come (on a busy machine, before its timer runs).
      clock.advance(SPEND_MS);
      const second = await pools.spend(counted, subject, LEASE_MAX, (work) => kept.push(work));
      await answered(calls);
      expect(second).toMatchObject({ admitted: true, count: 2 });
      const leases = calls.filter((c) => c.method === 'lease');
      expect(leases).toHaveLength(2);
      const granted = ((await leases[0].answered) as { granted: number }).granted;
      expect(leases[1].args[3]).toEqual({ id: expect.any(String), unspent: granted - 1 });
      expect(calls.filter((c) => c.method === 'settle')).toEqual([]);
    });
  });

  it('takes the next lease ahead: under steady load no request waits for a lease call, and none is lost', async () => {
    await inOneRateWindow(async () => {
      const { env: counted, calls } = countingLimiters();
      const kept: Promise<unknown>[] = [];
      const subject = `test:${crypto.randomUUID()}`;
      // No lease runs out of time while the requests trickle in: the clock stands still until the end.
      const clock = manualClock();
      const pools = new TokenPools(clock);
      const spent: number[] = [];
      let waited = 0;
      for (let i = 0; i < 4 * LEASE_MAX; i++) {
        const spend = pools.spend(counted, subject, 1_000_000, (work) => kept.push(work));
        if (spend instanceof Promise) waited++;
        spent.push((await spend)!.count);
        // Requests arrive a little apart: a lease call taken ahead comes back before the next one.
        await answered(calls);
      }
      // Only the very first request waited: every later lease was asked for while tokens were left.
      expect(waited).toBe(1);
      expect(spent).toEqual(Array.from({ length: 4 * LEASE_MAX }, (_, i) => i + 1));
      clock.advance(SPEND_MS);
      await drain(kept);
      // Every lease was settled once: the spent ones carried by the next call, the last two given back.
      const leases = calls.filter((c) => c.method === 'lease');
      const carried = leases.map((c) => (c.args[3] as Settlement | undefined)?.id).filter(Boolean);
      const settled = calls.filter((c) => c.method === 'settle').map((c) => c.args[0]);
      expect(new Set([...carried, ...settled]).size).toBe(carried.length + settled.length);
      expect(carried.length + settled.length).toBe(leases.length);
      expect((await windowOf(subject)).count).toBe(4 * LEASE_MAX);
    });
  });

  it('two isolates share a budget exactly: tokens parked in one come back to the other', async () => {
    await inOneRateWindow(async () => {
      const subject = `test:${crypto.randomUUID()}`;
      const [a, b] = [new TokenPools(), new TokenPools()];
      const kept: Promise<unknown>[] = [];
      const waitUntil = (work: Promise<unknown>) => kept.push(work);
      // Isolate A serves one request and parks the rest of its lease.
      expect((await a.spend(quick, subject, 100, waitUntil))!.admitted).toBe(true);
      const answers = [];
      for (let i = 0; i < 100; i++) answers.push((await b.spend(quick, subject, 100, waitUntil))!.admitted);
      await Promise.all(kept);
      // B waited for A's nine unspent tokens instead of being refused while they sat in A.
      expect(answers.filter(Boolean)).toHaveLength(99);
      expect(answers.at(-1)).toBe(false);
      expect((await windowOf(subject)).count).toBe(100);
    });
  });

  it('an instance evicted while a lease is out still takes its unspent tokens back: a burst slowed past the eviction gets the whole limit', async () => {
    await inOneRateWindow(async () => {
      const subject = `test:${crypto.randomUUID()}`;
      const clock = manualClock();
      const pools = new TokenPools(clock);
      const kept: Promise<unknown>[] = [];
      const waitUntil = (work: Promise<unknown>) => kept.push(work);
      expect((await pools.spend(quick, subject, 100, waitUntil)).admitted).toBe(true);
      // Idle while the lease's other nine tokens sit here (an idle object is evicted), then the lease's time ends.
      await evictDurableObject(limiter(subject));
      clock.advance(SPEND_MS);
      const answers = [];
      for (let i = 0; i < 100; i++) answers.push((await pools.spend(quick, subject, 100, waitUntil)).admitted);
      clock.advance(SPEND_MS);
      await drain(kept);
      expect(answers.filter(Boolean)).toHaveLength(99);
      expect(answers.at(-1)).toBe(false);
      expect((await windowOf(subject)).count).toBe(100);
    });
  });

  it('asks for a lease only once the limiter has the give-backs this isolate sent it: a late give-back is never outrun by the next lease', async () => {
    await inOneRateWindow(async () => {
      let releaseSettles = () => {};
      const { env: counted, calls } = countingLimiters(new Promise((release) => (releaseSettles = release)));
      const kept: Promise<unknown>[] = [];
      const subject = `test:${crypto.randomUUID()}`;
      const clock = manualClock();
      const pools = new TokenPools(clock);
      // A lease of 2 of 20, one spent here; the other 18 are spent elsewhere, so the window has nothing left.
      expect(await pools.spend(counted, subject, 20, (work) => kept.push(work))).toMatchObject({ admitted: true, count: 1 });
      let elsewhere = 0;
      while (elsewhere < 18) {
        const lease = await limiter(subject).lease(60_000, 20, SPEND_MS);
        elsewhere += lease.granted;
        await limiter(subject).settle(lease.id!, 0);
      }
      // The lease's time ends and its unspent token goes back on its own; that call is slow to arrive.
      clock.advance(SPEND_MS);
      await new Promise((r) => setTimeout(r, 0));
      expect(calls.filter((c) => c.method === 'settle').map((c) => c.args[1])).toEqual([1]);
      const next = pools.spend(counted, subject, 20, (work) => kept.push(work));
      // However long the give-back takes to be answered, no lease call goes out before it is.
      await new Promise((r) => setTimeout(r, 50));
      expect(calls.filter((c) => c.method === 'lease')).toHaveLength(1);
      releaseSettles();
      expect(await next).toMatchObject({ admitted: true, count: 20 });
      clock.advance(SPEND_MS);
      await drain(kept);
      expect((await windowOf(subject)).count).toBe(20);
    });
  });

  it('parallel requests at the end of a window settle every small lease once, whether it rides a waiting request or goes alone', async () => {
    await inOneRateWindow(async () => {
      const { env: counted, calls } = countingLimiters();
      const kept: Promise<unknown>[] = [];
      const subject = `test:${crypto.randomUUID()}`;
      const clock = manualClock();
      const pools = new TokenPools(clock);
      const spends = await Promise.all(Array.from({ length: 25 }, () => pools.spend(counted, subject, 20, (work) => kept.push(work))));
      clock.advance(SPEND_MS);
      await drain(kept);
      expect(spends.filter((s) => s.admitted)).toHaveLength(20);
      const answers = await Promise.all(calls.filter((c) => c.method === 'lease').map((c) => c.answered as Promise<{ id: string | null }>));
      const granted = answers.map((a) => a.id).filter(Boolean);
      const settled = calls.map((c) => (c.method === 'lease' ? (c.args[3] as Settlement | undefined)?.id : c.args[0])).filter(Boolean);
      expect(settled.toSorted()).toEqual(granted.toSorted());
      expect((await windowOf(subject)).count).toBe(20);
    });
  });

  it("a key's requests spend leased tokens: one limiter call covers many", async () => {
    await inOneRateWindow(async () => {
      const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1000 } });
      // A limit of 1000 leases LEASE_MAX at a time (a tenth of what is left is more).
      for (let i = 0; i < 30; i++) expect((await unhurried(ws, 'GET', '/v1/pipelines')).status).toBe(200);
      // Two leases: the first covered the 30 requests, the second was asked for when it was half spent.
      // Two limiter calls where a call per request would have made 30.
      expect((await windowOf(`key:${await sha256Hex(ws.key)}`)).count).toBe(2 * LEASE_MAX);
    });
  });

  it('a lowered limit applies at once: the tokens an isolate leased under the old one go back', async () => {
    await inOneRateWindow(async () => {
      const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1000 } });
      for (let i = 0; i < 3; i++) expect((await unhurried(ws, 'GET', '/v1/pipelines')).status).toBe(200);
      await adminOk('PATCH', `/workspaces/${ws.id}`, { rate_limits: { per_key_per_minute: 5 } });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await unhurried(ws, 'GET', '/v1/pipelines')).status);
      // The first lease's unspent tokens came back: 3 + 2 admitted make the new 5.
      expect(statuses).toEqual([200, 200, 429, 429]);
    });
  });

  it('spends a lease for RATE_LIMIT_LEASE_MS (2 s unless set to 50-10,000 ms)', () => {
    const spendFor = (value?: string) => leaseSpendMs({ RATE_LIMIT_LEASE_MS: value } as unknown as Bindings);
    expect([spendFor(), spendFor('75'), spendFor('10000'), spendFor('10'), spendFor('2.5'), spendFor('soon')]).toEqual([
      2000, 75, 10_000, 2000, 2000, 2000,
    ]);
  });

  it('answers a refused read with its 429 only, before any other error, and lets it change nothing', async () => {
    await inOneRateWindow(async () => {
      // Reads run while the key's limiter answers; the verdict still decides the answer.
      const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 2 }, features: ['orders'] }, { pipeline: false });
      const filter = (plan: string) =>
        `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ $where: { field: 'custom_fields.plan', op: 'neq', value: plan } }))}`;
      const first = await ws.api('GET', filter('a'));
      const gated = await ws.api('GET', '/v1/deals');
      const refused = await Promise.all([ws.api('GET', filter('b')), ws.api('GET', '/v1/deals'), ws.api('GET', '/v1/contacts?limit=-1')]);
      expect(first.status).toBe(200);
      expect(gated.status).toBe(403);
      for (const res of refused) {
        expect(res.status).toBe(429);
        expect(res.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests' });
        expect(res.headers.get('ratelimit-remaining')).toBe('0');
        expect(res.headers.get('bookmark')).toBeNull();
      }
      // The admitted list stored its answer after the response; the refused one stored nothing.
      const storedAnswers = () => rowsOnShards('SELECT key FROM contact_list_cache WHERE workspace_id = ?', ws.id);
      await eventually(storedAnswers, (rows) => rows.length > 0);
      await new Promise((r) => setTimeout(r, 200));
      expect(await storedAnswers()).toHaveLength(1);
    });
  });

  it("requests that wait for another request's lease call still read their own bodies", async () => {
    // Every request but one finds the instance's tokens gone and a lease call in flight: each must go on in its own request.
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1000 } }, { pipeline: false });
    const ip = freshIp();
    const post = (i: number) =>
      SELF.fetch('https://api.test/v1/contacts', {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.key}`, 'cf-connecting-ip': ip, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Waiter ${i}` }),
      });
    const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => post(i)));
    expect(answers.map((r) => r.status)).toEqual(Array.from({ length: 24 }, () => 201));
  });

  it('applies per-workspace overrides set through the operator API', async () => {
    const ws = await makeWorkspace();
    await adminOk('PATCH', `/workspaces/${ws.id}`, { rate_limits: { per_key_per_minute: 1 } });
    const first = await ws.api('GET', '/v1/pipelines');
    const second = await ws.api('GET', '/v1/pipelines');
    expect([first.status, second.status]).toContain(429);
  });
});
