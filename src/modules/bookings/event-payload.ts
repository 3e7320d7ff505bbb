import type { Member } from './meeting-types';
import type { BookingRow, MeetingTypeRow } from './schema';

/** Booking event data (docs/events.md): explicit nulls, `previous_host_name` only on reassigned, never a manage link. */
export function bookingEventData(
  b: BookingRow,
  mt: Pick<MeetingTypeRow, 'name' | 'locationType'>,
  members: Map<string, Member>,
  previousHostName: string | null = null,
) {
  return {
    booking_id: b.id,
    contact_id: b.contactId,
    meeting_type_id: b.meetingTypeId,
    meeting_type_name: mt.name,
    host_user_id: b.hostUserId,
    host_name: members.get(b.hostUserId)?.name ?? null,
    previous_host_name: previousHostName,
    start_at: b.startAt,
    end_at: b.endAt,
    host_timezone: b.hostTimezone,
    invitee_timezone: b.inviteeTimezone,
    status: b.status,
    location_type: mt.locationType,
    cancelled_by: b.cancelledBy,
    cancel_reason: b.status === 'cancelled' ? b.cancellationReason : null,
    source: b.source,
  };
}
