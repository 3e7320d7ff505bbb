import { eq } from 'drizzle-orm';
import { Temporal } from 'temporal-polyfill';
import type { Db } from '../../platform/d1/db';
import { escapeHtml } from '../../platform/html';
import { base64url } from '../../platform/ids';
import { bookingSettingsOf, type Member } from './meeting-types';
import { bookingSettings, type BookingRow, type MeetingTypeRow } from './schema';

/** What the invitee receives after booking: to be sent through the transactional email path. */
export type BookingMessage = { to: string; subject: string; html: string; text: string; manage_url: string };

/** A start instant as the invitee reads it: `Monday, June 1, 2026, 9:00 AM (Europe/Berlin)`. */
export function inviteeTime(iso: string, zone: string): string {
  const z = Temporal.Instant.from(iso).toZonedDateTimeISO(zone);
  return `${z.toLocaleString('en-US', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit' })} (${zone})`;
}

/**
 * The rendered confirmation of a booking (subject, html, text, recipient, manage link). The
 * invitee's name is text of the caller's choosing: it never leads the subject or the body, only
 * follows the fixed lines as the name the booking was made under.
 */
export function confirmationFor(
  b: BookingRow,
  mt: Pick<MeetingTypeRow, 'name' | 'durationMinutes' | 'locationType'>,
  members: Map<string, Member>,
  manageUrl: string,
): BookingMessage {
  const when = inviteeTime(b.startAt, b.inviteeTimezone);
  const host = members.get(b.hostUserId)?.name ?? 'your host';
  const subject = `Confirmed: ${mt.name} on ${when}`;
  const text = [
    'Your booking is confirmed.',
    '',
    `${mt.name} with ${host}`,
    `When: ${when}`,
    `Duration: ${mt.durationMinutes} minutes (${mt.locationType})`,
    `Booked under the name: ${b.inviteeName}`,
    '',
    `See or cancel your booking: ${manageUrl}`,
  ].join('\n');
  const html = `<p>Your booking is confirmed.</p><p><strong>${escapeHtml(mt.name)}</strong> with ${escapeHtml(host)}<br>When: <strong>${escapeHtml(when)}</strong><br>Duration: ${mt.durationMinutes} minutes (${escapeHtml(mt.locationType)})<br>Booked under the name: ${escapeHtml(b.inviteeName)}</p><p><a href="${escapeHtml(manageUrl)}">See or cancel your booking</a></p>`;
  return { to: b.inviteeEmail, subject, html, text, manage_url: manageUrl };
}

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
