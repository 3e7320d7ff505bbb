import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { inJsonList } from '../../platform/d1/bound-parameters';
import { nowIso, runBatch, type Db } from '../../platform/d1/db';
import { BookingErrors } from './errors';
import { wroteFor } from '../../platform/d1/floors';
import type { SweepResult } from '../../platform/manifest';
import { bookings } from './schema';
import { settledHere } from '../../platform/d1/workspace-moves/settled';

/** Bookings ended per shard and run: a backlog is worked off over several runs, each bounded. */
export const BOOKINGS_SWEEP_CHUNK = 500;

/**
 * `bookings-status`: confirmed bookings whose end has passed become
 * `no_show` when the host marked the invitee absent in the application
 * (`no_show_marked_at`), else `completed`. Both updates only touch rows still
 * `confirmed` with their end passed, so a rerun or an overlapping run changes
 * nothing twice. No event fires (`booking.completed`/`no_show` do not exist).
 */
export async function sweepBookingStatus(_env: Bindings, db: Db, opts: { chunk?: number; now?: string } = {}): Promise<SweepResult> {
  const now = opts.now ?? nowIso();
  const due = await db
    .select({ id: bookings.id, workspaceId: bookings.workspaceId })
    .from(bookings)
    .where(and(eq(bookings.status, 'confirmed'), lte(bookings.endAt, now), settledHere(bookings.workspaceId)))
    .orderBy(asc(bookings.endAt), asc(bookings.id))
    .limit(opts.chunk ?? BOOKINGS_SWEEP_CHUNK);
  if (due.length === 0) return { bookings_completed: 0, bookings_no_show: 0 };
  const ids = due.map((d) => d.id);
  const still = and(inJsonList(bookings.id, ids), eq(bookings.status, 'confirmed'), lte(bookings.endAt, now));
  const [noShow, completed] = (await runBatch(db, [
    db
      .update(bookings)
      .set({ status: 'no_show', version: sql`${bookings.version} + 1`, updatedAt: now })
      .where(and(still, sql`${bookings.noShowMarkedAt} IS NOT NULL`)),
    db
      .update(bookings)
      .set({ status: 'completed', version: sql`${bookings.version} + 1`, updatedAt: now })
      .where(still),
  ])) as [D1Result, D1Result];
  wroteFor(db, new Set(due.map((d) => d.workspaceId)));
  return { bookings_completed: completed.meta.changes, bookings_no_show: noShow.meta.changes };
}

/** Operator (the application's host view): marks the invitee of a confirmed booking absent; the sweep ends it as `no_show`. */
export async function markNoShow(db: Db, workspaceId: string, id: string) {
  const now = nowIso();
  const [row] = await db
    .update(bookings)
    .set({ noShowMarkedAt: now, updatedAt: now })
    .where(and(eq(bookings.workspaceId, workspaceId), eq(bookings.id, id), eq(bookings.status, 'confirmed')))
    .returning({ id: bookings.id, status: bookings.status, noShowMarkedAt: bookings.noShowMarkedAt });
  if (row) return { id: row.id, status: row.status, no_show_marked_at: row.noShowMarkedAt };
  const [exists] = await db
    .select({ id: bookings.id })
    .from(bookings)
    .where(and(eq(bookings.workspaceId, workspaceId), eq(bookings.id, id)))
    .limit(1);
  if (!exists) throw BookingErrors.notFound();
  throw BookingErrors.notMarkableNoShow();
}
