import type { Bindings } from '../env';
import { LEASE_MAX, type HitResult, type LeaseResult, type Settlement } from '../durable-objects/rate-limiter';
import { SharedErrors } from './shared-errors';
import { Lru } from './lru';

export const WINDOW_MS = 60_000;

/** `refusedUntil`: when the exceeded window ends, or null when the request is within the limit. */
export type LimitCheck = { refusedUntil: number | null; limit: number; label: string };

/** How often a request waiting for another request's lease call looks for its tokens: 2 ms, doubling to 32 ms (a call may wait seconds for open leases). */
const REFILL_POLL_MS = 2;
const REFILL_POLL_MAX_MS = 32;

/**
 * How long a lease call waits at most for this isolate's unanswered settlements: one whose request
 * ended before the answer came may never be answered there, and must not hold the subject's leases up.
 */
const SETTLEMENT_WAIT_MAX_MS = 5_000;

/** Subjects an isolate holds leased tokens for, at most. */
const SUBJECTS_MAX = 10_000;

const limiter = (env: Bindings, subject: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject));

/** Counts one request against a subject in windows of `windowMs` (a subject always uses the same); null when the counter cannot be reached. */
export const hit = (env: Bindings, subject: string, windowMs = WINDOW_MS) => ask(env, subject, (counter) => counter.hit(windowMs));

/** A subject's count in its current window, counting nothing; null when the counter cannot be reached. */
export const peek = (env: Bindings, subject: string, windowMs = WINDOW_MS) => ask(env, subject, (counter) => counter.peek(windowMs));

async function ask(env: Bindings, subject: string, call: (counter: ReturnType<typeof limiter>) => Promise<HitResult>): Promise<HitResult | null> {
  try {
    return await call(limiter(env, subject));
  } catch (err) {
    console.error('rate limiter unavailable', subject, err);
    return null;
  }
}

export const refusedUntil = (result: Spend | null): number | null => (result && !result.admitted ? result.resetAt : null);

/** A request's place in a subject's window: `admitted` false when the window had no token left for it. */
export type Spend = { admitted: boolean; count: number; resetAt: number };

/** A lease this isolate holds: its id, unspent tokens, and the window's count when it was granted (its tokens included). */
type Held = {
  id: string;
  tokens: number;
  count: number;
  limit: number;
  resetAt: number;
  /** This isolate spends the lease until then, then gives the rest back. */
  spendUntil: number;
  /** Granted with fewer than LEASE_MAX tokens: the window is nearly spent, and another isolate may be waiting on it. */
  small: boolean;
};

type Pool = {
  /** The lease being spent. */
  current: Held | null;
  /** A lease taken ahead while the current one still had tokens: spent once the current one is. */
  next: Held | null;
  /** A spent lease not reported yet: the next lease call carries it. */
  owed: Settlement | null;
  /** Settlements sent on their own that the limiter has not answered yet, and until when a lease call waits for them. */
  settling: { count: number; until: number };
  refill: Promise<Refill> | null;
  /** Requests sleeping until another request's lease call brings tokens: one of them makes the next call. */
  waiting: number;
  /** What this isolate still admits on its own in the current window while the limiter cannot be reached. */
  alone: { resetAt: number; left: number } | null;
};
type Refill = 'added' | 'open' | Spend;

/** Time as the pools see it: the wall clock in production; tests drive a clock of their own so no outcome depends on scheduling. */
export type Clock = { now(): number; sleep(ms: number): Promise<void> };

const wallClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((done) => setTimeout(done, ms)) };

/**
 * When a full lease is down to this many tokens, the next one is asked for in the
 * background: under steady load the call returns before the tokens run out, so no
 * request waits for a lease call (waiting requests were most of what the limits cost).
 */
const LEASE_AHEAD_AT = Math.ceil(LEASE_MAX / 2);

