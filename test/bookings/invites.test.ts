import { env } from 'cloudflare:workers';
import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { inviteAttachment, inviteIcs, type InviteEvent } from '../../src/modules/bookings/invite';
import { RESEND_API, resendEmailProvider } from '../../src/providers/email/resend';
import { adminOk, eventually } from '../support/harness';
import { book, futureHour, invitee, setupType, bookingSender } from './helpers';

const event = (over: Partial<InviteEvent> = {}): InviteEvent => ({
  bookingId: '0196f0a0-0000-7000-8000-000000000001',
  base: 'https://book.example.com',
  method: 'REQUEST',
  sequence: 0,
  startAt: '2026-12-02T10:00:00.000Z',
  endAt: '2026-12-02T10:30:00.000Z',
  summary: 'Intro call',
  location: 'video',
  description: 'Your booking is confirmed.',
  url: 'https://book.example.com/book/ws/manage/abc.def',
  organizer: { name: 'Host 1', email: 'book@mail.example.com' },
  attendee: { name: 'Ada Lovelace', email: 'ada@example.com' },
  stamp: new Date('2026-11-27T12:00:00.000Z'),
  ...over,
});

/** The one VEVENT of an iCalendar text, parsed by ical.js, with the calendar's METHOD. */
function parsed(ics: string) {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const vevent = calendar.getFirstSubcomponent('vevent')!;
  return {
    calendar,
    vevent,
    prop: (name: string) => vevent.getFirstPropertyValue(name),
    sequence: () => Number(vevent.getFirstPropertyValue('sequence')),
  };
}

const decode = (base64: string) => new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));

