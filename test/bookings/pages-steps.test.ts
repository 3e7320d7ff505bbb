import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { inviteeTime } from '../../src/modules/bookings/confirmation';
import { HEIGHT_SCRIPT, ZONE_SCRIPT } from '../../src/modules/bookings/pages-ui';
import { adminOk, call, eventually, freshIp } from '../support/harness';
import { rowsIn } from '../support/db';
import { book, futureHour, invitee, setupType, bookingSender } from './helpers';

/** A browser's form post, redirects not followed, from an IP of its own. */
async function form(path: string, fields: Record<string, string>) {
  const headers = { 'content-type': 'application/x-www-form-urlencoded', 'cf-connecting-ip': freshIp() };
  const res: Response = await (exports as any).default.fetch(
    new Request(`https://api.test${path}`, { method: 'POST', body: new URLSearchParams(fields).toString(), headers, redirect: 'manual' }),
  );
  return { status: res.status, headers: res.headers, body: await res.text() };
}

const hashOf = async (script: string) =>
  `'sha256-${btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(script)))))}'`;

const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** The Monday of the UTC week holding `day`. */
const mondayOf = (day: string) => {
  const d = new Date(`${day}T00:00:00Z`);
  return utcDay(d.getTime() - ((d.getUTCDay() + 6) % 7) * 86_400_000);
};

/** A booking made through the page, and its manage path. */
async function pageBooking(start: string, timezone = 'UTC') {
  const setup = await setupType();
  const path = `/book/${setup.ws.id}/${setup.mt.slug}`;
  const res = await form(path, { start_at: start, timezone, name: 'Step Person', email: `step-${crypto.randomUUID().slice(0, 6)}@example.com` });
  expect(res.status, res.body.slice(0, 2000)).toBe(303);
  const manage = new URL(res.headers.get('location')!).pathname;
  const [row] = await rowsIn(setup.ws.id, 'SELECT id FROM bookings WHERE workspace_id = ?', setup.ws.id);
  return { ...setup, path, manage, id: row.id as string };
}

