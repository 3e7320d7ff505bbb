import { DurableObject } from 'cloudflare:workers';

export type LockRange = { start: number; end: number };
export type ClaimResult = { ok: true; token: string } | { ok: false; retryAfterMs: number };

/**
 * Booking slot locks: one instance per (workspace, host). A booking,
 * reschedule or reassign claims the time range it needs on each host's
 * instance, re-reads the authoritative bookings in D1, writes, and releases.
 * Calls into one instance run one at a time, so two overlapping claims can
 * never both hold: the second is told to retry and, once the first has
 * released, sees its booking in D1.
 *
 * Claims are leases kept in the object's SQLite storage (they survive an
 * eviction of the instance): a holder that crashes before releasing blocks
 * the range only until its lease runs out.
 */
export class SlotLock extends DurableObject {
  private ready = false;

  private table() {
    if (this.ready) return;
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS leases (token TEXT PRIMARY KEY, start INTEGER NOT NULL, end INTEGER NOT NULL, expires INTEGER NOT NULL)');
    this.ready = true;
  }

  claim(ranges: LockRange[], leaseMs: number): ClaimResult {
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
    this.ctx.storage.sql.exec('DELETE FROM leases WHERE token LIKE ?', `${token}:%`);
  }
}
