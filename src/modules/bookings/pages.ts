import { and, eq } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { Temporal } from 'temporal-polyfill';
import type { AppEnv } from '../../platform/app-env';
import { afterResponse } from '../../platform/after-response';
import type { ServiceContext } from '../../platform/context';
import { ApiError } from '../../platform/errors';
import { BookingErrors } from './errors';
import { publishCommitted } from '../../platform/outbox';
import { signalsCommitted } from '../../platform/signals';
import { escapeHtml as esc } from '../../platform/html';
import { publicWorkspaceContext } from '../workspaces';
import { inviteeTime, manageUrl, verifyManageToken } from './confirmation';
import { durableSlotLocks } from './locks';
import { notifyFrom } from './notifications';
import { bookingSettingsOf } from './booking-settings';
import { listSlots } from './slot-listing';
import { publicBaseUrl } from '../../platform/public-base';
import { countPublicBooking, limitPublicPost, refuse } from '../../platform/public-limits';
import { meetingTypes } from './schema';
import { cancelBooking } from './cancel-booking';
import { createBooking } from './create-booking';
import { getBooking } from './read';
import { rescheduleBooking } from './reschedule-booking';
import {
  calendarLinks,
  HEIGHT_MESSAGE,
  localDayOf,
  page,
  slotRadios,
  unknownZoneText,
  weekNav,
  weekOf,
  weekRange,
  ZONE_SCRIPT,
  zoneForm,
  zoneFrom,
} from './pages-ui';
import { FRAMEWORK_SURFACE } from '../../platform/error-surfaces';

/*
 * The hosted booking and manage pages: plain server-rendered HTML that works
 * without JavaScript (small scripts only fill in the browser's time zone and,
 * inside the embed, post the page's height), no external hosts. They call the
 * same services as the API.
 */

export const bookingPages = new Hono<AppEnv>();

const notFoundPage = (c: Context<AppEnv>, framed = false) =>
  page(c, 'Not found', '<h1>Not found</h1><p>This booking page does not exist.</p>', { status: 404, framed });

const publicContext = (c: Context<AppEnv>, wsId: string) => publicWorkspaceContext(c.env, wsId, 'booking');

const publish = (c: Context<AppEnv>, ctx: ServiceContext) => {
  if (ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, ctx.db, ctx.events.committed));
  if (ctx.events.signalled.size) c.executionCtx.waitUntil(signalsCommitted(c.env, ctx.events.signalled));
};

async function typeWhere(ctx: ServiceContext, by: { slug: string } | { id: string }) {
  const [row] = await ctx.db
    .select()
    .from(meetingTypes)
    .where(and(eq(meetingTypes.workspaceId, ctx.ws.id), 'slug' in by ? eq(meetingTypes.slug, by.slug) : eq(meetingTypes.id, by.id)))
    .limit(1);
  return row ?? null;
}

/** An embed key is valid only while it is the workspace's current one. */
async function embedSource(ctx: ServiceContext, key: string | undefined): Promise<'public_page' | 'embed' | 'stale'> {
  if (!key) return 'public_page';
  const settings = await bookingSettingsOf(ctx.db, ctx.ws.id);
  return key === settings.embedKey ? 'embed' : 'stale';
}

const staleEmbed = (c: Context<AppEnv>) =>
  page(c, 'Out of date', '<h1>This booking widget is out of date</h1><p>The site owner needs to paste the current booking snippet.</p>', {
    status: 403,
    framed: true,
  });

/** The invitee-local day of a submitted start, to show that day again; undefined when it does not parse. */
function localDay(start: string, zone: string): string | undefined {
  try {
    return localDayOf(start, zone);
  } catch {
    return undefined;
  }
}

type Notice = { text: string; status: 400 | 409 };
const noticeHtml = (notice: Notice | undefined) => (notice ? `<p class="note err" role="alert">${esc(notice.text)}</p>` : '');

/** What a refused booking or reschedule tells the invitee. */
const refusalText = (err: ApiError) =>
  err.entry.code === BookingErrors.slotTaken.requested.code
    ? 'That time was just taken. Please pick another.'
    : String(err.bodyOn(FRAMEWORK_SURFACE).message ?? 'That did not work.');

/**
 * The zone select, the week strip and the open times of the chosen day of a meeting type, from
 * one slots read of the week. Without an asked day it opens on the week's first day with open times.
 */
