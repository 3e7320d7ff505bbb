import { DurableObject } from 'cloudflare:workers';

export type HitResult = { count: number; resetAt: number };

/**
 * One instance per counted subject (an API key, a source IP, a key's email
 * sends), so a hot subject never queues behind another. Fixed one-minute
 * windows: requests inside an instance are serialized by the runtime, so the
 * count is exact. The counter lives in the object's SQLite storage and survives
 * eviction, which keeps a window exact even when the instance is recycled.
 */
export class RateLimiter extends DurableObject {
  hit(windowMs: number): HitResult {
    const now = Date.now();
    const windowStart = now - (now % windowMs);
    const kv = this.ctx.storage.kv;
    const stored = kv.get<{ start: number; count: number }>('window');
    const count = stored && stored.start === windowStart ? stored.count + 1 : 1;
    kv.put('window', { start: windowStart, count });
    return { count, resetAt: windowStart + windowMs };
  }
}
