import ical, { ICalAttendeeRole, ICalAttendeeStatus, ICalCalendarMethod, ICalEventStatus } from 'ical-generator';
import type { EmailAttachment } from '../emails';

/** What a booking's calendar event says (RFC 5545), as the invitee's calendar stores and later updates it. */
export type InviteEvent = {
  bookingId: string;
  /** `PUBLIC_BASE_URL` (or the request's origin): its host name makes the event's `UID`. */
  base: string;
  /** `REQUEST` for the confirmation and each reschedule, `CANCEL` for the cancellation. */
  method: 'REQUEST' | 'CANCEL';
  /** 0 at the confirmation; each reschedule and the cancellation raise it. */
  sequence: number;
  startAt: string;
  endAt: string;
  /** The meeting type's name. */
  summary: string;
  location: string | null;
  description: string;
  /** The manage page. */
  url: string | null;
  organizer: { name: string; email: string };
  attendee: { name: string; email: string };
  /** When the event was written (`DTSTAMP`). */
  stamp: Date;
};

/** The event's `UID`: the same for every message about one booking, so calendars update or remove the one event. */
export const inviteUid = (bookingId: string, base: string) => `${bookingId}@${new URL(base).hostname}`;

/**
 * A booking's event as an iCalendar object: CRLF line endings, lines folded at 75 octets, text
 * escaped (ical-generator). Times are UTC; a cancellation is `STATUS:CANCELLED` under `METHOD:CANCEL`.
 */
export function inviteIcs(e: InviteEvent): string {
  const cancel = e.method === 'CANCEL';
  const calendar = ical({
    prodId: { company: 'workspace-api', product: 'bookings', language: 'EN' },
    method: cancel ? ICalCalendarMethod.CANCEL : ICalCalendarMethod.REQUEST,
  });
  calendar.createEvent({
    id: inviteUid(e.bookingId, e.base),
    sequence: e.sequence,
    stamp: e.stamp,
    start: new Date(e.startAt),
    end: new Date(e.endAt),
    summary: e.summary,
    location: e.location || null,
    description: e.description,
    url: e.url,
    status: cancel ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
    organizer: { name: e.organizer.name, email: e.organizer.email },
    attendees: [
      {
        name: e.attendee.name || e.attendee.email,
        email: e.attendee.email,
        rsvp: true,
        role: ICalAttendeeRole.REQ,
        status: ICalAttendeeStatus.NEEDSACTION,
      },
    ],
  });
  // Every content line ends in CRLF, the last one too (RFC 5545 3.1); the library leaves the last one bare.
  const text = calendar.toString();
  return text.endsWith('\r\n') ? text : `${text}\r\n`;
}

/** UTF-8 text as base64. */
function base64Of(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The event as the email's `invite.ics` (`text/calendar; method=REQUEST` or `CANCEL`, as its `METHOD` says; UTF-8, the type's default). */
export const inviteAttachment = (e: InviteEvent): EmailAttachment => ({
  filename: 'invite.ics',
  content_type: `text/calendar; method=${e.method}`,
  content_base64: base64Of(inviteIcs(e)),
});
