import { DurableObject } from 'cloudflare:workers';

export type LockRange = { start: number; end: number };
export type ClaimResult = { ok: true; token: string } | { ok: false; retryAfterMs: number };

/**
 * Booking slot locks: one instance per (workspace, host). A booking,
 * reschedule or reassign claims the time range it needs on each host's
 * instance, writes (checked against what it read, or after reading again),
 * and releases. Calls into one instance run one at a time, so two
 * overlapping claims can never both hold: the second waits for the first's
 * release (or refuses, when asked not to wait) and then sees its booking in D1.
 *
 * Claims are leases kept in the object's SQLite storage (they survive an
 * eviction of the instance): a holder that crashes before releasing blocks
 * the range only until its lease runs out.
 */
export class SlotLock extends DurableObject {
  private ready = false;
  /** Claims waiting for a release: each looks again when one lands (or at its lease's expiry, or its own deadline). */
  private readonly waiting = new Set<() => void>();

  private table() {
    if (this.ready) return;
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS leases (token TEXT PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, expires INTEGER NOT NULL)');
    this.ready = true;
  }

  /**
   * Takes `ranges` for `leaseMs` when no live lease overlaps them. Otherwise
   * waits up to `waitMs` for the overlapping leases to be released or to
   * expire, looking again each time one is released: the waiting claim goes
   * through as soon as its ranges are free, with no polling in between.
   */
  async claim(ranges: LockRange[], leaseMs: number, waitMs = 0): Promise<ClaimResult> {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const result = this.tryClaim(ranges, leaseMs);
      const left = deadline - Date.now();
      if (result.ok || left <= 0) return result;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.waiting.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(result.retryAfterMs, left));
        this.waiting.add(wake);
      });
    }
  }

  private tryClaim(ranges: LockRange[], leaseMs: number): ClaimResult {
    this.table();
    const now = Date.now();
    const sql = this.ctx.storage.sql;
    sql.exec('DELETE FROM leases WHERE expires <= ?', now);
    let blockedUntil = 0;
    for (const r of ranges) {
      const [row] = sql.exec<{ expires: number }>('SELECT max(expires) AS expires FROM leases WHERE start < ? AND end > ?', r.end, r.start).toArray();
      if (row?.expires) blockedUntil = Math.max(blockedUntil, row.expires);
    }
    if (blockedUntil) return { ok: false, retryAfterMs: blockedUntil - now };
    const token = crypto.randomUUID();
    for (const r of ranges) sql.exec('INSERT INTO leases (token, start, end, expires) VALUES (?, ?, ?, ?)', `${token}:${r.start}`, r.start, r.end, now + leaseMs);
    return { ok: true, token };
  }

  release(token: string): void {
    this.table();
    // A claim's rows are keyed `<token>:<start>`: the keys from `<token>:` up to `<token>;` (the next character), found by the key's index.
    this.ctx.storage.sql.exec('DELETE FROM leases WHERE token >= ? AND token < ?', `${token}:`, `${token};`);
    for (const wake of [...this.waiting]) wake();
  }
}