describe('the iCalendar writer (RFC 5545)', () => {
  it('writes every property of a booking event, and ical.js reads each back', () => {
    const ics = inviteIcs(event());
    const { calendar, vevent, prop } = parsed(ics);
    expect(calendar.getFirstPropertyValue('method')).toBe('REQUEST');
    expect(calendar.getFirstPropertyValue('version')).toBe('2.0');
    expect(prop('uid')).toBe('0196f0a0-0000-7000-8000-000000000001@book.example.com');
    // The host name only: a port of the public origin stays out of the UID.
    expect(parsed(inviteIcs(event({ base: 'http://127.0.0.1:8792' }))).prop('uid')).toBe('0196f0a0-0000-7000-8000-000000000001@127.0.0.1');
    expect(prop('sequence')).toBe(0);
    expect(prop('status')).toBe('CONFIRMED');
    expect(prop('summary')).toBe('Intro call');
    expect(prop('location')).toBe('video');
    expect(prop('description')).toBe('Your booking is confirmed.');
    expect(prop('url')).toBe('https://book.example.com/book/ws/manage/abc.def');
    expect((prop('dtstamp') as ICAL.Time).toString()).toBe('2026-11-27T12:00:00Z');
    const start = prop('dtstart') as ICAL.Time;
    expect(start.toString()).toBe('2026-12-02T10:00:00Z');
    expect(start.zone?.tzid).toBe('UTC');
    expect((prop('dtend') as ICAL.Time).toString()).toBe('2026-12-02T10:30:00Z');
    expect(ics).toContain('\r\nDTSTART:20261202T100000Z\r\n');
    const organizer = vevent.getFirstProperty('organizer')!;
    // The URI scheme is case-insensitive (RFC 3986 3.1).
    expect(String(organizer.getFirstValue()).toLowerCase()).toBe('mailto:book@mail.example.com');
    expect(organizer.getParameter('cn')).toBe('Host 1');
    const attendee = vevent.getFirstProperty('attendee')!;
    expect(String(attendee.getFirstValue()).toLowerCase()).toBe('mailto:ada@example.com');
    expect(attendee.getParameter('rsvp')).toBe('TRUE');
    expect(attendee.getParameter('cn')).toBe('Ada Lovelace');
  });

  it('a cancellation is METHOD:CANCEL with STATUS:CANCELLED under the same UID', () => {
    const { calendar, prop } = parsed(inviteIcs(event({ method: 'CANCEL', sequence: 2 })));
    expect(calendar.getFirstPropertyValue('method')).toBe('CANCEL');
    expect(prop('status')).toBe('CANCELLED');
    expect(prop('sequence')).toBe(2);
    expect(prop('uid')).toBe(parsed(inviteIcs(event())).prop('uid'));
  });

  it('ends lines in CRLF, folds them at 75 octets (never inside a character) and escapes text', () => {
    const description = `${'Ünïcödé – agenda; items, and a back\\slash. '.repeat(8)}\nSecond line`;
    const summary = 'Intro; call, with "quotes" and ✓ marks';
    const ics = inviteIcs(event({ description, summary, attendee: { name: 'Ørsted, Hans; Jr.', email: 'hans@example.com' } }));
    expect(ics.endsWith('\r\n')).toBe(true);
    expect(ics.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    const lines = ics.split('\r\n');
    const bytes = (s: string) => new TextEncoder().encode(s).byteLength;
    for (const line of lines) expect(bytes(line)).toBeLessThanOrEqual(75);
    expect(lines.some((l) => l.startsWith(' '))).toBe(true);
    // Unfolded, the raw text holds the escapes of RFC 5545 3.3.11.
    const unfolded = ics.replace(/\r\n[ \t]/g, '');
    expect(unfolded).toContain('SUMMARY:Intro\\; call\\, with "quotes" and ✓ marks');
    expect(unfolded).toContain('agenda\\; items\\, and a back\\\\slash.');
    expect(unfolded).toContain('\\nSecond line');
    // No fold splits a multi-byte character: every line is valid UTF-8 text on its own.
    for (const line of lines) expect(new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(new TextEncoder().encode(line))).toBe(line);
    const { prop, vevent } = parsed(ics);
    expect(prop('description')).toBe(description);
    expect(prop('summary')).toBe(summary);
    expect(vevent.getFirstProperty('attendee')!.getParameter('cn')).toBe('Ørsted, Hans; Jr.');
  });

  it('the attachment is invite.ics, text/calendar with the method, the text in base64', () => {
    const file = inviteAttachment(event({ summary: 'Café ☕' }));
    expect(file.filename).toBe('invite.ics');
    expect(file.content_type).toBe('text/calendar; method=REQUEST');
    expect(parsed(decode(file.content_base64)).prop('summary')).toBe('Café ☕');
    expect(inviteAttachment(event({ method: 'CANCEL' })).content_type).toBe('text/calendar; method=CANCEL');
  });
});

type OutboxRow = { subject: string; text: string; attachments: { filename: string; content_type: string; content_base64: string }[] };

describe('booking emails carry the calendar event', () => {
  it('confirmation (REQUEST, SEQUENCE 0), reschedule (REQUEST, same UID, higher SEQUENCE) and cancellation (CANCEL), each once', async () => {
    const { ws, mt } = await setupType();
    await bookingSender(ws.id);
    const who = invitee('ics');
    const mails = (n: number) =>
      eventually(
        async () =>
          ((await adminOk('GET', `/workspaces/${ws.id}/outbox?channel=email&to=${encodeURIComponent(who.email)}`)).data as OutboxRow[]).reverse(),
        (rows) => rows.length >= n,
      );
    const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: who });
    expect(b.status).toBe(201);
    const [confirmation] = await mails(1);
    expect(confirmation.subject).toMatch(/^Confirmed: Intro call on /);
    expect(confirmation.attachments).toHaveLength(1);
    expect(confirmation.attachments[0]).toMatchObject({ filename: 'invite.ics', content_type: 'text/calendar; method=REQUEST' });
    const first = parsed(decode(confirmation.attachments[0].content_base64));
    expect(first.calendar.getFirstPropertyValue('method')).toBe('REQUEST');
    expect(first.prop('sequence')).toBe(0);
    expect(first.prop('status')).toBe('CONFIRMED');
    expect(first.prop('summary')).toBe('Intro call');
    // The UID: the booking id at the host name of the service's public origin (the manage link's).
    expect(first.prop('uid')).toBe(`${b.body.id}@${new URL(String(first.prop('url'))).hostname}`);
    expect((first.prop('dtstart') as ICAL.Time).toJSDate().toISOString()).toBe(futureHour());
    expect(String(first.vevent.getFirstProperty('attendee')!.getFirstValue()).toLowerCase()).toBe(`mailto:${who.email}`);
    expect(String(first.vevent.getFirstProperty('organizer')!.getFirstValue()).toLowerCase()).toBe('mailto:book@mail.example.com');
    expect(String(first.prop('url'))).toContain(`/book/${ws.id}/manage/${b.body.id}.`);

    const moved = await ws.api('POST', `/v1/bookings/${b.body.id}/reschedule`, { start_at: futureHour(1) });
    expect(moved.status).toBe(201);
    const [, reschedule] = await mails(2);
    expect(reschedule.subject).toMatch(/^Rescheduled: Intro call on /);
    expect(reschedule.text).toContain('Was: ');
    expect(reschedule.attachments[0].content_type).toBe('text/calendar; method=REQUEST');
    const second = parsed(decode(reschedule.attachments[0].content_base64));
    expect(second.calendar.getFirstPropertyValue('method')).toBe('REQUEST');
    expect(second.prop('uid')).toBe(first.prop('uid'));
    expect(second.sequence()).toBeGreaterThan(first.sequence());
    expect((second.prop('dtstart') as ICAL.Time).toJSDate().toISOString()).toBe(futureHour(1));

    const cancelled = await ws.api('POST', `/v1/bookings/${b.body.id}/cancel`, { reason: 'Host is ill' });
    expect(cancelled.status).toBe(201);
    const all = await mails(3);
    const cancellation = all[2];
    expect(cancellation.subject).toMatch(/^Cancelled: Intro call on /);
    expect(cancellation.text).toContain('Reason given: Host is ill');
    expect(cancellation.attachments[0].content_type).toBe('text/calendar; method=CANCEL');
    const third = parsed(decode(cancellation.attachments[0].content_base64));
    expect(third.calendar.getFirstPropertyValue('method')).toBe('CANCEL');
    expect(third.prop('status')).toBe('CANCELLED');
    expect(third.prop('uid')).toBe(first.prop('uid'));
    expect(third.sequence()).toBeGreaterThan(second.sequence());

    // Each message once: three rows, one per kind.
    expect(all.map((m) => m.subject.split(':')[0])).toEqual(['Confirmed', 'Rescheduled', 'Cancelled']);

    // Sending a message again under its key (a retried deferral) adds nothing: the key is claimed once.
    const { sendBookingEmail } = await import('../../src/modules/bookings/notifications');
    const { workspaceContext } = await import('../../src/modules/workspaces/context');
    const ctx = { ...(await workspaceContext(env as never, ws.id)), env: env as never, baseUrl: 'https://api.test' };
    const again = { to: who.email, subject: 'Again', html: '<p>Again</p>', text: 'Again', manage_url: 'https://api.test/m' };
    for (const key of [`booking:${b.body.id}:confirmation:0`, `booking:${b.body.id}:reschedule:1`, `booking:${b.body.id}:cancellation:2`])
      await sendBookingEmail(ctx, b.body.id, { key, message: again, attachments: [] });
    const after = (await adminOk('GET', `/workspaces/${ws.id}/outbox?channel=email&to=${encodeURIComponent(who.email)}`)).data as OutboxRow[];
    expect(after).toHaveLength(3);
    expect(after.some((m) => m.subject === 'Again')).toBe(false);
  });
});