/**
 * The tokens one isolate leased from subjects' limiters (./../durable-objects/rate-limiter.ts).
 * Every lease is settled exactly once: carried by the next lease call once spent,
 * reported at once when it was a small one (the window is nearly spent, so another
 * isolate may be waiting on it) and no request here is about to make that call, or
 * given back with its unspent tokens when its spending time is over. A token is never
 * spent after its lease was settled, and a lease call goes out only once the limiter
 * answered the settlements sent before it (see settlementsAnswered). While the window
 * has plenty left, the next lease is taken ahead (see LEASE_AHEAD_AT).
 */
export class TokenPools {
  private readonly pools = new Lru<Pool>(SUBJECTS_MAX);

  constructor(private readonly clock: Clock = wallClock) {}

  private poolFor(subject: string): Pool {
    let pool = this.pools.get(subject);
    if (!pool) {
      pool = { current: null, next: null, owed: null, settling: { count: 0, until: 0 }, refill: null, waiting: 0, alone: null };
      this.pools.set(subject, pool);
    }
    return pool;
  }

  /**
   * Spends one of a subject's tokens: at once (no promise) when this isolate holds
   * one, else after leasing more from its limiter (one lease call in flight per
   * subject; the requests that find it in flight wait for its tokens): most
   * requests make no call. While the limiter cannot be reached the isolate admits
   * on its own at most `unreachableBudget(limit)` a window (`alone`).
   */
  spend(env: Bindings, subject: string, limit: number, waitUntil: (work: Promise<unknown>) => void): Spend | Promise<Spend> {
    return this.spendHeld(this.poolFor(subject), env, subject, limit, waitUntil) ?? this.spendLeased(env, subject, limit, waitUntil);
  }

  /** Spends a token this isolate already holds for the subject; undefined when it holds none. */
  private spendHeld(pool: Pool, env: Bindings, subject: string, limit: number, waitUntil: (work: Promise<unknown>) => void): Spend | undefined {
    const now = this.clock.now();
    // A changed limit (an operator override) applies at once: what was leased under the old one goes back.
    const over = (held: Held) => now >= held.spendUntil || now >= held.resetAt || held.limit !== limit;
    if (pool.next && over(pool.next)) this.giveBack(env, subject, pool, 'next', waitUntil, true);
    if (pool.current && over(pool.current)) this.giveBack(env, subject, pool, 'current', waitUntil, true);
    if (!pool.current && pool.next) [pool.current, pool.next] = [pool.next, null];
    const held = pool.current;
    if (!held) return undefined;
    held.tokens--;
    const spent: Spend = { admitted: true, count: held.count - held.tokens, resetAt: held.resetAt };
    if (held.tokens === 0) this.spentOut(env, subject, pool, waitUntil);
    else if (held.tokens === LEASE_AHEAD_AT && !held.small && !pool.next && !pool.refill) this.startRefill(env, subject, limit, pool, waitUntil);
    return spent;
  }

  private async spendLeased(env: Bindings, subject: string, limit: number, waitUntil: (work: Promise<unknown>) => void): Promise<Spend> {
    let poll = REFILL_POLL_MS;
    for (;;) {
      const pool = this.poolFor(subject);
      if (pool.refill) {
        // Another request's lease call is in flight. Its promise settles in that request, and code awaiting it would go
        // on there too (touching this request's body from there fails), so this one waits on a timer of its own.
        pool.waiting++;
        await new Promise((wake) => setTimeout(wake, poll));
        pool.waiting--;
        poll = Math.min(poll * 2, REFILL_POLL_MAX_MS);
        const held = this.spendHeld(pool, env, subject, limit, waitUntil);
        if (held) return held;
        continue;
      }
      const outcome = await this.startRefill(env, subject, limit, pool, waitUntil);
      if (outcome === 'open') return this.alone(subject, limit);
      if (outcome !== 'added') return outcome;
      const held = this.spendHeld(pool, env, subject, limit, waitUntil);
      if (held) return held;
    }
  }

