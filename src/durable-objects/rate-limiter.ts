import { DurableObject } from 'cloudflare:workers';

export type HitResult = { count: number; resetAt: number };

/** `open`: the window's leases not settled yet, stored with its count so a restart forgets none (see RateLimiter). */
type Window = { start: number; count: number; open: Map<string, OpenLease> };

/** `waitUntil`: until when a lease that finds nothing left waits for this one's tokens to come back. */
type OpenLease = { tokens: number; waitUntil: number };

/**
 * A lease is tokens one isolate may spend without asking again. `count`: the
 * window's tokens handed out so far, this lease's included; `spendForMs`: how
 * long the isolate may spend them before it gives back what is left. `id` is
 * null when nothing was granted.
 */
export type LeaseResult = { id: string | null; granted: number; count: number; resetAt: number; spendForMs: number };

/** What an isolate says of a lease it is done with: the tokens it did not spend (and never will). */
export type Settlement = { id: string; unspent: number };

/**
 * A lease is at most this many tokens, and at most a tenth of what is left, so little budget sits
 * parked in one isolate: a 100-a-minute key's leases stay at 10 or fewer, while a busy subject with
 * a high limit makes one lease call per 50 requests (two subjects at 10 cost reads up to 0.1x the
 * select floor in the benchmark).
 */
export const LEASE_MAX = 50;

/** How long past that a lease nobody settled is still waited for before it counts as spent (its isolate may have died). */
export const LEASE_GRACE_MS = 1_000;

/**
 * One instance per counted subject (an API key, a source IP, a key's email
 * sends), so a hot subject never queues behind another. Fixed one-minute
 * windows: requests inside an instance are serialized by the runtime, so the
 * count is exact.
 *
 * Isolates lease tokens (`lease`) and spend them without a call each; the count
 * holds every token handed out, so the limit is never exceeded. Leases come back
 * settled (`settle`, or carried by the isolate's next `lease`) with what was not
 * spent, and when the window has nothing left to hand out a `lease` waits for
 * the leases still open instead of refusing while their tokens may come back:
 * a subject served by many isolates still gets exactly its limit.
 *
 * Every change to the window, its open leases included (and the floor), is
 * written to the object's storage before its answer leaves (the runtime holds an
 * answer until the write it follows is durable), so an instance that restarts,
 * after a deploy, an eviction or a crash, resumes from exactly the tokens handed
 * out and the leases still open: a restart never admits more than the limit, and
 * a lease settled after it still gives its unspent tokens back. An idle instance
 * may be evicted while a lease is out (a burst slowed by a busy machine leaves it
 * idle between a lease and its settlement), so forgetting open leases would
 * refuse early. Leases keep the writes few: one per lease call (every tenth to
 * fiftieth request of a busy subject) and one per settlement sent on its own,
 * one per request only for `hit` (failed authentication, hosted-page posts).
 *
 * A workspace's floor instance (subject `floor:<workspace id>`, ../platform/d1/floors.ts)
 * counts nothing: it keeps the D1 bookmark of the workspace's newest write on its
 * shard, whoever made it, in the same storage, so a restart never forgets it.
 */
export class RateLimiter extends DurableObject {
  private window: Window | null | undefined;
  private floorBookmark: string | null = null;
  private wakeWaiters: (() => void)[] = [];

  private load(): void {
    if (this.window !== undefined) return;
    const kv = this.ctx.storage.kv;
    const stored = kv.get<Window>('window');
    // A window written before leases were stored with it has none to take back.
    this.window = stored ? { ...stored, open: stored.open ?? new Map() } : null;
    this.floorBookmark = kv.get<string>('floor') ?? null;
  }

  /** The current window, a new one (and no open lease) once the minute turned. */
  private current(windowMs: number, now: number): Window {
    this.load();
    const start = now - (now % windowMs);
    if (!this.window || this.window.start !== start) this.window = { start, count: 0, open: new Map() };
    return this.window;
  }

  hit(windowMs: number): HitResult {
    const now = Date.now();
    const window = this.current(windowMs, now);
    window.count++;
    this.persist();
    return { count: window.count, resetAt: window.start + windowMs };
  }

  /** The window's count, counting nothing: an attempt that must not spend (a correct operator token) asks whether failures spent the budget. */
  peek(windowMs: number): HitResult {
    const window = this.current(windowMs, Date.now());
    return { count: window.count, resetAt: window.start + windowMs };
  }

  /**
   * Grants up to LEASE_MAX of the window's remaining tokens (at least one while
   * any is left), counted as handed out. With none left but leases still open,
   * waits until they are settled (or past their grace) before it answers, so a
   * token another isolate gives back is granted rather than refused.
   */
  async lease(windowMs: number, limit: number, spendForMs: number, settled?: Settlement): Promise<LeaseResult> {
    if (settled) this.settle(settled.id, settled.unspent);
    for (;;) {
      const now = Date.now();
      const window = this.current(windowMs, now);
      const resetAt = window.start + windowMs;
      const left = Math.max(0, limit - window.count);
      if (left > 0) {
        const granted = Math.min(left, LEASE_MAX, Math.max(1, Math.floor(left / 10)));
        window.count += granted;
        const id = crypto.randomUUID();
        window.open.set(id, { tokens: granted, waitUntil: now + spendForMs + LEASE_GRACE_MS });
        this.persist();
        return { id, granted, count: window.count, resetAt, spendForMs };
      }
      const awaited = [...window.open.values()].map((l) => l.waitUntil).filter((t) => t > now);
      if (awaited.length === 0) return { id: null, granted: 0, count: window.count, resetAt, spendForMs: 0 };
      const until = Math.min(Math.min(...awaited), resetAt);
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, until - now);
        this.wakeWaiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  /** Takes back a lease's unspent tokens (once; a lease of an earlier window or already settled is ignored). */
  settle(id: string, unspent: number): void {
    this.load();
    const window = this.window;
    const lease = window?.open.get(id);
    if (!window || !lease) return;
    window.open.delete(id);
    const back = Math.min(Math.max(0, Math.floor(unspent)), lease.tokens);
    if (back > 0) window.count -= back;
    this.persist();
    const waiters = this.wakeWaiters;
    this.wakeWaiters = [];
    for (const wake of waiters) wake();
  }

  /** The newest bookmark `raise` was given (a floor instance), null before the first. */
  floor(): string | null {
    this.load();
    return this.floorBookmark;
  }

  /** Keeps the newer bookmark (bookmarks sort lexicographically, oldest first) and answers the floor it keeps. */
  raise(bookmark: string): string {
    this.load();
    if (this.floorBookmark === null || bookmark > this.floorBookmark) {
      this.floorBookmark = bookmark;
      this.persist();
    }
    return this.floorBookmark;
  }

  /**
   * The workspace moved to another database: its floor starts over at that database's bookmark
   * (bookmarks of two databases do not compare), whatever the old one held.
   */
  restart(bookmark: string): string {
    this.load();
    this.floorBookmark = bookmark;
    this.persist();
    return this.floorBookmark;
  }

  /** Writes what changed before the call's answer leaves (the answer waits for the write to be durable). */
  private persist(): void {
    const kv = this.ctx.storage.kv;
    if (this.window) kv.put('window', this.window);
    if (this.floorBookmark) kv.put('floor', this.floorBookmark);
  }
}
