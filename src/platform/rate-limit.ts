import type { Bindings } from '../env';
import type { HitResult } from '../durable-objects/rate-limiter';
import { httpError } from './errors';

export const WINDOW_MS = 60_000;

export type LimitCheck = { hit: HitResult | null; limit: number; label: string };

/** Counts one request against a subject; fails open (null) when the counter cannot be reached. */
export async function hit(env: Bindings, subject: string): Promise<HitResult | null> {
  try {
    const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject));
    return await stub.hit(WINDOW_MS);
  } catch (err) {
    console.error('rate limiter unavailable', subject, err);
    return null;
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
  const exceeded = checks.filter((c) => c.hit && c.hit.count > c.limit);
  if (exceeded.length === 0) return;
  const resetAt = Math.max(...exceeded.map((c) => c.hit!.resetAt));
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
    await env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(subject)).remember(bookmark);
  } catch (err) {
    console.error('bookmark not recorded', subject, err);
  }
}
