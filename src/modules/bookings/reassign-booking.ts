import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { readAll, runOperation, type WriteBatch } from '../../platform/d1/operation';
import { uuidv7 } from '../../platform/ids';
import { calendarOf } from './calendar';
import { bookingChange, bookingChangeReads, bookingToChange, changedSinceRead } from './changes';
import { BookingErrors } from './errors';
import { bookingEventData } from './event-payload';
import type { SlotLocks } from './locks';
import type { Member } from './meeting-types';
import { serializeBooking } from './read';
import { calendarAround, claimsFor, fairness, readCalendarAround, statsFrom, type Schedule } from './scheduling';
import { bookingAssignments, type BookingRow } from './schema';
import { checkHostAt, pickFairest, type Calendar, type HostCheck } from './slots';

type ReassignInput = { user_id?: string; reason?: string; force?: boolean };

const isFree = (c: HostCheck) => !c.hard && c.soft.length === 0;

/** The booking, its schedule and start, and the host asked for (none: the fairest free one). */
type Reassignment = { s: Schedule; booking: BookingRow; start: number; target: string | undefined; force: boolean };

/**
 * `POST /v1/bookings/{id}/reassign`: guards in the documented order; an explicit target's genuine
 * conflict is SLOT_TAKEN, its soft failures HOST_UNAVAILABLE unless `force` is true; an omitted
 * target re-picks the fairest free pool host (round-robin only). The new host is checked again
 * under its SlotLock. The write compares the version read first: a booking changed in between
 * answers BOOKING_MODIFIED.
 */
export function reassignBooking(ctx: ServiceContext, locks: SlotLocks, id: string, input: ReassignInput) {
  return runOperation(ctx, {
    reads: bookingChangeReads(ctx, id),
    decide: async (read, batch) => {
      const { booking, s, members } = bookingToChange(read);
      if (!s) throw BookingErrors.typeGoneNotFound();
      const r = reassignment(s, booking, members, input);
      const chosen = await chooseHost(ctx, r);
      const next = reassignTo(ctx, batch, r, chosen, { members, reason: input.reason ?? null });
      batch.heldBy((write) =>
        locks.hold(ctx.ws.id, claimsFor(s.rules, [chosen], r.start), async () => {
          verifyHost(r, await readCalendarAround(ctx, s, r.start), chosen);
          await write();
        }),
      );
      return batch.answerWith(serializeBooking(next, members));
    },
    refusedOn: [[changedSinceRead, BookingErrors.modified]],
  });
}

/** The checks on the booking and the target, in the documented order. */
function reassignment(s: Schedule, booking: BookingRow, members: Map<string, Member>, input: ReassignInput): Reassignment {
  if (booking.status !== 'confirmed') throw BookingErrors.notReassignable();
  const start = Date.parse(booking.startAt);
  if (start <= Date.now()) throw BookingErrors.started();
  if (s.row.schedulingKind === 'collective') throw BookingErrors.collective();
  const target = input.user_id?.toLowerCase();
  if (target === undefined) {
    if (s.row.schedulingKind !== 'round_robin') throw BookingErrors.chooseHost();
  } else {
    if (target === booking.hostUserId) throw BookingErrors.sameHost();
    if (!members.get(target)?.active) throw BookingErrors.targetInactive();
  }
  return { s, booking, start, target, force: input.force === true };
}

/** The explicit target once it passes `verifyHost`, or the fairest other pool host free at the booking's time. */
async function chooseHost(ctx: ServiceContext, r: Reassignment): Promise<string> {
  const { s, booking, start } = r;
  const seen = await readAll(ctx.db, { calendar: calendarAround(ctx, s, start), fairness: fairness(ctx, s.row.id) });
  const { calendar } = calendarOf(seen.calendar);
  if (r.target !== undefined) {
    verifyHost(r, calendar, r.target);
    return r.target;
  }
  const free = s.rules.hosts.filter((h) => h !== booking.hostUserId && isFree(checkHostAt(s.rules, calendar, h, start, Date.now(), booking.id)));
  const pick = pickFairest(free, statsFrom(seen.fairness), s.rules.hosts);
  if (!pick) throw BookingErrors.slotTaken.noFreeHost();
  return pick;
}

/** An explicit target must clear the hard check, and the soft ones unless forced; an automatic pick must be free. */
function verifyHost(r: Reassignment, calendar: Calendar, host: string): void {
  const explicit = r.target !== undefined;
  const check = checkHostAt(r.s.rules, calendar, host, r.start, Date.now(), r.booking.id);
  if (check.hard) throw explicit ? BookingErrors.slotTaken.hostConflict() : BookingErrors.slotTaken.noFreeHost();
  if (check.soft.length && !(explicit && r.force)) {
    if (!explicit) throw BookingErrors.slotTaken.noFreeHost();
    throw BookingErrors.hostUnavailable({ reasons: check.soft.join(', ') });
  }
}

/** The booking's move to `chosen`, written only over the version read, with its assignment history and `booking.reassigned`; answers the moved row. */
function reassignTo(
  ctx: ServiceContext,
  batch: WriteBatch,
  r: Reassignment,
  chosen: string,
  about: { members: Map<string, Member>; reason: string | null },
): BookingRow {
  const { booking } = r;
  const now = nowIso();
  const { next, update } = bookingChange(ctx, booking, { hostUserId: chosen, hostUserIds: [chosen] }, now);
  batch.write(
    update,
    ctx.db.insert(bookingAssignments).values({
      id: uuidv7(),
      workspaceId: ctx.ws.id,
      bookingId: booking.id,
      fromUserId: booking.hostUserId,
      toUserId: chosen,
      reason: about.reason,
      kind: 'reassigned',
      forced: r.force,
      createdAt: now,
    }),
  );
  batch.emit('booking.reassigned', bookingEventData(next, r.s.row, about.members, about.members.get(booking.hostUserId)?.name ?? null));
  return next;
}
