import { and, eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Bindings } from '../../env';
import type { AppEnv } from '../../platform/app-env';
import { afterResponse } from '../../platform/after-response';
import { publicBaseUrl } from '../../platform/public-base';
import type { ServiceContext } from '../../platform/context';
import { type EmailAttachment, type SendContext, sendEmail } from '../emails';
import { fromEmail, readSender } from '../sender-profiles';
import { bookingMessageFor, type BookingMessage, type BookingMessageKind, manageUrlWith } from './confirmation';
import { inviteAttachment } from './invite';
import { bookingSettingsOf } from './booking-settings';
import type { Member } from './meeting-types';
import { bookings, type BookingRow, type MeetingTypeRow } from './schema';

/** Where a booking's messages are sent from after the answer: the origin of its links, the bindings, and how work is deferred. */
export type BookingNotify = { base: string; env: Bindings; defer: (task: () => Promise<unknown>) => void };

/** A request's way to send them: after the answer, its links on `PUBLIC_BASE_URL` (else the request's origin). */
export const notifyFrom = (c: Context<AppEnv>): BookingNotify => ({
  base: publicBaseUrl(c.env, c.req.url),
  env: c.env,
  defer: afterResponse(c.executionCtx),
});

/** A booking message ready to leave: its once-only key, the rendered message and its files. */
export type BookingEmail = { key: string; message: BookingMessage; attachments: EmailAttachment[] };

/**
 * Sends one message of a booking to the invitee through the transactional send path (`source:
 * booking`: no `email.*` events, suppressions enforced), at most once per key. It runs after the
 * booking's answer, and a booking stands without its email: no verified sender, quota, pause or a
 * provider refusal are logged, never turned into a failed request.
 */
export async function sendBookingEmail(ctx: SendContext, bookingId: string, email: BookingEmail): Promise<void> {
  try {
    // The message leaves after the booking's answer: an erasure of the invitee meanwhile (its address scrubbed) cancels it.
    const [current] = await ctx.db
      .select({ email: bookings.inviteeEmail })
      .from(bookings)
      .where(and(eq(bookings.workspaceId, ctx.ws.id), eq(bookings.id, bookingId)));
    if (!current || current.email === '') return;
    const { message } = email;
    await sendEmail(ctx, {
      to: message.to,
      message: { subject: message.subject, html: message.html, text: message.text },
      source: 'booking',
      idempotencyKey: email.key,
      attachments: email.attachments,
    });
  } catch (err) {
    console.warn(`booking ${bookingId}: ${email.key} email not sent`, err instanceof Error ? err.message : err);
  }
}

/**
 * The message of a booking's confirmation, reschedule or cancellation, with the calendar event as
 * `invite.ics`: `METHOD:REQUEST` for the first two, `METHOD:CANCEL` and `STATUS:CANCELLED` for the
 * last, under the booking's one `UID` and the row's `invite_sequence`. The organizer is the host
 * (by name) at the workspace's default sender address; its key names the booking, the kind and the
 * sequence, so each message leaves once.
 */
export async function bookingEmailFor(
  ctx: ServiceContext,
  kind: BookingMessageKind,
  row: BookingRow,
  mt: Pick<MeetingTypeRow, 'name' | 'durationMinutes' | 'locationType'>,
  members: Map<string, Member>,
  base: string,
  linkSecret?: string,
): Promise<BookingEmail> {
  const secret = linkSecret ?? (await bookingSettingsOf(ctx.db, ctx.ws.id)).linkSecret;
  const manage = await manageUrlWith(secret, ctx.ws.id, base, row.id);
  const message = bookingMessageFor(kind, row, mt, members, manage);
  const [sender] = await readSender(ctx.db, ctx.ws.id, undefined);
  const attachments = sender
    ? [
        inviteAttachment({
          bookingId: row.id,
          base,
          method: kind === 'cancellation' ? 'CANCEL' : 'REQUEST',
          sequence: row.inviteSequence,
          startAt: row.startAt,
          endAt: row.endAt,
          summary: mt.name,
          location: row.joinUrl ?? mt.locationType,
          description: message.text,
          url: manage,
          organizer: { name: members.get(row.hostUserId)?.name ?? sender.from_name ?? fromEmail(sender), email: fromEmail(sender) },
          attendee: { name: row.inviteeName, email: row.inviteeEmail },
          stamp: new Date(),
        }),
      ]
    : [];
  return { key: `booking:${row.id}:${kind}:${row.inviteSequence}`, message, attachments };
}

/** Renders and sends a booking's message once the answer has left (`notify.defer`). */
export function notifyInvitee(
  ctx: ServiceContext,
  notify: BookingNotify,
  kind: BookingMessageKind,
  row: BookingRow,
  mt: Pick<MeetingTypeRow, 'name' | 'durationMinutes' | 'locationType'>,
  members: Map<string, Member>,
  linkSecret?: string,
): void {
  notify.defer(async () => {
    try {
      const email = await bookingEmailFor(ctx, kind, row, mt, members, notify.base, linkSecret);
      await sendBookingEmail({ ...ctx, env: notify.env, baseUrl: notify.base }, row.id, email);
    } catch (err) {
      console.warn(`booking ${row.id}: ${kind} email not sent`, err instanceof Error ? err.message : err);
    }
  });
}