async function picker(ctx: ServiceContext, mtId: string, zone: string, dayParam: string | undefined, keep: Record<string, string | undefined>) {
  let { asked, week } = weekOf(dayParam, zone);
  const read = async () => {
    try {
      return (await listSlots(ctx.db, ctx.ws.id, mtId, weekRange(week, zone))).starts.map((ms) => new Date(ms).toISOString());
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return [];
    }
  };
  let starts = await read();
  // Without an asked day, a week with no open times gives way to the next (up to four weeks on; else this week).
  const thisWeek = { asked, week };
  for (let ahead = 1; !dayParam && !starts.length && ahead <= 4; ahead++) {
    ({ asked, week } = weekOf(week.monday.add({ days: 7 }).toString(), zone));
    starts = await read();
  }
  if (!starts.length) ({ asked, week } = thisWeek);
  const open = new Set(starts.map((s) => localDayOf(s, zone)));
  const day = dayParam ? asked : (week.days.find((d) => Temporal.PlainDate.compare(d, week.today) >= 0 && open.has(d.toString())) ?? asked);
  const slots = starts.filter((s) => localDayOf(s, zone) === day.toString());
  const href = (d: string) =>
    `?${new URLSearchParams(Object.entries({ ...keep, tz: zone, day: d }).filter((e): e is [string, string] => e[1] !== undefined)).toString()}`;
  const html = `${zoneForm(zone, { ...keep, day: day.toString() })}
${weekNav(week, day, open, href)}
<h2>${esc(day.toLocaleString('en-US', { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' }))}</h2>`;
  return { html, slots: slotRadios(slots, zone), any: slots.length > 0 };
}

const typeHead = (mt: { name: string; durationMinutes: number; locationType: string; description: string | null }) =>
  `<h1>${esc(mt.name)}</h1><p class="meta">${mt.durationMinutes} minutes &middot; ${esc(mt.locationType)}${mt.description ? ` &middot; ${esc(mt.description)}` : ''}</p>`;

async function renderBookingPage(
  c: Context<AppEnv>,
  ctx: ServiceContext,
  slug: string,
  q: { day?: string; tz?: string; embed_key?: string },
  notice?: Notice,
) {
  const mt = await typeWhere(ctx, { slug });
  const framed = q.embed_key !== undefined;
  if (!mt?.isActive) return notFoundPage(c, framed);
  const { zone, bad } = zoneFrom(q.tz);
  if (bad) {
    // A zone the runtime does not know is an error on the page, never times shown in another zone.
    const body = `${typeHead(mt)}${noticeHtml({ text: unknownZoneText(bad), status: 400 })}${zoneForm(zone, { day: q.day, embed_key: q.embed_key }, false)}`;
    return page(c, mt.name, body, { status: 400, framed });
  }
  const pick = await picker(ctx, mt.id, zone, q.day, { embed_key: q.embed_key });
  const body = `${typeHead(mt)}
${noticeHtml(notice)}
${pick.html}
<form method="post">${pick.slots}
<input type="hidden" name="timezone" value="${esc(zone)}">${q.embed_key ? `<input type="hidden" name="embed_key" value="${esc(q.embed_key)}">` : ''}
<label class="f" for="name">Your name</label><input type="text" id="name" name="name" required maxlength="200" autocomplete="name">
<label class="f" for="email">Email</label><input type="email" id="email" name="email" required maxlength="320" autocomplete="email">
<label class="f" for="notes">Notes (optional)</label><input type="text" id="notes" name="notes" maxlength="2000">
<button type="submit"${pick.any ? '' : ' disabled'}>Book</button></form>${q.tz ? '' : `<script>${ZONE_SCRIPT}</script>`}`;
  return page(c, mt.name, body, { status: notice?.status ?? 200, framed });
}

/** The end of a booking made in the embed: what was booked, and the manage page as a link that leaves the frame. */
function bookedInFrame(c: Context<AppEnv>, name: string, b: { start_at: string; invitee_timezone: string }, manage: string) {
  const body = `<p class="note ok" role="status">You are booked.</p><h1>${esc(name)}</h1><dl><dt>When</dt><dd>${esc(inviteeTime(b.start_at, b.invitee_timezone))}</dd></dl>
<p><a href="${esc(`${manage}?booked=1`)}" target="_blank" rel="noopener noreferrer">See, reschedule or cancel your booking</a> (opens in a new tab; keep the link).</p>`;
  return page(c, 'Booked', body, { framed: true });
}

/**
 * The snippet's script: each `[data-booking-embed]` element becomes an iframe of the booking page,
 * sized to the page's height as the page posts it (`{type: 'booking-embed:height', height}`), accepted
 * only from this service's origin and only from the iframe's own window.
 */
