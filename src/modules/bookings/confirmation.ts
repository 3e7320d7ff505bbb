import { eq } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import type { Db } from '../../platform/d1/db';
import { escapeHtml } from '../../platform/html';
import { base64url } from '../../platform/ids';
import { bookingSettingsOf } from './booking-settings';
import type { Member } from './meeting-types';
import { bookingSettings, type BookingRow, type MeetingTypeRow } from './schema';

/** What the invitee receives after booking: to be sent through the transactional email path. */
export type BookingMessage = { to: string; subject: string; html: string; text: string; manage_url: string };

/** A start instant as the invitee reads it: `Monday, June 1, 2026, 9:00 AM (Europe/Berlin)`. */
export function inviteeTime(iso: string, zone: string): string {
  const z = Temporal.Instant.from(iso).toZonedDateTimeISO(zone);
  return `${z.toLocaleString('en-US', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit' })} (${zone})`;
}

/** Which message a booking sends: each carries the calendar event (`invite.ics`). */
export type BookingMessageKind = 'confirmation' | 'reschedule' | 'cancellation';

const LEAD: Record<BookingMessageKind, [string, string]> = {
  confirmation: ['Confirmed', 'Your booking is confirmed.'],
  reschedule: ['Rescheduled', 'Your booking has moved to a new time.'],
  cancellation: ['Cancelled', 'Your booking is cancelled.'],
};

/**
 * The rendered message of a booking (subject, html, text, recipient, manage link): its
 * confirmation, a reschedule (the new time, and the one it replaces) or its cancellation. The
 * invitee's name and a cancellation's reason are text of the caller's choosing: they never lead
 * the subject or the body, only follow the fixed lines.
 */
export function bookingMessageFor(
  kind: BookingMessageKind,
  b: BookingRow,
  mt: Pick<MeetingTypeRow, 'name' | 'durationMinutes' | 'locationType'>,
  members: Map<string, Member>,
  manageUrl: string,
): BookingMessage {
  const when = inviteeTime(b.startAt, b.inviteeTimezone);
  const host = members.get(b.hostUserId)?.name ?? 'your host';
  const [word, lead] = LEAD[kind];
  const subject = `${word}: ${mt.name} on ${when}`;
  const was = kind === 'reschedule' && b.previousStartAt ? inviteeTime(b.previousStartAt, b.inviteeTimezone) : null;
  const reason = kind === 'cancellation' ? b.cancellationReason : null;
  const link = kind === 'cancellation' ? 'See your booking' : 'See or cancel your booking';
  const text = [
    lead,
    '',
    `${mt.name} with ${host}`,
    `When: ${when}`,
    ...(was ? [`Was: ${was}`] : []),
    `Duration: ${mt.durationMinutes} minutes (${mt.locationType})`,
    `Booked under the name: ${b.inviteeName}`,
    ...(reason ? [`Reason given: ${reason}`] : []),
    '',
    `${link}: ${manageUrl}`,
  ].join('\n');
  const html = `<p>${lead}</p><p><strong>${escapeHtml(mt.name)}</strong> with ${escapeHtml(host)}<br>When: <strong>${escapeHtml(when)}</strong>${was ? `<br>Was: ${escapeHtml(was)}` : ''}<br>Duration: ${mt.durationMinutes} minutes (${escapeHtml(mt.locationType)})<br>Booked under the name: ${escapeHtml(b.inviteeName)}${reason ? `<br>Reason given: ${escapeHtml(reason)}` : ''}</p><p><a href="${escapeHtml(manageUrl)}">${link}</a></p>`;
  return { to: b.inviteeEmail, subject, html, text, manage_url: manageUrl };
}

/** The confirmation of a new booking (`bookingMessageFor('confirmation', ...)`). */
export const confirmationFor = (
  b: BookingRow,
  mt: Pick<MeetingTypeRow, 'name' | 'durationMinutes' | 'locationType'>,
  members: Map<string, Member>,
  manageUrl: string,
): BookingMessage => bookingMessageFor('confirmation', b, mt, members, manageUrl);

// ---------------------------------------------------------------- manage tokens

async function sign(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(message));
  return base64url(new Uint8Array(mac)).slice(0, 32);
}

/**
 * The manage page of a booking: `/book/<workspace>/manage/<booking id>.<HMAC of workspace and
 * booking with the workspace's link secret>`. Never stored, never in the API or events.
 */
export const manageUrlWith = async (linkSecret: string, workspaceId: string, base: string, bookingId: string) =>
  `${base}/book/${workspaceId}/manage/${bookingId}.${await sign(linkSecret, `${workspaceId}:${bookingId}`)}`;

/** `manageUrlWith` after reading the workspace's link secret. */
export const manageUrl = async (db: Db, workspaceId: string, base: string, bookingId: string) =>
  manageUrlWith((await bookingSettingsOf(db, workspaceId)).linkSecret, workspaceId, base, bookingId);

/** The booking id a manage token (exactly two parts) stands for, or null when the signature does not match (constant-time compare). */
export async function verifyManageToken(db: Db, workspaceId: string, token: string): Promise<string | null> {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [bookingId, mac] = parts;
  if (!mac || !/^[0-9a-f-]{36}$/.test(bookingId)) return null;
  const [settings] = await db.select().from(bookingSettings).where(eq(bookingSettings.workspaceId, workspaceId)).limit(1);
  if (!settings) return null;
  const expected = await sign(settings.linkSecret, `${workspaceId}:${bookingId}`);
  if (expected.length !== mac.length) return null;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ mac.charCodeAt(i);
  return diff === 0 ? bookingId : null;
}
