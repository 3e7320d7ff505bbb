import { DurableObject } from 'cloudflare:workers';

/** `bookmark`: the newest data-database bookmark written through this subject (an API key), for read-your-writes. */
export type HitResult = { count: number; resetAt: number; bookmark: string | null };

/**
 * One instance per counted subject (an API key, a source IP, a key's email
 * sends), so a hot subject never queues behind another. Fixed one-minute
 * windows: requests inside an instance are serialized by the runtime, so the
 * count is exact. The counter lives in the object's SQLite storage and survives
 * eviction, which keeps a window exact even when the instance is recycled.
 *
 * A key's instance also keeps the key's latest D1 bookmark: every request
 * already calls it, so reads learn where to start their session at no extra cost.
 */
export class RateLimiter extends DurableObject {
  hit(windowMs: number): HitResult {
    const now = Date.now();
    const windowStart = now - (now % windowMs);
    const kv = this.ctx.storage.kv;
    const stored = kv.get<{ start: number; count: number }>('window');
    const count = stored && stored.start === windowStart ? stored.count + 1 : 1;
    kv.put('window', { start: windowStart, count });
    return { count, resetAt: windowStart + windowMs, bookmark: kv.get<string>('bookmark') ?? null };
  }

  /** Keeps the newer bookmark: bookmarks sort lexicographically, oldest first. */
  remember(bookmark: string): void {
    const kv = this.ctx.storage.kv;
    const known = kv.get<string>('bookmark');
    if (!known || bookmark > known) kv.put('bookmark', bookmark);
  }
}
