import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { runOperation } from '../../platform/d1/operation';
import { bookingChange, bookingChangeReads, bookingToChange, changedSinceRead } from './changes';
import { BookingErrors } from './errors';
import { bookingEventData } from './event-payload';
import { notifyInvitee, type BookingNotify } from './notifications';
import { serializeBooking } from './read';

/**
 * `POST /v1/bookings/{id}/cancel` (host side) and the manage page (`invitee`). With `notify`, the
 * invitee's cancellation email (`METHOD:CANCEL`, the next `SEQUENCE`) leaves after the answer. A
 * booking changed since it was read is read again and cancelled anew.
 */
export async function cancelBooking(
  ctx: ServiceContext,
  id: string,
  input: { reason?: string },
  cancelledBy: 'host' | 'invitee' = 'host',
  notify?: BookingNotify,
) {
  const { row, s, members } = await runOperation(ctx, {
    reads: bookingChangeReads(ctx, id),
    decide: (read, batch) => {
      const { booking, s, members } = bookingToChange(read);
      if (booking.status !== 'confirmed') throw BookingErrors.notCancellable();
      const now = nowIso();
      const { next: row, update } = bookingChange(
        ctx,
        booking,
        { status: 'cancelled', cancelledAt: now, cancelledBy, cancellationReason: input.reason ?? null, inviteSequence: booking.inviteSequence + 1 },
        now,
      );
      batch.write(update);
      // A booking whose meeting type is gone is still cancelled, its event naming no type.
      batch.emit('booking.cancelled', bookingEventData(row, s?.row ?? { name: '', locationType: '' }, members));
      batch.signal(booking.contactId, 'booking.cancelled');
      return batch.answerWith({ row, s, members });
    },
    lostRaceOn: [changedSinceRead],
  });
  if (notify && s) notifyInvitee(ctx, notify, 'cancellation', row, s.row, members);
  return serializeBooking(row, members);
}
