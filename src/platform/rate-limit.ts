import type { Bindings } from '../env';
import type { HitResult, LeaseResult } from '../durable-objects/rate-limiter';
import { httpError } from './errors';
import { Lru } from './lru';

export const WINDOW_MS = 60_000;

/** `refusedUntil`: when the exceeded window ends, or null when the request is within the limit. */
export type LimitCheck = { refusedUntil: number | null; limit: number; label: string };

/** Subjects an isolate keeps state for (object ids, leased tokens) at most. */
const SUBJECTS_MAX = 10_000;

/** Object ids by subject: deriving one hashes the name, and the hot subjects (a busy key, an IP) repeat. */
const ids = new Lru<DurableObjectId>(SUBJECTS_MAX);

function limiter(env: Bindings, subject: string) {
  let id = ids.get(subject);
  if (!id) {
    id = env.RATE_LIMITER.idFromName(subject);
    ids.set(subject, id);
  }
  return env.RATE_LIMITER.get(id);
}

/** Counts one request against a subject; fails open (null) when the counter cannot be reached. */
export async function hit(env: Bindings, subject: string): Promise<HitResult | null> {
  try {
    return await limiter(env, subject).hit(WINDOW_MS);
  } catch (err) {
    console.error('rate limiter unavailable', subject, err);
    return null;
  }
}

export const refusedUntil = (result: HitResult | null, limit: number): number | null =>
  result && result.count > limit ? result.resetAt : null;

/** Tokens this isolate leased from a subject's limiter and has not spent yet. */
type Pool = { tokens: number; resetAt: number; refill: Promise<'added' | 'open' | number> | null };
const pools = new Lru<Pool>(SUBJECTS_MAX);

function poolFor(subject: string): Pool {
  let pool = pools.get(subject);
  if (!pool) {
    pool = { tokens: 0, resetAt: 0, refill: null };
    pools.set(subject, pool);
  }
  return pool;
}

async function refill(env: Bindings, subject: string, limit: number, pool: Pool): Promise<'added' | 'open' | number> {
  let lease: LeaseResult;
  try {
    lease = await limiter(env, subject).lease(WINDOW_MS, limit);
  } catch (err) {
    console.error('rate limiter unavailable', subject, err);
    return 'open';
  }
  if (lease.granted === 0) return lease.resetAt;
  if (pool.resetAt !== lease.resetAt) pool.tokens = 0;
  pool.tokens += lease.granted;
  pool.resetAt = lease.resetAt;
  return 'added';
}

/**
 * Spends one of a subject's tokens, leasing more from its limiter when this
 * isolate holds none (one lease call in flight per subject, so an isolate never
 * refuses while it still holds a token): most requests make no call. Answers
 * when the exhausted window ends, or null when the request may proceed.
 */
export async function spendLeasedToken(env: Bindings, subject: string, limit: number, waitUntil: (work: Promise<unknown>) => void): Promise<number | null> {
  const pool = poolFor(subject);
  for (;;) {
    if (pool.resetAt <= Date.now()) pool.tokens = 0;
    if (pool.tokens > 0) {
      pool.tokens--;
      return null;
    }
    if (!pool.refill) {
      // Under waitUntil: requests of this isolate waiting on the refill must not hang if its client goes away.
      pool.refill = refill(env, subject, limit, pool).finally(() => (pool.refill = null));
      waitUntil(pool.refill);
    }
    const outcome = await pool.refill;
    if (outcome === 'open') return null;
    if (typeof outcome === 'number') return outcome;
  }
}

export function ipLimit(env: Bindings): number {
  const n = Number(env.RATE_LIMIT_PER_IP_PER_MINUTE ?? '300');
  return Number.isInteger(n) && n > 0 ? n : 300;
}

/** The key's budget, carried by every authenticated answer (429s included) so clients can pace themselves. */
export function budgetHeaders(limit: number, keyHit: HitResult, now = Date.now()): Record<string, string> {
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
  const error = httpError(429, `Rate limit exceeded: ${first.limit} requests per minute ${first.label}. Retry after ${retryAfter} seconds.`);
  Object.assign(error.headers, budget, { 'Retry-After': String(retryAfter) });
  throw error;
}

/**
 * Records the bookmark a key's write produced before the answer leaves, so the
 * key's next read (from any isolate or location) starts its session there.
 * Best effort like the counters: an outage only loses read-your-writes.
 */
export async function rememberBookmark(env: Bindings, subject: string, bookmark: string): Promise<void> {
  try {
    await limiter(env, subject).remember(bookmark);
  } catch (err) {
    console.error('bookmark not recorded', subject, err);
  }
}