  /**
   * A request counted while the subject's limiter cannot be reached: admitted while this isolate's
   * own budget for the window lasts (one lease's worth, `unreachableBudget`), refused after it.
   * An outage therefore admits at most that many requests per isolate and minute, never an unbounded number.
   */
  alone(subject: string, limit: number): Spend {
    const pool = this.poolFor(subject);
    const now = this.clock.now();
    const resetAt = now - (now % WINDOW_MS) + WINDOW_MS;
    if (pool.alone?.resetAt !== resetAt) pool.alone = { resetAt, left: unreachableBudget(limit) };
    if (pool.alone.left === 0) return { admitted: false, count: limit, resetAt };
    pool.alone.left--;
    return { admitted: true, count: limit - pool.alone.left, resetAt };
  }

  /** The subject's one lease call in flight; under waitUntil, so the lease is settled even if this request's client goes away. */
  private startRefill(env: Bindings, subject: string, limit: number, pool: Pool, waitUntil: (work: Promise<unknown>) => void): Promise<Refill> {
    const refill = this.refill(env, subject, limit, pool, waitUntil).finally(() => (pool.refill = null));
    pool.refill = refill;
    waitUntil(refill);
    return refill;
  }

  private async refill(env: Bindings, subject: string, limit: number, pool: Pool, waitUntil: (work: Promise<unknown>) => void): Promise<Refill> {
    // Awaited only with one in flight: otherwise the call goes out at once, carrying what is owed when it was set off.
    if (pool.settling.count > 0) await this.settlementsAnswered(pool);
    const owed = pool.owed ?? undefined;
    pool.owed = null;
    let lease: LeaseResult;
    try {
      lease = await limiter(env, subject).lease(WINDOW_MS, limit, leaseSpendMs(env), owed);
    } catch (err) {
      console.error('rate limiter unavailable', subject, err);
      return 'open';
    }
    if (lease.id === null) return { admitted: false, count: lease.count, resetAt: lease.resetAt };
    const id = lease.id;
    const held: Held = {
      id,
      tokens: lease.granted,
      count: lease.count,
      limit,
      resetAt: lease.resetAt,
      spendUntil: this.clock.now() + lease.spendForMs,
      small: lease.granted < LEASE_MAX,
    };
    if (pool.current) pool.next = held;
    else pool.current = held;
    // Whatever is still unspent when the spending time ends goes back to the window.
    waitUntil(
      this.clock.sleep(lease.spendForMs).then(() => {
        if (pool.current?.id === id) this.giveBack(env, subject, pool, 'current', waitUntil);
        else if (pool.next?.id === id) this.giveBack(env, subject, pool, 'next', waitUntil);
        else if (pool.owed?.id === id) this.report(env, subject, pool, waitUntil);
      }),
    );
    return 'added';
  }

  /**
   * A lease call waits until the limiter has every settlement this isolate sent it on its own: judged
   * before one of them arrived, it would find the window spent by tokens on their way back, and refuse
   * once that lease's grace is over, which on a busy machine comes before a late give-back does.
   * Waits on this request's own timer, as spendLeased does.
   */
  private async settlementsAnswered(pool: Pool): Promise<void> {
    let poll = REFILL_POLL_MS;
    while (pool.settling.count > 0 && this.clock.now() < pool.settling.until) {
      await new Promise((wake) => setTimeout(wake, poll));
      poll = Math.min(poll * 2, REFILL_POLL_MAX_MS);
    }
  }

  /**
   * The lease is spent: small leases (the window nearly spent, so another isolate may be waiting on it) are reported at
   * once, others ride the next lease call. A small one rides too while requests here wait for tokens: one of them makes
   * that call within a poll, and the limiter then has the settlement before the lease, with no call of its own to wait for.
   */
  private spentOut(env: Bindings, subject: string, pool: Pool, waitUntil: (work: Promise<unknown>) => void): void {
    const { id, small } = pool.current!;
    pool.current = null;
    // One spent earlier whose settlement no lease call carried yet (the next lease was taken ahead before it was spent) is reported now, so none is lost.
    if (pool.owed) this.report(env, subject, pool, waitUntil);
    pool.owed = { id, unspent: 0 };
    if (small && pool.waiting === 0) this.report(env, subject, pool, waitUntil);
  }

