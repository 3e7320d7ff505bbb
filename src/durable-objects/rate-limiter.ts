import { DurableObject } from 'cloudflare:workers';

/** `bookmark`: the newest data-database bookmark written through this subject (an API key), for read-your-writes. */
export type HitResult = { count: number; resetAt: number; bookmark: string | null };

type Window = { start: number; count: number };

/** A lease is the tokens one isolate may spend without asking again; see `lease`. */
export type LeaseResult = { granted: number; resetAt: number };

/** A lease is at most this many tokens, and at most a tenth of what is left, so little budget sits parked in one isolate. */
export const LEASE_MAX = 10;

/** The longest a counted hit waits in memory before the window is written to storage. */
export const PERSIST_AFTER_MS = 1000;

/**
 * One instance per counted subject (an API key, a source IP, a key's email
 * sends), so a hot subject never queues behind another. Fixed one-minute
 * windows: requests inside an instance are serialized by the runtime, so the
 * count is exact.
 *
 * The window (and the bookmark) live in memory and are written to the object's
 * storage at most once a second (a storage write per request was most of a
 * limiter call's cost). An instance the runtime evicts after it went idle
 * resumes from storage, so the window stays exact; only a crash in the second
 * after a hit can lose that second's counts (the limit then errs towards
 * admitting) or the newest bookmark (a read may then miss that write).
 *
 * A key's instance also keeps the key's latest D1 bookmark: every request
 * already calls it, so reads learn where to start their session at no extra cost.
 */
export class RateLimiter extends DurableObject {
  private window: Window | null | undefined;
  private bookmark: string | null = null;
  private persistScheduled = false;

  private load(): void {
    if (this.window !== undefined) return;
    const kv = this.ctx.storage.kv;
    this.window = kv.get<Window>('window') ?? null;
    this.bookmark = kv.get<string>('bookmark') ?? null;
  }

  hit(windowMs: number): HitResult {
    this.load();
    const now = Date.now();
    const windowStart = now - (now % windowMs);
    const count = this.window && this.window.start === windowStart ? this.window.count + 1 : 1;
    this.window = { start: windowStart, count };
    this.persistSoon();
    return { count, resetAt: windowStart + windowMs, bookmark: this.bookmark };
  }

  /**
   * Grants an isolate up to LEASE_MAX of the window's remaining tokens at once
   * (at least one while any is left), counted as spent. Used for the per-IP
   * limit: the isolate spends them on that IP's next requests without a call,
   * so the limit is never exceeded, and an IP served by several isolates at once
   * can at most be refused while a few tokens sit unspent in another isolate.
   */
  lease(windowMs: number, limit: number): LeaseResult {
    this.load();
    const now = Date.now();
    const windowStart = now - (now % windowMs);
    const spent = this.window && this.window.start === windowStart ? this.window.count : 0;
    const left = Math.max(0, limit - spent);
    const granted = Math.min(left, LEASE_MAX, Math.max(1, Math.floor(left / 10)));
    this.window = { start: windowStart, count: spent + granted };
    if (granted > 0) this.persistSoon();
    return { granted, resetAt: windowStart + windowMs };
  }

  /** Keeps the newer bookmark (bookmarks sort lexicographically, oldest first). */
  remember(bookmark: string): void {
    this.load();
    if (this.bookmark && bookmark <= this.bookmark) return;
    this.bookmark = bookmark;
    this.persistSoon();
  }

  /** One storage write for everything counted or remembered in the last second. */
  private persistSoon(): void {
    if (this.persistScheduled) return;
    this.persistScheduled = true;
    setTimeout(() => {
      this.persistScheduled = false;
      const kv = this.ctx.storage.kv;
      if (this.window) kv.put('window', this.window);
      if (this.bookmark) kv.put('bookmark', this.bookmark);
    }, PERSIST_AFTER_MS);
  }
}
