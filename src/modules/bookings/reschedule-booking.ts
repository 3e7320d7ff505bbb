import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { runOperation, type WriteBatch } from '../../platform/d1/operation';
import { isValidTimeZone } from '../../platform/timezones';
import { bookingChange, bookingChangeReads, bookingToChange, changedSinceRead } from './changes';
import { dedupeKeyOf, doubleSubmitKey } from './double-submit';
import { BookingErrors } from './errors';
import { bookingEventData } from './event-payload';
import type { SlotLocks } from './locks';
import { notifyInvitee, type BookingNotify } from './notifications';
import { serializeBooking } from './read';
import { claimsFor, MINUTE, parseStart, readCalendarAround, type Schedule } from './scheduling';
import type { BookingRow } from './schema';
import { slotAt, type Calendar } from './slots';

type RescheduleInput = { start_at: string; timezone?: string };

/**
 * `POST /v1/bookings/{id}/reschedule`: the same host(s) at a new open slot (the booking's own old
 * slot does not count against it), taken under the hosts' SlotLocks and checked again under them.
 * The old slot is free once the row moves. A booking changed since it was read is read again and
 * moved anew. With `notify`, the invitee's updated invite (`METHOD:REQUEST`, the same `UID`, the
 * next `SEQUENCE`) leaves after the answer.
 */
export async function rescheduleBooking(ctx: ServiceContext, locks: SlotLocks, id: string, input: RescheduleInput, notify?: BookingNotify) {
  const { next, s, members } = await runOperation(ctx, {
    reads: bookingChangeReads(ctx, id),
    decide: async (read, batch) => {
      const { booking, s, members } = bookingToChange(read);
      if (booking.status !== 'confirmed') throw BookingErrors.notReschedulable();
      if (!s) throw BookingErrors.typeGone();
      const start = parseStart(input.start_at);
      if (input.timezone !== undefined && !isValidTimeZone(input.timezone)) throw BookingErrors.badZone();
      if (!s.row.weeklyHours) throw BookingErrors.noSchedule();
      const fits = (calendar: Calendar) => fitsAt(s, booking, start, calendar);
      // Checked before the locks too: a taken slot answers without waiting for them.
      if (!fits(await readCalendarAround(ctx, s, start))) throw BookingErrors.slotTaken.requested();
      const next = moveTo(ctx, batch, { s, booking, start, timezone: input.timezone });
      batch.emit('booking.rescheduled', bookingEventData(next, s.row, members));
      // The leases survive an eviction of the lock, so what is read under them stays true until the write.
      batch.heldBy((write) =>
        locks.hold(ctx.ws.id, claimsFor(s.rules, booking.hostUserIds, start), async () => {
          if (!fits(await readCalendarAround(ctx, s, start))) throw BookingErrors.slotTaken.requested();
          await write();
        }),
      );
      return batch.answerWith({ next, s, members });
    },
    lostRaceOn: [changedSinceRead],
    // The contact already holds a confirmed booking of this type at that start: not an open slot for this one.
    refusedOn: [[doubleSubmitKey, BookingErrors.slotTaken.requested]],
  });
  if (notify) notifyInvitee(ctx, notify, 'reschedule', next, s.row, members);
  return serializeBooking(next, members);
}

/** Whether the booking's host(s) have an open slot at `start` (a collective booking: its whole pool). */
function fitsAt(s: Schedule, booking: BookingRow, start: number, calendar: Calendar): boolean {
  const slot = slotAt(s.rules, calendar, start, Date.now(), {
    ignoreBookingId: booking.id,
    pinned: s.rules.kind === 'collective' ? undefined : booking.hostUserId,
  });
  return slot !== null && (s.rules.kind === 'collective' || slot.hosts.includes(booking.hostUserId));
}

/** The booking's move to `start` (its double-submit key with it), written only over the version read; answers the moved row. */
function moveTo(ctx: ServiceContext, batch: WriteBatch, change: { s: Schedule; booking: BookingRow; start: number; timezone?: string }): BookingRow {
  const { s, booking, start } = change;
  const now = nowIso();
  const startIso = new Date(start).toISOString();
  const { next, update } = bookingChange(
    ctx,
    booking,
    {
      startAt: startIso,
      endAt: new Date(start + s.rules.durationMinutes * MINUTE).toISOString(),
      inviteeTimezone: change.timezone ?? booking.inviteeTimezone,
      previousStartAt: booking.startAt,
      rescheduledAt: now,
      rescheduleCount: booking.rescheduleCount + 1,
      inviteSequence: booking.inviteSequence + 1,
      dedupeKey: dedupeKeyOf(booking.meetingTypeId, startIso, booking.contactId, booking.pinnedHostUserId),
    },
    now,
  );
  batch.write(update);
  return next;
}