  /**
   * A held lease whose spending time or window is over, or whose limit changed, goes back with its
   * unspent tokens (a lease taken ahead and never spent from, whole); a window that is over takes
   * nothing back, its tokens being worth nothing to anyone. `carried`: a request is about to lease
   * (it found no token), so the give-back rides that lease call, which the limiter applies first:
   * sent on its own, it could reach the limiter after the lease and the window would look spent.
   */
  private giveBack(
    env: Bindings,
    subject: string,
    pool: Pool,
    slot: 'current' | 'next',
    waitUntil: (work: Promise<unknown>) => void,
    carried = false,
  ): void {
    const held = pool[slot]!;
    pool[slot] = null;
    if (this.clock.now() >= held.resetAt) return;
    const settlement = { id: held.id, unspent: held.tokens };
    if (carried && !pool.owed) pool.owed = settlement;
    else this.settle(env, subject, pool, settlement, waitUntil);
  }

  private report(env: Bindings, subject: string, pool: Pool, waitUntil: (work: Promise<unknown>) => void): void {
    const owed = pool.owed!;
    pool.owed = null;
    this.settle(env, subject, pool, owed, waitUntil);
  }

  private settle(env: Bindings, subject: string, pool: Pool, settlement: Settlement, waitUntil: (work: Promise<unknown>) => void): void {
    pool.settling.count++;
    pool.settling.until = this.clock.now() + SETTLEMENT_WAIT_MAX_MS;
    // A binding that throws (the limiter cannot even be addressed) fails like a refused call, and still counts down.
    const sent = (async () => limiter(env, subject).settle(settlement.id, settlement.unspent))();
    waitUntil(sent.catch((err: unknown) => console.error('rate limiter unavailable', subject, err)).finally(() => pool.settling.count--));
  }
}

/** What an isolate admits of a subject a minute on its own while its limiter cannot be reached: a lease's size at the window's start (10 at the default 100 a minute, at most 50). */
const unreachableBudget = (limit: number) => Math.max(1, Math.min(LEASE_MAX, Math.floor(limit / 10)));

/** This isolate's leased tokens. */
const isolatePools = new TokenPools();

export const spendLeasedToken = (env: Bindings, subject: string, limit: number, waitUntil: (work: Promise<unknown>) => void) =>
  isolatePools.spend(env, subject, limit, waitUntil);

/** How long an isolate spends a lease before it gives back the rest (`RATE_LIMIT_LEASE_MS`, 50-10,000; default 2,000). */
export function leaseSpendMs(env: Bindings): number {
  const n = Number(env.RATE_LIMIT_LEASE_MS ?? '2000');
  return Number.isInteger(n) && n >= 50 && n <= 10_000 ? n : 2000;
}

/** A limit set by a var: a positive integer, else the default. */
export function limitVar(value: string | undefined, fallback: number): number {
  const n = Number(value ?? fallback);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export const ipLimit = (env: Bindings): number => limitVar(env.RATE_LIMIT_PER_IP_PER_MINUTE, 300);

/** The key's budget, carried by every authenticated answer (429s included) so clients can pace themselves. */
export function budgetHeaders(limit: number, keyHit: Spend, now = Date.now()): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, limit - keyHit.count)),
    'RateLimit-Reset': String(Math.max(0, Math.ceil((keyHit.resetAt - now) / 1000))),
  };
}

/** Throws 429 with Retry-After (seconds to the end of the longest exceeded window) and the given budget headers. */
export function enforce(checks: LimitCheck[], budget: Record<string, string> = {}, now = Date.now()): void {
  const exceeded = checks.filter((c) => c.refusedUntil !== null);
  if (exceeded.length === 0) return;
  const resetAt = Math.max(...exceeded.map((c) => c.refusedUntil!));
  const retryAfter = Math.max(1, Math.ceil((resetAt - now) / 1000));
  const first = exceeded[0];
  const error = SharedErrors.rateLimited({ limit: first.limit, per: `requests per minute ${first.label}`, seconds: retryAfter });
  Object.assign(error.headers, budget, { 'Retry-After': String(retryAfter) });
  throw error;
}
