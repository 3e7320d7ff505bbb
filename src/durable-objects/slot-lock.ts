import { DurableObject } from 'cloudflare:workers';

export type LockRange = { start: number; end: number };
export type ClaimResult = { ok: true; token: string } | { ok: false; retryAfterMs: number };

const overlapping = (a: LockRange[], b: LockRange[]) => a.some((x) => b.some((y) => x.start < y.end && y.start < x.end));

type Waiter = { ranges: LockRange[]; wake: () => void };

/**
 * Booking slot locks: one instance per (workspace, host). A booking,
 * reschedule or reassign claims the time range it needs on each host's
 * instance, writes (checked against what it read, or after reading again),
 * and releases. Calls into one instance run one at a time, so two
 * overlapping claims can never both hold: the second waits for the first's
 * release (or refuses, when asked not to wait) and then sees its booking in
 * D1. Overlapping claims are granted in the order they came.
 *
 * Claims are leases that run out (a holder that crashes before releasing
 * blocks the range only until then). A durable lease is kept in the object's
 * SQLite storage, so it survives an eviction of the instance. A claim whose
 * holder's write is guarded on what it read (a booking's: `unchangedFor`)
 * needs no such lease, since its write never stands on a stale read: it is
 * kept in memory, and claiming and releasing it write nothing to storage. Both
 * kinds exclude each other.
 */
export class SlotLock extends DurableObject {
  private ready = false;
  /** Claims waiting, in arrival order: each looks again when a lease is released or a waiter ahead of it leaves. */
  private readonly queue: Waiter[] = [];
  /** The leases kept in memory, by token. */
  private readonly held = new Map<string, { ranges: LockRange[]; expires: number }>();

  private table() {
    if (this.ready) return;
    this.ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS leases (token TEXT PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, expires INTEGER NOT NULL)',
    );
    this.ready = true;
  }

  /**
   * Takes `ranges` for `leaseMs` when no live lease overlaps them and no
   * earlier claim waiting for an overlapping range is ahead of it. Otherwise
   * waits up to `waitMs`, in arrival order: it looks again each time a lease
   * is released (or expires) or a waiter ahead leaves, and goes through as soon
   * as its ranges are free, with no polling in between. Overlapping claims are
   * granted in the order they came, so none is overtaken by later ones.
   * `durable` (the default) keeps the lease in storage, else in memory.
   */
  async claim(ranges: LockRange[], leaseMs: number, waitMs = 0, durable = true): Promise<ClaimResult> {
    const deadline = Date.now() + waitMs;
    const me: Waiter = { ranges, wake: () => undefined };
    let queued = false;
    try {
      for (;;) {
        const ahead = queued ? this.queue.slice(0, this.queue.indexOf(me)) : this.queue;
        const left = deadline - Date.now();
        const result = ahead.some((w) => overlapping(w.ranges, ranges))
          ? ({ ok: false, retryAfterMs: left } as const)
          : this.tryClaim(ranges, leaseMs, durable);
        if (result.ok || left <= 0) return result;
        if (!queued) {
          this.queue.push(me);
          queued = true;
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => me.wake(), Math.min(result.retryAfterMs, left));
          me.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      if (queued) {
        this.queue.splice(this.queue.indexOf(me), 1);
        this.wakeAll();
      }
    }
  }

  private wakeAll() {
    for (const waiter of this.queue) waiter.wake();
  }

  private tryClaim(ranges: LockRange[], leaseMs: number, durable: boolean): ClaimResult {
    this.table();
    const now = Date.now();
    const sql = this.ctx.storage.sql;
    let blockedUntil = 0;
    for (const [token, lease] of this.held) {
      if (lease.expires <= now) this.held.delete(token);
      else if (overlapping(lease.ranges, ranges)) blockedUntil = Math.max(blockedUntil, lease.expires);
    }
    for (const r of ranges) {
      const [row] = sql
        .exec<{ expires: number }>('SELECT max(expires) AS expires FROM leases WHERE start < ? AND end > ? AND expires > ?', r.end, r.start, now)
        .toArray();
      if (row?.expires) blockedUntil = Math.max(blockedUntil, row.expires);
    }
    if (blockedUntil) return { ok: false, retryAfterMs: blockedUntil - now };
    const token = crypto.randomUUID();
    if (!durable) {
      this.held.set(token, { ranges, expires: now + leaseMs });
      return { ok: true, token };
    }
    sql.exec('DELETE FROM leases WHERE expires <= ?', now);
    for (const r of ranges)
      sql.exec('INSERT INTO leases (token, start, end, expires) VALUES (?, ?, ?, ?)', `${token}:${r.start}`, r.start, r.end, now + leaseMs);
    return { ok: true, token };
  }

  release(token: string): void {
    // A durable claim's rows are keyed `<token>:<start>`: the keys from `<token>:` up to `<token>;` (the next character), found by the key's index.
    if (!this.held.delete(token)) {
      this.table();
      this.ctx.storage.sql.exec('DELETE FROM leases WHERE token >= ? AND token < ?', `${token}:`, `${token};`);
    }
    this.wakeAll();
  }
}