describe('the Resend adapter sends attachments', () => {
  it('in Resend wire shape: attachments [{filename, content (base64), content_type}]', async () => {
    const seen: RequestInit[] = [];
    const fake = (async (_url: string, init: RequestInit) => {
      seen.push(init);
      return Response.json({ id: 'resend-id-1' });
    }) as unknown as typeof fetch;
    const file = inviteAttachment(event());
    const message = {
      from: 'Bookings <book@mail.example.com>',
      to: 'ada@example.com',
      replyTo: null,
      subject: 'Confirmed',
      html: '<p>Confirmed</p>',
      text: 'Confirmed',
      headers: {},
      attachments: [file],
      workspaceId: crypto.randomUUID(),
      sendId: crypto.randomUUID(),
    };
    const ctx = { env: { ...env, RESEND_API_KEY: 're_test_key' }, db: null as never, workspaceId: message.workspaceId };
    await resendEmailProvider(fake).send(ctx, message, 'ws:key');
    await resendEmailProvider(fake).sendBatch(ctx, [{ message, idempotencyKey: 'ws:key-b' }]);
    const wire = [{ filename: 'invite.ics', content: file.content_base64, content_type: 'text/calendar; method=REQUEST' }];
    expect(JSON.parse(seen[0].body as string).attachments).toEqual(wire);
    expect(JSON.parse(seen[1].body as string)[0].attachments).toEqual(wire);
    // A message without files sends no `attachments` field.
    await resendEmailProvider(fake).send(ctx, { ...message, attachments: [] }, 'ws:key-2');
    expect(JSON.parse(seen[2].body as string)).not.toHaveProperty('attachments');
    expect(RESEND_API).toBe('https://api.resend.com');
  });
});
