import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { confirmationFor, manageUrl } from '../../src/modules/bookings/confirmation';
import { membersById } from '../../src/modules/bookings/meeting-types';
import { shardDb } from '../../src/platform/d1/shards';
import { admin, adminOk, call, eventually, freshIp } from '../support/harness';
import { BAD_SUBJECTS } from '../email/support';
import { rowsIn } from '../support/db';
import { book, futureHour, invitee, setupType, bookingSender } from './helpers';

/** A browser's form post, redirects not followed; each from an IP of its own, so the page's per-IP limit stays out of the way. */
async function form(path: string, fields: Record<string, string>) {
  const headers = { 'content-type': 'application/x-www-form-urlencoded', 'cf-connecting-ip': freshIp() };
  const res: Response = await (exports as any).default.fetch(
    new Request(`https://api.test${path}`, { method: 'POST', body: new URLSearchParams(fields).toString(), headers, redirect: 'manual' }),
  );
  return { status: res.status, headers: res.headers, body: await res.text() };
}

const dayOf = (iso: string) => iso.slice(0, 10);

describe('hosted booking page', () => {
  it('shows open times of a day in the invitee zone, books (source public_page) and lands on the manage page, where the invitee cancels', async () => {
    const { ws, mt } = await setupType();
    const embed = (await ws.api('GET', `/v1/meeting-types/${mt.id}/embed`)).body;
    const pagePath = new URL(embed.page_url).pathname;
    const start = futureHour(1);
    const page = await call('GET', `${pagePath}?tz=Asia/Kolkata&day=${dayOf(start)}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.body).toContain('Intro call');
    expect(page.body).toContain(`value="${start}"`);
    expect(page.body).toContain('4:00 PM'); // 10:30 UTC, shown in Kolkata time
    expect(page.body).not.toMatch(/https?:\/\/(?!api\.test)/); // no external hosts

    const res = await form(pagePath, {
      start_at: start,
      timezone: 'Asia/Kolkata',
      name: 'Page Person',
      email: `page-${crypto.randomUUID().slice(0, 6)}@example.com`,
    });
    expect(res.status, String(res.body).slice(0, 3000)).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(new RegExp(`^https://api\\.test/book/${ws.id}/manage/[0-9a-f-]{36}\\.[A-Za-z0-9_-]{32}\\?booked=1$`));
    const [row] = await rowsIn(ws.id, 'SELECT id, source, invitee_timezone, status FROM bookings WHERE workspace_id = ?', ws.id);
    expect(row).toMatchObject({ source: 'public_page', invitee_timezone: 'Asia/Kolkata', status: 'confirmed' });
    // The token never shows in the API.
    const token = new URL(location).pathname.split('/').pop()!;
    expect(JSON.stringify((await ws.api('GET', `/v1/bookings/${row.id}`)).body)).not.toContain(token.split('.')[1]);

    const manage = await call('GET', `${new URL(location).pathname}?booked=1`);
    expect(manage.status).toBe(200);
    expect(manage.body).toContain('You are booked');
    expect(manage.body).toContain('Page Person');
    expect(manage.body).toContain('Cancel booking');
    // A tampered token is a 404 page.
    expect((await call('GET', `${new URL(location).pathname.slice(0, -3)}AAA`)).status).toBe(404);

    // Cancelling takes a second step: a post without the confirm step's field shows that step and changes nothing.
    const unconfirmed = await form(`${new URL(location).pathname}/cancel`, { reason: 'Cannot make it' });
    expect(unconfirmed.status).toBe(200);
    expect(unconfirmed.body).toContain('Yes, cancel booking');
    expect(unconfirmed.body).toContain('value="Cannot make it"');
    expect((await ws.api('GET', `/v1/bookings/${row.id}`)).body.status).toBe('confirmed');
    const cancelled = await form(`${new URL(location).pathname}/cancel`, { reason: 'Cannot make it', confirm: 'yes' });
    expect(cancelled.status).toBe(303);
    const after = await ws.api('GET', `/v1/bookings/${row.id}`);
    expect(after.body).toMatchObject({ status: 'cancelled', cancelled_by: 'invitee', cancellation_reason: 'Cannot make it' });
    expect((await call('GET', new URL(location).pathname)).body).not.toContain('Cancel booking');
  });

  it('a taken slot re-renders the page with a message (409); missing fields 400', async () => {
    const { ws, mt } = await setupType();
    const start = futureHour(2);
    await book(ws, { meeting_type_id: mt.id, start_at: start, invitee: invitee() });
    const path = `/book/${ws.id}/${mt.slug}`;
    const res = await form(path, { start_at: start, timezone: 'UTC', name: 'Late', email: 'late@example.com' });
    expect(res.status).toBe(409);
    expect(res.body).toContain('That time was just taken');
    expect((await form(path, { start_at: start, timezone: 'UTC' })).status).toBe(400);
    expect((await form(path, { start_at: 'garbage', timezone: 'UTC', name: 'N', email: 'n@example.com' })).status).toBe(400);
    expect((await call('GET', `/book/${ws.id}/no-such-type`)).status).toBe(404);
    expect((await call('GET', `/book/${crypto.randomUUID()}/${mt.slug}`)).status).toBe(404);
    // Paths shaped like the script or a manage page, under another name, are not pages at all.
    for (const [method, path] of [
      ['GET', '/book/embed.css'],
      ['GET', `/book/${ws.id}/${mt.slug}/token`],
      ['POST', `/book/${ws.id}/${mt.slug}/token/cancel`],
    ]) {
      const res = await call(method, path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, message: `Cannot ${method} ${path}` });
    }
  });

  it('through the embed: the snippet script, source embed with the current key, and a rotated key stops working', async () => {
    const { ws, mt } = await setupType();
    const embed = (await ws.api('GET', `/v1/meeting-types/${mt.id}/embed`)).body;
    const script = await call('GET', '/book/embed.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    const path = `/book/${ws.id}/${mt.slug}`;
    const framed = await call('GET', `${path}?embed_key=${embed.embed_key}&tz=UTC`);
    expect(framed.status).toBe(200);
    // Without a day the page opens on the first day with open times, and keeps the key in its forms.
    expect(framed.body).toContain('name="start_at"');
    expect(framed.body).toContain(`name="embed_key" value="${embed.embed_key}"`);
    const res = await form(path, {
      start_at: futureHour(3),
      timezone: 'UTC',
      name: 'Embed Person',
      email: 'embed@example.com',
      embed_key: embed.embed_key,
    });
    // The frame shows the booking; the manage page opens outside it.
    expect(res.status).toBe(200);
    expect(res.body).toContain('See, reschedule or cancel your booking');
    const [row] = await rowsIn(ws.id, 'SELECT source FROM bookings WHERE workspace_id = ?', ws.id);
    expect(row.source).toBe('embed');
    await adminOk('POST', `/workspaces/${ws.id}/embed-key/rotate`, {});
    expect((await call('GET', `${path}?embed_key=${embed.embed_key}`)).status).toBe(403);
    expect(
      (await form(path, { start_at: futureHour(4), timezone: 'UTC', name: 'Old Snippet', email: 'old@example.com', embed_key: embed.embed_key }))
        .status,
    ).toBe(403);
  });
});

describe('manage token', () => {
  it('is exactly `<booking id>.<signature>`: a token with more segments is a 404 page, and its cancel changes nothing', async () => {
    const { ws, mt } = await setupType();
    const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(5), invitee: invitee() });
    const [{ shard }] = (await (env as any).DB.prepare('SELECT shard FROM workspaces WHERE id = ?').bind(ws.id).all()).results;
    const path = new URL(await manageUrl(shardDb(env as any, shard), ws.id, 'https://api.test', b.body.id)).pathname;
    expect((await call('GET', path)).status).toBe(200);
    for (const extra of ['.x', '.', '..', '.AAAA.BBBB']) {
      const page = await call('GET', `${path}${extra}`);
      expect(page.status, extra).toBe(404);
      expect(page.body).toContain('This booking page does not exist');
      expect((await form(`${path}${extra}/cancel`, { reason: 'extra segment' })).status, extra).toBe(404);
    }
    expect((await ws.api('GET', `/v1/bookings/${b.body.id}`)).body.status).toBe('confirmed');
  });
});