const embedScript = (base: string) =>
  `(function(){var origin=${JSON.stringify(new URL(base).origin)};var frames=[];var nodes=document.querySelectorAll('[data-booking-embed]');for(var i=0;i<nodes.length;i++){var n=nodes[i];if(n.getAttribute('data-booking-ready'))continue;n.setAttribute('data-booking-ready','1');var f=document.createElement('iframe');var tz='';try{tz=Intl.DateTimeFormat().resolvedOptions().timeZone||'';}catch(e){}f.src=${JSON.stringify(base)}+'/book/'+encodeURIComponent(n.getAttribute('data-workspace'))+'/'+encodeURIComponent(n.getAttribute('data-booking-embed'))+'?embed_key='+encodeURIComponent(n.getAttribute('data-key'))+(tz?'&tz='+encodeURIComponent(tz):'');f.style.width='100%';f.style.height='760px';f.style.border='0';f.title='Book a meeting';n.appendChild(f);frames.push(f);}if(!frames.length)return;window.addEventListener('message',function(e){if(e.origin!==origin)return;var d=e.data;if(!d||typeof d!=='object'||d.type!==${JSON.stringify(HEIGHT_MESSAGE)}||typeof d.height!=='number'||!isFinite(d.height))return;for(var j=0;j<frames.length;j++){if(frames[j].contentWindow===e.source){frames[j].style.height=Math.max(200,Math.min(Math.ceil(d.height),10000))+'px';}}});})();`;

/*
 * `/embed.js` and the manage pages (`/:ws/manage/:token`) are matched through
 * parameters (`/:file`, `/:ws/:page/:token`): a literal segment beside a
 * parameter (`/:ws`, `/:ws/:slug`) would stop the app's routes from compiling
 * into one regular expression, and every request would then be routed by
 * walking a tree instead.
 */
bookingPages.get('/:file', (c) => {
  if (c.req.param('file') !== 'embed.js') return c.notFound();
  c.header('Content-Type', 'text/javascript; charset=utf-8');
  c.header('Cache-Control', 'public, max-age=300');
  return c.body(embedScript(publicBaseUrl(c.env, c.req.url)));
});

const isManage = (c: Context<AppEnv>) => c.req.param('page') === 'manage';

/** The booking behind a manage URL, with its meeting type; null when the workspace or token does not hold. */
async function managed(c: Context<AppEnv>) {
  const ctx = await publicContext(c, c.req.param('ws') ?? '');
  if (!ctx) return null;
  const id = await verifyManageToken(ctx.db, ctx.ws.id, c.req.param('token') ?? '');
  if (!id) return null;
  const b = await getBooking(ctx, id);
  const mt = await typeWhere(ctx, { id: b.meeting_type_id });
  return { ctx, id, b, mt };
}

type Managed = NonNullable<Awaited<ReturnType<typeof managed>>>;

const manageBase = (c: Context<AppEnv>, m: Managed) => `${publicBaseUrl(c.env, c.req.url)}/book/${m.ctx.ws.id}/manage/${c.req.param('token')}`;

function manageSummary(m: Managed, heading: 'h1' | 'h2' = 'h1') {
  const { b, mt } = m;
  return `<${heading}>${esc(mt?.name ?? 'Your booking')}</${heading}>
<dl><dt>When</dt><dd>${esc(inviteeTime(b.start_at, b.invitee_timezone))}</dd><dt>Duration</dt><dd>${mt ? `${mt.durationMinutes} minutes` : ''}</dd><dt>With</dt><dd>${esc(b.hosts.map((h) => h.name).join(', '))}</dd><dt>Name</dt><dd>${esc(b.invitee_name)}</dd><dt>Email</dt><dd>${esc(b.invitee_email)}</dd><dt>Status</dt><dd>${esc(b.status)}</dd></dl>`;
}

