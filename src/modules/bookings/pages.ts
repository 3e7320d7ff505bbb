import { and, eq } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import { Temporal } from 'temporal-polyfill';
import type { AppEnv } from '../../env';
import { afterResponse } from '../../platform/after-response';
import type { ServiceContext } from '../../platform/context';
import { ApiError } from '../../platform/errors';
import { BookingErrors } from './errors';
import { publishCommitted } from '../../platform/events';
import { escapeHtml as esc } from '../../platform/html';
import { base64 } from '../../platform/ids';
import { isValidTimeZone } from '../../platform/timezones';
import { publicWorkspaceContext } from '../workspaces';
import { inviteeTime, manageUrl, verifyManageToken } from './confirmation';
import { durableSlotLocks } from './locks';
import { bookingSettingsOf, listSlots } from './meeting-types';
import { publicBaseUrl } from '../../platform/public-base';
import { countPublicBooking, limitPublicPost, refuse } from '../../platform/public-limits';
import { meetingTypes } from './schema';
import { cancelBooking, createBooking, getBooking } from './service';

/*
 * The hosted booking and manage pages: plain server-rendered HTML that works
 * without JavaScript (one small script only fills in the browser's time zone),
 * no external hosts. They call the same services as the API.
 */

export const bookingPages = new Hono<AppEnv>();

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1f2933;background:#f8fafc}
main{background:#fff;border:1px solid #d9e2ec;border-radius:12px;padding:1.5rem 2rem}h1{font-size:1.5rem;margin:.2rem 0}p.meta{color:#52606d;margin-top:0}
.days{display:flex;flex-wrap:wrap;gap:.4rem;margin:1rem 0}.days a{padding:.35rem .6rem;border:1px solid #bcccdc;border-radius:6px;text-decoration:none;color:#243b53;font-size:.9rem}
.days a.on{background:#2680c2;color:#fff;border-color:#2680c2}.days a.none{color:#9fb3c8;border-style:dashed}.slots{display:grid;grid-template-columns:repeat(auto-fill,minmax(7rem,1fr));gap:.4rem;margin:1rem 0}
.slots label{border:1px solid #bcccdc;border-radius:6px;padding:.4rem;text-align:center;cursor:pointer}.slots input{margin-right:.3rem}
label.f{display:block;margin:.6rem 0 .2rem;font-weight:600}input[type=text],input[type=email]{width:100%;padding:.5rem;border:1px solid #bcccdc;border-radius:6px;box-sizing:border-box}
button{margin-top:1rem;background:#2680c2;color:#fff;border:0;border-radius:6px;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}button.danger{background:#c62828}
.note{padding:.6rem .8rem;border-radius:6px;background:#fff3c4;margin:1rem 0}.ok{background:#e3f9e5}dl{display:grid;grid-template-columns:10rem 1fr;gap:.3rem}dt{color:#52606d}`;

/** The browser's zone, when the URL names none: the page works the same without it (UTC). */
const ZONE_SCRIPT = `(function(){var u=new URL(location.href);if(!u.searchParams.get('tz')){try{var z=Intl.DateTimeFormat().resolvedOptions().timeZone;if(z){u.searchParams.set('tz',z);location.replace(u.toString());}}catch(e){}}})();`;

let zoneScriptSource: Promise<string> | undefined;
/** The CSP source that lets exactly the zone script run: its SHA-256, worked out once per instance. */
const zoneScriptHash = () =>
  (zoneScriptSource ??= crypto.subtle.digest('SHA-256', new TextEncoder().encode(ZONE_SCRIPT)).then((d) => `'sha256-${base64(new Uint8Array(d))}'`));

/**
 * `framed`: the booking page as the embed shows it (the request carries an embed key), the
 * only page any site may frame. Every other page (the manage page's cancel button above all)
 * refuses framing, here and through `X-Frame-Options` (src/platform/security-headers.ts).
 */
async function page(c: Context<AppEnv>, title: string, body: string, opts: { status?: 200 | 400 | 403 | 404 | 409; framed?: boolean } = {}) {
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'unsafe-inline'; script-src ${await zoneScriptHash()}; form-action 'self'; frame-ancestors ${opts.framed ? '*' : "'none'"}; base-uri 'none'`,
  );
  c.header('Cache-Control', 'no-store');
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`,
    opts.status ?? 200,
  );
}

const notFoundPage = (c: Context<AppEnv>, framed = false) =>
  page(c, 'Not found', '<h1>Not found</h1><p>This booking page does not exist.</p>', { status: 404, framed });

const publicContext = (c: Context<AppEnv>, wsId: string) => publicWorkspaceContext(c.env, wsId, 'booking');

const publish = (c: Context<AppEnv>, ctx: ServiceContext) => {
  if (ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, ctx.db, ctx.events.committed));
};

async function typeBySlug(ctx: ServiceContext, slug: string) {
  const [row] = await ctx.db
    .select()
    .from(meetingTypes)
    .where(and(eq(meetingTypes.workspaceId, ctx.ws.id), eq(meetingTypes.slug, slug)))
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

const zoneOf = (raw: string | undefined) => (raw && isValidTimeZone(raw) ? raw : 'UTC');

function dayOf(raw: string | undefined, zone: string): Temporal.PlainDate {
  const today = Temporal.Now.plainDateISO(zone);
  if (!raw || !/^\d{4}-\d{2}-\d{2}$/.test(raw)) return today;
  try {
    const d = Temporal.PlainDate.from(raw);
    return Temporal.PlainDate.compare(d, today) < 0 ? today : d;
  } catch {
    return today;
  }
}

/** The invitee-local day of a submitted start, to show that day again; undefined when it does not parse. */
function localDay(start: string, zone: string): string | undefined {
  try {
    return Temporal.Instant.from(start).toZonedDateTimeISO(zone).toPlainDate().toString();
  } catch {
    return undefined;
  }
}

const clock = (iso: string, zone: string) =>
  Temporal.Instant.from(iso).toZonedDateTimeISO(zone).toLocaleString('en-US', { hour: 'numeric', minute: '2-digit' });

async function renderBookingPage(
  c: Context<AppEnv>,
  ctx: ServiceContext,
  slug: string,
  q: { day?: string; tz?: string; embed_key?: string },
  notice?: { text: string; status: 400 | 409 },
) {
  const mt = await typeBySlug(ctx, slug);
  const framed = q.embed_key !== undefined;
  if (!mt?.isActive) return notFoundPage(c, framed);
  const zone = zoneOf(q.tz);
  const today = Temporal.Now.plainDateISO(zone);
  const asked = dayOf(q.day, zone);
  // Fourteen days of links from a few days before the asked day (never before today), their slots in one read.
  const earlier = asked.subtract({ days: 3 });
  const first = Temporal.PlainDate.compare(earlier, today) < 0 ? today : earlier;
  const days = Array.from({ length: 14 }, (_, i) => first.add({ days: i }));
  const range = {
    from: first.toZonedDateTime(zone).toInstant().toString(),
    to: first.add({ days: 14 }).toZonedDateTime(zone).toInstant().toString(),
  };
  let all: { start: string }[] = [];
  try {
    all = (await listSlots(ctx.db, ctx.ws.id, mt.id, range)).starts.map((ms) => ({ start: new Date(ms).toISOString() }));
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
  }
  const localDay = (iso: string) => Temporal.Instant.from(iso).toZonedDateTimeISO(zone).toPlainDate().toString();
  const open = new Set(all.map((s) => localDay(s.start)));
  // Without an asked day the page opens on the first day with open times.
  const day = q.day ? asked : (days.find((d) => open.has(d.toString())) ?? asked);
  const slots = all.filter((s) => localDay(s.start) === day.toString());
  const keep = (extra: Record<string, string>) => {
    const p = new URLSearchParams({ tz: zone, ...(q.embed_key ? { embed_key: q.embed_key } : {}), ...extra });
    return `?${p.toString()}`;
  };
  const dayLinks = days
    .map((d) => {
      const cls = [d.equals(day) ? 'on' : '', open.has(d.toString()) ? '' : 'none'].filter(Boolean).join(' ');
      return `<a href="${esc(keep({ day: d.toString() }))}"${cls ? ` class="${cls}"` : ''}>${esc(d.toLocaleString('en-US', { weekday: 'short', month: 'short', day: 'numeric' }))}</a>`;
    })
    .join('');
  const slotInputs = slots.length
    ? `<div class="slots">${slots.map((s, i) => `<label><input type="radio" name="start_at" value="${esc(s.start)}"${i === 0 ? ' required' : ''}>${esc(clock(s.start, zone))}</label>`).join('')}</div>`
    : '<p class="note">No open times on this day. Pick another day.</p>';
  const body = `<h1>${esc(mt.name)}</h1><p class="meta">${mt.durationMinutes} minutes &middot; ${esc(mt.locationType)}${mt.description ? ` &middot; ${esc(mt.description)}` : ''}</p>
${notice ? `<p class="note" role="alert">${esc(notice.text)}</p>` : ''}
<form method="get"><label class="f" for="tz">Your time zone</label><input type="text" id="tz" name="tz" value="${esc(zone)}"><input type="hidden" name="day" value="${esc(day.toString())}">${q.embed_key ? `<input type="hidden" name="embed_key" value="${esc(q.embed_key)}">` : ''}<button type="submit">Show times</button></form>
<nav class="days" aria-label="Days">${dayLinks}</nav>
<h2>${esc(day.toLocaleString('en-US', { weekday: 'long', month: 'long', day: 'numeric', year: 'numeric' }))}</h2>
<form method="post">${slotInputs}
<input type="hidden" name="timezone" value="${esc(zone)}">${q.embed_key ? `<input type="hidden" name="embed_key" value="${esc(q.embed_key)}">` : ''}
<label class="f" for="name">Your name</label><input type="text" id="name" name="name" required maxlength="200" autocomplete="name">
<label class="f" for="email">Email</label><input type="email" id="email" name="email" required maxlength="320" autocomplete="email">
<label class="f" for="notes">Notes (optional)</label><input type="text" id="notes" name="notes" maxlength="2000">
<button type="submit"${slots.length ? '' : ' disabled'}>Book</button></form>${q.tz ? '' : `<script>${ZONE_SCRIPT}</script>`}`;
  return page(c, mt.name, body, { status: notice?.status ?? 200, framed });
}

/** The end of a booking made in the embed: what was booked, and the manage page as a link that leaves the frame. */
function bookedInFrame(c: Context<AppEnv>, name: string, b: { start_at: string; invitee_timezone: string }, manage: string) {
  const body = `<p class="note ok" role="status">You are booked.</p><h1>${esc(name)}</h1><dl><dt>When</dt><dd>${esc(inviteeTime(b.start_at, b.invitee_timezone))}</dd></dl>
<p><a href="${esc(`${manage}?booked=1`)}" target="_blank" rel="noopener noreferrer">See or cancel your booking</a> (opens in a new tab; keep the link).</p>`;
  return page(c, 'Booked', body, { framed: true });
}

/*
 * `/embed.js` and the manage pages (`/:ws/manage/:token`) are matched through
 * parameters (`/:file`, `/:ws/:page/:token`): a literal segment beside a
 * parameter (`/:ws`, `/:ws/:slug`) would stop the app's routes from compiling
 * into one regular expression, and every request would then be routed by
 * walking a tree instead.
 */
bookingPages.get('/:file', (c) => {
  if (c.req.param('file') !== 'embed.js') return c.notFound();
  const base = publicBaseUrl(c.env, c.req.url);
  c.header('Content-Type', 'text/javascript; charset=utf-8');
  c.header('Cache-Control', 'public, max-age=300');
  return c.body(
    `(function(){var nodes=document.querySelectorAll('[data-booking-embed]');for(var i=0;i<nodes.length;i++){var n=nodes[i];if(n.getAttribute('data-booking-ready'))continue;n.setAttribute('data-booking-ready','1');var f=document.createElement('iframe');var tz='';try{tz=Intl.DateTimeFormat().resolvedOptions().timeZone||'';}catch(e){}f.src=${JSON.stringify(base)}+'/book/'+encodeURIComponent(n.getAttribute('data-workspace'))+'/'+encodeURIComponent(n.getAttribute('data-booking-embed'))+'?embed_key='+encodeURIComponent(n.getAttribute('data-key'))+(tz?'&tz='+encodeURIComponent(tz):'');f.style.width='100%';f.style.minHeight='760px';f.style.border='0';f.title='Book a meeting';n.appendChild(f);}})();`,
  );
});

const isManage = (c: Context<AppEnv>) => c.req.param('page') === 'manage';

bookingPages.get('/:ws/:page/:token', async (c) => {
  if (!isManage(c)) return c.notFound();
  const ctx = await publicContext(c, c.req.param('ws'));
  if (!ctx) return notFoundPage(c);
  const id = await verifyManageToken(ctx.db, ctx.ws.id, c.req.param('token'));
  if (!id) return notFoundPage(c);
  const b = await getBooking(ctx, id);
  const [mt] = await ctx.db
    .select()
    .from(meetingTypes)
    .where(and(eq(meetingTypes.workspaceId, ctx.ws.id), eq(meetingTypes.id, b.meeting_type_id)))
    .limit(1);
  const booked = c.req.query('booked') === '1';
  const cancelled = c.req.query('cancelled') === '1';
  const body = `${booked ? '<p class="note ok" role="status">You are booked. Keep this page: it is your link to see or cancel the booking.</p>' : ''}${cancelled ? '<p class="note ok" role="status">Your booking is cancelled.</p>' : ''}
<h1>${esc(mt?.name ?? 'Your booking')}</h1>
<dl><dt>When</dt><dd>${esc(inviteeTime(b.start_at, b.invitee_timezone))}</dd><dt>Duration</dt><dd>${mt ? `${mt.durationMinutes} minutes` : ''}</dd><dt>With</dt><dd>${esc(b.hosts.map((h) => h.name).join(', '))}</dd><dt>Name</dt><dd>${esc(b.invitee_name)}</dd><dt>Email</dt><dd>${esc(b.invitee_email)}</dd><dt>Status</dt><dd>${esc(b.status)}</dd></dl>
${b.status === 'confirmed' ? `<form method="post" action="${esc(`${c.req.path}/cancel`)}"><label class="f" for="reason">Reason (optional)</label><input type="text" id="reason" name="reason" maxlength="1000"><button class="danger" type="submit">Cancel booking</button></form>` : ''}`;
  return page(c, 'Your booking', body);
});

bookingPages.post('/:ws/:page/:token/cancel', limitPublicPost('booking-manage'), async (c) => {
  if (!isManage(c)) return c.notFound();
  const ctx = await publicContext(c, c.req.param('ws'));
  if (!ctx) return notFoundPage(c);
  const id = await verifyManageToken(ctx.db, ctx.ws.id, c.req.param('token'));
  if (!id) return notFoundPage(c);
  const form = await c.req.parseBody();
  const reason = typeof form.reason === 'string' && form.reason.trim() ? form.reason.trim().slice(0, 1000) : undefined;
  try {
    await cancelBooking(ctx, id, { reason }, 'invitee');
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400) throw err;
  }
  publish(c, ctx);
  return c.redirect(`${publicBaseUrl(c.env, c.req.url)}/book/${ctx.ws.id}/manage/${c.req.param('token')}?cancelled=1`, 303);
});

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
  const mt = await typeBySlug(ctx, c.req.param('slug'));
  if (!mt?.isActive) return notFoundPage(c, source === 'embed');
  const zone = zoneOf(field('timezone'));
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
    const text =
      err.body.error_code === BookingErrors.slotTaken.code
        ? 'That time was just taken. Please pick another.'
        : String(err.body.message ?? 'The booking could not be made.');
    return renderBookingPage(c, ctx, mt.slug, q, { text, status: err.status === 409 ? 409 : 400 });
  }
});
