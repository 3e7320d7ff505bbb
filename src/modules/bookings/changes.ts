import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { guardOf } from '../../platform/d1/constraints';
import { guarded } from '../../platform/d1/db';
import type { ReadsOf } from '../../platform/d1/operation';
import { prepared } from '../../platform/d1/prepared';
import { BookingErrors } from './errors';
import { membersFrom, membersRead } from './meeting-types';
import { bookingIdOf, selectBooking } from './read';
import { scheduleFrom } from './scheduling';
import { bookings, meetingTypes, type BookingRow } from './schema';

/* What a change of a booking (cancel, reschedule, reassign) stands on, and how its write checks it still does. */

/** The meeting type of booking `id`, found through the booking in the same statement (so in the booking's own batch). */
const typeOfBooking = prepared((db) =>
  db
    .select()
    .from(meetingTypes)
    .where(
      and(
        eq(meetingTypes.workspaceId, sql.placeholder('ws')),
        eq(
          meetingTypes.id,
          sql`(SELECT meeting_type_id FROM bookings WHERE workspace_id = ${sql.placeholder('ws')} AND id = ${sql.placeholder('id')})`,
        ),
      ),
    )
    .limit(1),
);

/** The reads of a change of booking `id`: the booking, the workspace's members, the booking's meeting type. */
export const bookingChangeReads = (ctx: ServiceContext, id: string) => ({
  booking: selectBooking(ctx, id),
  members: membersRead(ctx.db, ctx.ws.id),
  type: typeOfBooking.in(ctx.db, { ws: ctx.ws.id, id: bookingIdOf(id) }),
});

/** The booking to change (404 when there is none), the members by id, and its schedule (null: the meeting type is gone). */
export function bookingToChange(read: ReadsOf<ReturnType<typeof bookingChangeReads>>) {
  const [booking] = read.booking;
  if (!booking) throw BookingErrors.notFound();
  const members = membersFrom(read.members);
  return { booking, members, s: scheduleFrom(read.type[0], members) };
}

/** The next `version`, written only over the version read and while the booking is confirmed: else NULL, failing the batch (`changedSinceRead`). */
const versionGuard = (b: BookingRow) => guarded(sql`${bookings.version} = ${b.version} AND ${bookings.status} = 'confirmed'`, sql`${b.version + 1}`);

/** The booking changed since it was read (`versionGuard`). */
export const changedSinceRead = guardOf(bookings.version);

/** `booking` as `changes` leave it, and the update writing them over the version read (`versionGuard`). */
export function bookingChange(ctx: ServiceContext, booking: BookingRow, changes: Partial<BookingRow>, now: string) {
  const next: BookingRow = { ...booking, ...changes, version: booking.version + 1, updatedAt: now };
  const update = ctx.db
    .update(bookings)
    .set({ ...changes, version: versionGuard(booking), updatedAt: now })
    .where(and(eq(bookings.workspaceId, ctx.ws.id), eq(bookings.id, booking.id)));
  return { next, update };
}