/** The manage page: the booking, calendar links, and reschedule / cancel as second steps. */
function manageView(c: Context<AppEnv>, m: Managed) {
  const { b, mt } = m;
  const q = c.req.query();
  const path = c.req.path;
  const status =
    q.booked === '1'
      ? '<p class="note ok" role="status">You are booked. Keep this page: it is your link to see, reschedule or cancel the booking.</p>'
      : q.rescheduled === '1'
        ? '<p class="note ok" role="status">Your booking is moved to the new time.</p>'
        : q.cancelled === '1'
          ? '<p class="note ok" role="status">Your booking is cancelled.</p>'
          : '';
  const title = mt?.name ?? 'Meeting';
  const confirmed = b.status === 'confirmed';
  const links = confirmed ? calendarLinks(b, title, `${title} with ${b.hosts.map((h) => h.name).join(', ')}`, mt?.locationType ?? '') : '';
  const actions = confirmed
    ? `<p class="actions">${mt?.isActive ? `<a class="button" href="${esc(`${path}?step=reschedule&tz=${encodeURIComponent(b.invitee_timezone)}`)}">Reschedule</a>` : ''}<a class="button quiet" href="${esc(`${path}?step=cancel`)}">Cancel booking&hellip;</a></p>`
    : b.status === 'cancelled' && mt?.isActive
      ? `<p class="actions"><a class="button" href="${esc(`/book/${m.ctx.ws.id}/${mt.slug}?tz=${encodeURIComponent(b.invitee_timezone)}`)}">Book another time</a></p>`
      : '';
  return page(c, 'Your booking', `${status}${manageSummary(m)}${links}${actions}`);
}

/** The cancel step: what is cancelled, an optional reason, and an explicit confirm button. */
function cancelStep(c: Context<AppEnv>, m: Managed, reason = '') {
  const base = c.req.path.replace(/\/cancel$/, '');
  if (m.b.status !== 'confirmed') return c.redirect(base, 303);
  const body = `<h1>Cancel this booking?</h1>${manageSummary(m, 'h2')}
<form method="post" action="${esc(`${base}/cancel`)}"><input type="hidden" name="confirm" value="yes"><label class="f" for="reason">Reason (optional)</label><input type="text" id="reason" name="reason" maxlength="1000" value="${esc(reason)}">
<p class="actions"><button class="danger" type="submit">Yes, cancel booking</button><a href="${esc(base)}">Keep my booking</a></p></form>`;
  return page(c, 'Cancel booking', body);
}

/** The reschedule step: the same zone select and week strip as the booking page, over the meeting type's open times. */
async function rescheduleStep(c: Context<AppEnv>, m: Managed, q: { tz?: string; day?: string }, notice?: Notice) {
  const base = c.req.path.replace(/\/reschedule$/, '');
  const { b, mt } = m;
  if (b.status !== 'confirmed' || !mt?.isActive) return c.redirect(base, 303);
  const head = `<h1>Reschedule: ${esc(mt.name)}</h1><p class="meta">Now: ${esc(inviteeTime(b.start_at, b.invitee_timezone))}</p>`;
  const { zone, bad } = zoneFrom(q.tz);
  const back = `<p><a href="${esc(base)}">Back to my booking</a></p>`;
  if (bad) {
    const body = `${head}${noticeHtml({ text: unknownZoneText(bad), status: 400 })}${zoneForm(zone, { step: 'reschedule', day: q.day }, false)}${back}`;
    return page(c, 'Reschedule', body, { status: 400 });
  }
  const pick = await picker(m.ctx, mt.id, zone, q.day, { step: 'reschedule' });
  const body = `${head}${noticeHtml(notice)}${pick.html}
<form method="post" action="${esc(`${base}/reschedule`)}">${pick.slots}<input type="hidden" name="timezone" value="${esc(zone)}">
<p class="actions"><button type="submit"${pick.any ? '' : ' disabled'}>Move my booking</button><a href="${esc(base)}">Keep the current time</a></p></form>`;
  return page(c, 'Reschedule', body, { status: notice?.status ?? 200 });
}

bookingPages.get('/:ws/:page/:token', async (c) => {
  if (!isManage(c)) return c.notFound();
  const m = await managed(c);
  if (!m) return notFoundPage(c);
  const step = c.req.query('step');
  if (step === 'cancel') return cancelStep(c, m);
  if (step === 'reschedule') return rescheduleStep(c, m, c.req.query());
  return manageView(c, m);
});