describe('confirmation email', () => {
  it('renders subject, html, text, recipient and a manage link that opens the manage page', async () => {
    const { ws, mt, hosts } = await setupType();
    const b = await book(ws, {
      meeting_type_id: mt.id,
      start_at: futureHour(),
      invitee: { name: 'Mail <Me>', email: 'mail-me@example.com' },
      timezone: 'Europe/Berlin',
    });
    const [{ shard }] = (await (env as any).DB.prepare('SELECT shard FROM workspaces WHERE id = ?').bind(ws.id).all()).results;
    const db = shardDb(env as any, shard);
    const url = await manageUrl(db, ws.id, 'https://api.test', b.body.id);
    const [row] = await rowsIn(ws.id, 'SELECT * FROM bookings WHERE id = ?', b.body.id);
    const message = confirmationFor(
      {
        ...row,
        inviteeName: row.invitee_name,
        inviteeEmail: row.invitee_email,
        startAt: row.start_at,
        inviteeTimezone: row.invitee_timezone,
        hostUserId: row.host_user_id,
      },
      { name: 'Intro call', durationMinutes: 30, locationType: 'video' },
      membersById([{ id: hosts[0].id, name: 'Host 1', active: true }]),
      url,
    );
    expect(message.to).toBe('mail-me@example.com');
    expect(message.subject).toContain('Intro call');
    expect(message.text).toContain(url);
    expect(message.html).toContain('Mail &lt;Me&gt;');
    expect(message.html).toContain('(Europe/Berlin)');
    const manage = await call('GET', new URL(url).pathname);
    expect(manage.status).toBe(200);
    expect(manage.body).toContain('Mail &lt;Me&gt;');
  });

  it('is sent to the invitee through the send path once a booking is made, with the manage link', async () => {
    const { ws, mt } = await setupType();
    await bookingSender(ws.id);
    const who = invitee('confirm');
    const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: who });
    expect(b.status).toBe(201);
    const outbox = async () => (await adminOk('GET', `/workspaces/${ws.id}/outbox?channel=email&to=${encodeURIComponent(who.email)}`)).data as any[];
    const [mail] = await eventually(outbox, (rows) => rows.length === 1);
    expect(mail).toMatchObject({ to: who.email, from: 'Bookings <book@mail.example.com>' });
    expect(mail.subject).toContain('Confirmed:');
    const link = /https:\/\/api\.test\/book\/[^\s"<]+\/manage\/[^\s"<]+/.exec(mail.text)![0];
    const manage = await call('GET', new URL(link).pathname);
    expect(manage.status).toBe(200);
    // A booking's confirmation is not an API send: no email.* events, and it is recorded with its source.
    expect(await rowsIn(ws.id, 'SELECT source FROM email_sends WHERE workspace_id = ? AND "to" = ?', ws.id, who.email)).toEqual([
      { source: 'booking' },
    ]);

    // A double submit answers the existing booking and sends nothing again.
    expect((await book(ws, { meeting_type_id: mt.id, start_at: b.body.start_at, invitee: who, contact_id: b.body.contact_id })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    expect(await outbox()).toHaveLength(1);
  });

  it('a workspace without a verified sender still books; the confirmation is skipped', async () => {
    const { ws, mt } = await setupType();
    const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee('nosender') });
    expect(b.status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    expect(await rowsIn(ws.id, 'SELECT id FROM email_sends WHERE workspace_id = ?', ws.id)).toEqual([]);
    expect((await ws.api('GET', `/v1/bookings/${b.body.id}`)).body.status).toBe('confirmed');
  });

  it('the meeting type name refuses control characters at write (400), and a stored one reaches the subject on one line', async () => {
    const { ws, mt, hosts } = await setupType();
    // The name is trimmed first: control characters inside it are what the rule refuses.
    for (const name of BAD_SUBJECTS.map((s) => `${s} call`)) {
      const res = await admin('POST', `/workspaces/${ws.id}/meeting-types`, {
        name,
        slug: `bad-${crypto.randomUUID().slice(0, 8)}`,
        duration_minutes: 30,
        scheduling_kind: 'one_on_one',
        host_user_ids: [hosts[0].id],
        timezone: 'UTC',
      });
      expect(res.status, JSON.stringify(name)).toBe(400);
      expect(res.body.message).toEqual(['name: name must not contain line breaks or control characters']);
    }
    await bookingSender(ws.id);
    await rowsIn(ws.id, 'UPDATE meeting_types SET name = ? WHERE id = ?', 'Intro\r\nBcc: victim@example.com\u0000\u001b call', mt.id);
    const who = invitee('header');
    expect((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: who })).status).toBe(201);
    const [mail] = await eventually(
      async () => (await adminOk('GET', `/workspaces/${ws.id}/outbox?channel=email&to=${encodeURIComponent(who.email)}`)).data as any[],
      (rows) => rows.length === 1,
    );
    expect(mail.subject).toMatch(/^Confirmed: Intro Bcc: victim@example\.com call on /);
    expect(mail.subject).not.toMatch(/\p{Cc}/u);
    expect(mail.from).toBe('Bookings <book@mail.example.com>');
  });
});