describe('booking page: zone and week', () => {
  it('offers the runtime zones in a select, with the detecting script allowed by its hash; a named zone is selected and needs no script', async () => {
    const { ws, mt } = await setupType();
    const path = `/book/${ws.id}/${mt.slug}`;
    const plain = await call('GET', path);
    expect(plain.status).toBe(200);
    expect(plain.body).toContain('<label class="f" for="tz">Your time zone</label><select id="tz" name="tz">');
    expect(plain.body).toContain('<option selected>UTC</option>');
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe'])
      expect(plain.body).toContain(`<option>${zone}</option>`);
    expect(plain.body).not.toContain('type="text" id="tz"');
    expect(plain.body).toContain(`<script>${ZONE_SCRIPT}</script>`);
    expect(ZONE_SCRIPT).toContain('resolvedOptions().timeZone');
    expect(plain.headers.get('content-security-policy')).toContain(await hashOf(ZONE_SCRIPT));
    // Buttons and fields take the page's font.
    expect(plain.body).toContain('button,input,select,textarea{font:inherit}');

    const named = await call('GET', `${path}?tz=Asia/Kolkata`);
    expect(named.body).toContain('<option selected>Asia/Kolkata</option>');
    expect(named.body).not.toContain('<option selected>UTC</option>');
    expect(named.body).not.toContain('<script>');
  });

  it('an unknown zone in the query or the form is a visible 400 error, never times in UTC', async () => {
    const { ws, mt } = await setupType();
    const path = `/book/${ws.id}/${mt.slug}`;
    const page = await call('GET', `${path}?tz=${encodeURIComponent('New York')}`);
    expect(page.status).toBe(400);
    expect(page.body).toContain('<p class="note err" role="alert">Unknown time zone &quot;New York&quot;. Pick your time zone from the list.</p>');
    expect(page.body).not.toContain('name="start_at"');
    expect(page.body).toContain('<select id="tz" name="tz">');

    const post = await form(path, { start_at: futureHour(1), timezone: 'New York', name: 'Zone', email: 'zone@example.com' });
    expect(post.status).toBe(400);
    expect(post.body).toContain('Unknown time zone &quot;New York&quot;');
    expect(await rowsIn(ws.id, 'SELECT id FROM bookings WHERE workspace_id = ?', ws.id)).toEqual([]);
  });

  it('shows the week of the chosen day with previous and next week links; today stays reachable', async () => {
    const { ws, mt } = await setupType();
    const path = `/book/${ws.id}/${mt.slug}`;
    const today = utcDay(Date.now());
    const monday = mondayOf(today);
    const nextMonday = utcDay(Date.parse(`${monday}T00:00:00Z`) + 7 * 86_400_000);

    const now = await call('GET', `${path}?tz=UTC&day=${today}`);
    expect(now.body).not.toContain('Previous week');
    expect(now.body).toContain(`href="?tz=UTC&amp;day=${nextMonday}" rel="next">Next week`);
    expect(now.body).toContain(`href="?tz=UTC&amp;day=${today}" class="on`);
    expect(now.body).toContain('aria-current="date"');

    // A day two weeks on: its week, a way back one week and to today.
    const later = utcDay(Date.parse(`${nextMonday}T00:00:00Z`) + 9 * 86_400_000);
    const laterMonday = mondayOf(later);
    const page = await call('GET', `${path}?tz=UTC&day=${later}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(
      `href="?tz=UTC&amp;day=${utcDay(Date.parse(`${laterMonday}T00:00:00Z`) - 7 * 86_400_000)}" rel="prev">&larr; Previous week`,
    );
    expect(page.body).toContain(`href="?tz=UTC&amp;day=${today}">Today</a>`);
    expect(page.body).toContain(`href="?tz=UTC&amp;day=${later}" class="on"`);
    for (let i = 0; i < 7; i++) expect(page.body).toContain(`day=${utcDay(Date.parse(`${laterMonday}T00:00:00Z`) + i * 86_400_000)}"`);
    // The previous week's link from next week lands on today, never on a past day.
    const next = await call('GET', `${path}?tz=UTC&day=${nextMonday}`);
    const prev = /href="\?tz=UTC&amp;day=([\d-]+)" rel="prev"/.exec(next.body)![1];
    expect(prev >= today).toBe(true);
    // A day in the past shows today's week.
    const past = await call('GET', `${path}?tz=UTC&day=2001-01-01`);
    expect(past.body).toContain(`href="?tz=UTC&amp;day=${today}" class="on`);
  });
});

describe('booking page: the first open week', () => {
  it('without a day, a week with no open times gives way to the next week that has some', async () => {
    // Eight days of notice: nothing is open this week.
    const { ws, mt } = await setupType({ type: { min_notice_minutes: 8 * 24 * 60 } });
    const page = await call('GET', `/book/${ws.id}/${mt.slug}?tz=UTC`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('name="start_at"');
    expect(page.body).toContain('rel="prev"');
    expect(page.body).toContain(`href="?tz=UTC&amp;day=${utcDay(Date.now())}">Today</a>`);
    // Asked for today, the page stays on today's week.
    const today = await call('GET', `/book/${ws.id}/${mt.slug}?tz=UTC&day=${utcDay(Date.now())}`);
    expect(today.body).not.toContain('name="start_at"');
    expect(today.body).toContain('No open times on this day.');
  });
});

describe('embed sizing', () => {
  it('the framed page posts its height (script allowed by hash); the embed script sets the iframe height from messages of the page origin only', async () => {
    const { ws, mt } = await setupType();
    const key = (await ws.api('GET', `/v1/meeting-types/${mt.id}/embed`)).body.embed_key;
    const framed = await call('GET', `/book/${ws.id}/${mt.slug}?embed_key=${key}&tz=UTC`);
    expect(framed.body).toContain(`<script>${HEIGHT_SCRIPT}</script>`);
    expect(HEIGHT_SCRIPT).toContain("parent.postMessage({type:'booking-embed:height',height:h},'*')");
    expect(HEIGHT_SCRIPT).toContain("addEventListener('resize',send)");
    expect(framed.headers.get('content-security-policy')).toContain(await hashOf(HEIGHT_SCRIPT));
    expect((await call('GET', `/book/${ws.id}/${mt.slug}?tz=UTC`)).body).not.toContain('postMessage');

    const script = (await call('GET', '/book/embed.js')).body as string;
    expect(script).toContain('var origin="https://api.test"');
    expect(script).toContain("window.addEventListener('message'");
    expect(script).toContain('if(e.origin!==origin)return;');
    expect(script).toContain('d.type!=="booking-embed:height"||typeof d.height!==\'number\'');
    expect(script).toContain('frames[j].contentWindow===e.source');
    expect(script).toContain('frames[j].style.height=');
    expect(script).not.toContain('minHeight');
  });
});

describe('manage page steps', () => {
  it('cancel asks first; after cancelling the page offers to book another time', async () => {
    const { ws, mt, manage, id } = await pageBooking(futureHour(1));
    const view = await call('GET', manage);
    expect(view.body).toContain(`href="${manage}?step=cancel">Cancel booking&hellip;</a>`);
    expect(view.body).not.toContain('method="post"');
    const step = await call('GET', `${manage}?step=cancel`);
    expect(step.status).toBe(200);
    expect(step.body).toContain('Cancel this booking?');
    expect(step.body).toContain(`<form method="post" action="${manage}/cancel"><input type="hidden" name="confirm" value="yes">`);
    expect(step.body).toContain(`<a href="${manage}">Keep my booking</a>`);
    expect((await ws.api('GET', `/v1/bookings/${id}`)).body.status).toBe('confirmed');

    const done = await form(`${manage}/cancel`, { confirm: 'yes', reason: 'Clash' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`https://api.test${manage}?cancelled=1`);
    expect((await ws.api('GET', `/v1/bookings/${id}`)).body).toMatchObject({
      status: 'cancelled',
      cancelled_by: 'invitee',
      cancellation_reason: 'Clash',
    });
    const after = await call('GET', `${manage}?cancelled=1`);
    expect(after.body).toContain('Your booking is cancelled.');
    expect(after.body).toContain(`href="/book/${ws.id}/${mt.slug}?tz=UTC">Book another time</a>`);
    expect(after.body).not.toContain('Add to Google Calendar');
    // The confirm step of a cancelled booking is the page itself.
    expect((await call('GET', `${manage}?step=cancel`)).body).not.toContain('Yes, cancel booking');
  });

  it('reschedules through the page to another open time: the booking moves, the same link shows the new time', async () => {
    const { ws, manage, id } = await pageBooking(futureHour(1), 'Europe/Berlin');
    const target = futureHour(3);
    const step = await call('GET', `${manage}?step=reschedule&tz=Europe/Berlin&day=${target.slice(0, 10)}`);
    expect(step.status).toBe(200);
    expect(step.body).toContain('<option selected>Europe/Berlin</option>');
    expect(step.body).toContain('Next week');
    expect(step.body).toContain(`value="${target}"`);
    expect(step.body).toContain(`<form method="post" action="${manage}/reschedule">`);

    const res = await form(`${manage}/reschedule`, { start_at: target, timezone: 'Europe/Berlin' });
    expect(res.status, res.body.slice(0, 2000)).toBe(303);
    expect(res.headers.get('location')).toBe(`https://api.test${manage}?rescheduled=1`);
    const moved = (await ws.api('GET', `/v1/bookings/${id}`)).body;
    expect(moved).toMatchObject({ start_at: target, status: 'confirmed', reschedule_count: 1 });
    const page = await call('GET', `${manage}?rescheduled=1`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Your booking is moved to the new time.');
    expect(page.body).toContain(inviteeTime(target, 'Europe/Berlin'));
  });

  it('a taken time answers the reschedule step with a visible 409 error and leaves the booking; an unknown zone is a 400', async () => {
    const { ws, mt, manage, id } = await pageBooking(futureHour(1));
    const taken = futureHour(4);
    await book(ws, { meeting_type_id: mt.id, start_at: taken, invitee: invitee() });
    const res = await form(`${manage}/reschedule`, { start_at: taken, timezone: 'UTC' });
    expect(res.status).toBe(409);
    expect(res.body).toContain('<p class="note err" role="alert">That time was just taken. Please pick another.</p>');
    expect(res.body).toContain('Reschedule: Intro call');
    expect((await ws.api('GET', `/v1/bookings/${id}`)).body).toMatchObject({ start_at: futureHour(1), reschedule_count: 0 });
    const zone = await form(`${manage}/reschedule`, { start_at: futureHour(5), timezone: 'Mars/Olympus' });
    expect(zone.status).toBe(400);
    expect(zone.body).toContain('Unknown time zone &quot;Mars/Olympus&quot;');
    expect((await call('GET', `${manage}?step=reschedule&tz=Nowhere`)).status).toBe(400);
    expect((await ws.api('GET', `/v1/bookings/${id}`)).body.start_at).toBe(futureHour(1));
    // Only cancel and reschedule are actions.
    expect((await form(`${manage}/delete`, {})).status).toBe(404);
  });

  it('the confirmation carries Google Calendar and Outlook links with the booking in UTC', async () => {
    const start = futureHour(2);
    const { manage } = await pageBooking(start, 'Asia/Kolkata');
    const end = new Date(Date.parse(start) + 30 * 60_000).toISOString();
    const stamp = (iso: string) => `${iso.slice(0, 19).replace(/[-:]/g, '')}Z`;
    const page = (await call('GET', `${manage}?booked=1`)).body as string;
    const google = /href="(https:\/\/calendar\.google\.com\/calendar\/render\?[^"]+)"/.exec(page)![1].replaceAll('&amp;', '&');
    const g = new URL(google).searchParams;
    expect(g.get('action')).toBe('TEMPLATE');
    expect(g.get('text')).toBe('Intro call');
    expect(g.get('dates')).toBe(`${stamp(start)}/${stamp(end)}`);
    expect(g.get('details')).toContain('Host 1');
    const outlook = /href="(https:\/\/outlook\.live\.com\/calendar\/0\/deeplink\/compose\?[^"]+)"/.exec(page)![1].replaceAll('&amp;', '&');
    const o = new URL(outlook).searchParams;
    expect(o.get('subject')).toBe('Intro call');
    expect(o.get('startdt')).toBe(`${start.slice(0, 19)}Z`);
    expect(o.get('enddt')).toBe(`${end.slice(0, 19)}Z`);
    // Links the person follows: nothing on the page loads from those hosts, and the manage token is not in them.
    expect(page).not.toMatch(/src="https?:/);
    expect(google + outlook).not.toContain(manage.split('/').pop()!);
  });
});

describe('manage page: the invitee is told of each change', () => {
  it('a reschedule and a cancel through the page each send the invitee its email and calendar update', async () => {
    const { ws, manage } = await pageBooking(futureHour(1));
    await bookingSender(ws.id);
    const [row] = await rowsIn(ws.id, 'SELECT invitee_email FROM bookings WHERE workspace_id = ?', ws.id);
    const mails = (n: number) =>
      eventually(
        async () =>
          (
            (await adminOk('GET', `/workspaces/${ws.id}/outbox?channel=email&to=${encodeURIComponent(row.invitee_email as string)}`)).data as {
              subject: string;
              attachments: { content_type: string }[];
            }[]
          ).filter((m) => !m.subject.startsWith('Confirmed')),
        (rows) => rows.length >= n,
      );
    expect((await form(`${manage}/reschedule`, { start_at: futureHour(3), timezone: 'UTC' })).status).toBe(303);
    const [moved] = await mails(1);
    expect(moved.subject).toMatch(/^Rescheduled: /);
    expect(moved.attachments[0].content_type).toBe('text/calendar; method=REQUEST');
    expect((await form(`${manage}/cancel`, { confirm: 'yes' })).status).toBe(303);
    const sent = await mails(2);
    expect(sent.map((m) => m.subject.split(':')[0]).sort()).toEqual(['Cancelled', 'Rescheduled']);
    expect(sent.find((m) => m.subject.startsWith('Cancelled'))!.attachments[0].content_type).toBe('text/calendar; method=CANCEL');
  });
});