/** The manage page's posts: `cancel` (with the confirm step's field) and `reschedule`. */
const manageAction = (action: 'cancel' | 'reschedule') => async (c: Context<AppEnv>) => {
  if (!isManage(c)) return c.notFound();
  const m = await managed(c);
  if (!m) return notFoundPage(c);
  const form = await c.req.parseBody();
  const field = (k: string) => (typeof form[k] === 'string' ? (form[k] as string).trim() : '');
  const back = manageBase(c, m);
  if (action === 'cancel') {
    const reason = field('reason') ? field('reason').slice(0, 1000) : undefined;
    // Without the confirm step's field nothing is cancelled: the post shows the confirm step.
    if (field('confirm') !== 'yes') return cancelStep(c, m, reason);
    try {
      await cancelBooking(m.ctx, m.id, { reason }, 'invitee', notifyFrom(c));
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 400) throw err;
    }
    publish(c, m.ctx);
    return c.redirect(`${back}?cancelled=1`, 303);
  }
  const zoneRaw = field('timezone');
  const { zone, bad } = zoneFrom(zoneRaw);
  if (bad) return rescheduleStep(c, m, { tz: zoneRaw });
  const start = field('start_at');
  const q = { tz: zone, day: localDay(start, zone) };
  if (!start) return rescheduleStep(c, m, q, { text: 'Pick a new time.', status: 400 });
  // Each move mails the invitee: moves spend the workspace's hourly booking budget, so a token cannot send mail unbounded.
  const refused = await countPublicBooking(c.env, m.ctx.ws);
  if (refused) return refuse(c, refused);
  try {
    await rescheduleBooking(m.ctx, durableSlotLocks(c.env, c.executionCtx), m.id, { start_at: start, timezone: zone }, notifyFrom(c));
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    // A cancelled or already moved booking: the step shows where it stands.
    return rescheduleStep(c, { ...m, b: await getBooking(m.ctx, m.id) }, q, { text: refusalText(err), status: err.status === 409 ? 409 : 400 });
  }
  publish(c, m.ctx);
  return c.redirect(`${back}?rescheduled=1`, 303);
};

bookingPages.post('/:ws/:page/:token/cancel', limitPublicPost('booking-manage'), manageAction('cancel'));
bookingPages.post('/:ws/:page/:token/reschedule', limitPublicPost('booking-manage'), manageAction('reschedule'));

bookingPages.get('/:ws/:slug', async (c) => {
  const q = c.req.query();
  const ctx = await publicContext(c, c.req.param('ws'));
  if (!ctx) return notFoundPage(c, q.embed_key !== undefined);
  if ((await embedSource(ctx, q.embed_key)) === 'stale') return staleEmbed(c);
  return renderBookingPage(c, ctx, c.req.param('slug'), q);
});

bookingPages.post('/:ws/:slug', limitPublicPost('booking'), async (c) => {
  const form = await c.req.parseBody();
  const field = (k: string) => (typeof form[k] === 'string' ? (form[k] as string).trim() : '');
  const embedKey = field('embed_key') || undefined;
  const ctx = await publicContext(c, c.req.param('ws'));
  if (!ctx) return notFoundPage(c, embedKey !== undefined);
  const source = await embedSource(ctx, embedKey);
  if (source === 'stale') return staleEmbed(c);
  const mt = await typeWhere(ctx, { slug: c.req.param('slug') });
  if (!mt?.isActive) return notFoundPage(c, source === 'embed');
  const zoneRaw = field('timezone');
  const { zone, bad } = zoneFrom(zoneRaw);
  // An unknown zone shows the page's zone error (400): nothing is booked in a zone the invitee did not pick.
  if (bad) return renderBookingPage(c, ctx, mt.slug, { tz: zoneRaw, embed_key: embedKey });
  const start = field('start_at');
  const q = { tz: zone, day: localDay(start, zone), embed_key: embedKey };
  if (!start || !field('name') || !field('email'))
    return renderBookingPage(c, ctx, mt.slug, q, { text: 'Pick a time and enter your name and email.', status: 400 });
  const refused = await countPublicBooking(c.env, ctx.ws);
  if (refused) return refuse(c, refused);
  const base = publicBaseUrl(c.env, c.req.url);
  try {
    const booking = await createBooking(
      ctx,
      durableSlotLocks(c.env, c.executionCtx),
      {
        meeting_type_id: mt.id,
        start_at: start,
        timezone: zone,
        invitee: { name: field('name').slice(0, 200), email: field('email') },
        ...(field('notes') ? { notes: field('notes').slice(0, 2000) } : {}),
      },
      { source, base, env: c.env, defer: afterResponse(c.executionCtx) },
    );
    publish(c, ctx);
    const manage = await manageUrl(ctx.db, ctx.ws.id, base, booking.id);
    // Inside the embed's frame the manage page (which refuses framing) opens in a tab of its own.
    if (source === 'embed') return bookedInFrame(c, mt.name, booking, manage);
    return c.redirect(`${manage}?booked=1`, 303);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500) throw err;
    return renderBookingPage(c, ctx, mt.slug, q, { text: refusalText(err), status: err.status === 409 ? 409 : 400 });
  }
});
