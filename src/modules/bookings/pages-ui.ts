import type { Context } from 'hono';
import { Temporal } from 'temporal-polyfill';
import type { AppEnv } from '../../platform/app-env';
import { escapeHtml as esc } from '../../platform/html';
import { base64 } from '../../platform/ids';
import { isValidTimeZone } from '../../platform/timezones';

/*
 * The parts the booking, manage and reschedule pages share: the page frame and its
 * Content-Security-Policy, the zone select, the week strip and the calendar links.
 */

export const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1f2933;background:#f8fafc}
main{background:#fff;border:1px solid #d9e2ec;border-radius:12px;padding:1.5rem 2rem}h1{font-size:1.5rem;margin:.2rem 0}p.meta{color:#52606d;margin-top:0}
button,input,select,textarea{font:inherit}a{color:#1c5d8f}:focus-visible{outline:3px solid #1c5d8f;outline-offset:2px}
.week{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:.4rem;margin:1rem 0 .2rem}.week strong{flex:1 1 100%;order:-1;text-align:center}.week a,.week span.off{padding:.35rem .2rem}
.days{display:grid;grid-template-columns:repeat(7,minmax(0,1fr));gap:.3rem;margin:.4rem 0 1rem}.days a,.days span{padding:.35rem .1rem;border:1px solid #bcccdc;border-radius:6px;text-decoration:none;color:#243b53;font-size:.85rem;text-align:center;line-height:1.25}
.days a.none{color:#52606d;border-style:dashed}.days a.on{background:#1c5d8f;color:#fff;border-color:#1c5d8f}.days span{color:#52606d;background:#f0f4f8;border-color:#d9e2ec}.days b{display:block;font-weight:600}
fieldset.slots{border:0;padding:0;min-width:0}.slots legend{font-weight:600;padding:0;margin-bottom:.3rem}.slots{display:grid;grid-template-columns:repeat(auto-fill,minmax(6.5rem,1fr));gap:.4rem;margin:1rem 0}
.slots label{border:1px solid #bcccdc;border-radius:6px;padding:.4rem .2rem;cursor:pointer;white-space:nowrap;display:flex;align-items:center;justify-content:center;gap:.3rem}.slots input{margin:0}
label.f{display:block;margin:.6rem 0 .2rem;font-weight:600}input[type=text],input[type=email],select{width:100%;max-width:100%;padding:.5rem;border:1px solid #7b8794;border-radius:6px;box-sizing:border-box;background:#fff;color:inherit}
.zone{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}.zone div{flex:1 1 14rem;min-width:0}.zone button{margin-top:0}
button,a.button{display:inline-block;margin-top:1rem;background:#1c5d8f;color:#fff;border:0;border-radius:6px;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer;text-decoration:none}button.danger{background:#b71c1c}button:disabled{background:#9aa5b1;cursor:not-allowed}
a.button.quiet{background:#e4e7eb;color:#1f2933}.actions{display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;margin:1rem 0 0}.actions a.button,.actions button{margin-top:0}
.note{padding:.6rem .8rem;border-radius:6px;background:#fff3c4;margin:1rem 0}.ok{background:#e3f9e5}.err{background:#ffe3e3}
dl{display:grid;grid-template-columns:minmax(4.5rem,max-content) minmax(0,1fr);gap:.3rem .8rem}dt{color:#52606d}dd{margin:0;overflow-wrap:anywhere}
@media (max-width:30rem){body{margin:1rem auto;padding:0 .5rem}main{padding:1rem}}`;

/** The browser's zone, when the URL names none and the select offers it: the page works the same without it (UTC, and the select). */
export const ZONE_SCRIPT = `(function(){var u=new URL(location.href);if(!u.searchParams.get('tz')){try{var z=Intl.DateTimeFormat().resolvedOptions().timeZone;var s=document.getElementById('tz');if(z&&s){for(var i=0;i<s.options.length;i++){if(s.options[i].value===z){u.searchParams.set('tz',z);location.replace(u.toString());return;}}}}catch(e){}}})();`;

/** Inside the embed's frame: the page's height, posted to the host page on load and on resize (`booking-embed:height`). */
export const HEIGHT_SCRIPT = `(function(){if(parent===window)return;var last=0;function send(){var h=Math.ceil(document.documentElement.getBoundingClientRect().height);if(h&&h!==last){last=h;parent.postMessage({type:'booking-embed:height',height:h},'*');}}addEventListener('load',send);addEventListener('resize',send);send();})();`;

/** The message the embed script accepts from the page's origin: `{type: 'booking-embed:height', height: <px>}`. */
export const HEIGHT_MESSAGE = 'booking-embed:height';

let scriptHashes: Promise<string> | undefined;
/** The CSP sources that let exactly the page scripts run: their SHA-256, worked out once per instance. */
const hashes = () =>
  (scriptHashes ??= Promise.all(
    [ZONE_SCRIPT, HEIGHT_SCRIPT].map(
      async (s) => `'sha256-${base64(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(s))))}'`,
    ),
  ).then((list) => list.join(' ')));

export type PageStatus = 200 | 400 | 403 | 404 | 409;

/**
 * `framed`: the booking page as the embed shows it (the request carries an embed key), the
 * only page any site may frame. Every other page (the manage page's cancel button above all)
 * refuses framing, here and through `X-Frame-Options` (src/platform/security-headers.ts).
 */
export async function page(c: Context<AppEnv>, title: string, body: string, opts: { status?: PageStatus; framed?: boolean } = {}) {
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'unsafe-inline'; script-src ${await hashes()}; form-action 'self'; frame-ancestors ${opts.framed ? '*' : "'none'"}; base-uri 'none'`,
  );
  c.header('Cache-Control', 'no-store');
  const height = opts.framed ? `<script>${HEIGHT_SCRIPT}</script>` : '';
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main>${height}</body></html>`,
    opts.status ?? 200,
  );
}

// ---------------------------------------------------------------- zones

/** Current names the runtime's list may give under their older ones (`Asia/Calcutta`): offered as well. */
const CURRENT_NAMES = [
  'Africa/Asmara',
  'America/Argentina/Buenos_Aires',
  'America/Indiana/Indianapolis',
  'America/Nuuk',
  'Asia/Ho_Chi_Minh',
  'Asia/Kathmandu',
  'Asia/Kolkata',
  'Asia/Yangon',
  'Atlantic/Faroe',
  'Europe/Kyiv',
  'Pacific/Kanton',
];

let zoneList: string[] | undefined;
/** The runtime's IANA zones (`Intl.supportedValuesOf('timeZone')`) and `UTC`, sorted. */
export function knownZones(): string[] {
  if (!zoneList) {
    const supported = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
    zoneList = [...new Set([...supported, ...CURRENT_NAMES.filter((z) => isValidTimeZone(z)), 'UTC'])].sort();
  }
  return zoneList;
}

/** A zone from a query or form: absent is UTC, a known one itself, anything else `{bad}` (a visible error, never a fallback). */
export function zoneFrom(raw: string | undefined): { zone: string; bad?: string } {
  const v = raw?.trim();
  if (!v) return { zone: 'UTC' };
  return isValidTimeZone(v as unknown) ? { zone: v } : { zone: 'UTC', bad: v.slice(0, 64) };
}

export const unknownZoneText = (bad: string) => `Unknown time zone "${bad}". Pick your time zone from the list.`;

/** The zone select with its own submit (works without JavaScript), keeping `keep`'s fields. */
export function zoneForm(zone: string, keep: Record<string, string | undefined>, selected = true) {
  const zones = knownZones().includes(zone) ? knownZones() : [...knownZones(), zone].sort();
  const none = selected ? '' : '<option value="" selected>Choose your time zone</option>';
  const options = none + zones.map((z) => `<option${selected && z === zone ? ' selected' : ''}>${esc(z)}</option>`).join('');
  const hidden = Object.entries(keep)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  return `<form method="get" class="zone"><div><label class="f" for="tz">Your time zone</label><select id="tz" name="tz">${options}</select></div>${hidden}<button type="submit">Show times</button></form>`;
}

// ---------------------------------------------------------------- the week

export type Week = { today: Temporal.PlainDate; monday: Temporal.PlainDate; days: Temporal.PlainDate[]; first: Temporal.PlainDate };

/** The asked day (never before today; today when absent or malformed) and its Monday-to-Sunday week. */
export function weekOf(raw: string | undefined, zone: string): { asked: Temporal.PlainDate; week: Week } {
  const today = Temporal.Now.plainDateISO(zone);
  let asked = today;
  if (raw && /^\d{4}-\d{2}-\d{2}$/.test(raw)) {
    try {
      const d = Temporal.PlainDate.from(raw);
      if (Temporal.PlainDate.compare(d, today) > 0) asked = d;
    } catch {
      // a day that does not exist: today
    }
  }
  const monday = asked.subtract({ days: asked.dayOfWeek - 1 });
  const days = Array.from({ length: 7 }, (_, i) => monday.add({ days: i }));
  const first = Temporal.PlainDate.compare(monday, today) < 0 ? today : monday;
  return { asked, week: { today, monday, days, first } };
}

/** The week's instants from its first bookable day (today or its Monday) to the next Monday. */
export const weekRange = (week: Week, zone: string) => ({
  from: week.first.toZonedDateTime(zone).toInstant().toString(),
  to: week.monday.add({ days: 7 }).toZonedDateTime(zone).toInstant().toString(),
});

const short = (d: Temporal.PlainDate, opts: Intl.DateTimeFormatOptions) => d.toLocaleString('en-US', opts);

/**
 * The week strip: previous and next week links (none before the current week, and a way back
 * to today from a later week), and the seven days, past ones not links, days without open times marked.
 */
export function weekNav(week: Week, day: Temporal.PlainDate, open: Set<string>, href: (day: string) => string) {
  const thisWeek = Temporal.PlainDate.compare(week.monday, week.today) <= 0;
  const prevMonday = week.monday.subtract({ days: 7 });
  const prev = thisWeek
    ? '<span class="off" aria-hidden="true"></span>'
    : `<a href="${esc(href((Temporal.PlainDate.compare(prevMonday, week.today) < 0 ? week.today : prevMonday).toString()))}" rel="prev">&larr; Previous week</a>`;
  const todayLink = thisWeek ? '' : `<a href="${esc(href(week.today.toString()))}">Today</a>`;
  const next = `<a href="${esc(href(week.monday.add({ days: 7 }).toString()))}" rel="next">Next week &rarr;</a>`;
  const label = `${short(week.monday, { month: 'short', day: 'numeric' })} – ${short(week.monday.add({ days: 6 }), { month: 'short', day: 'numeric', year: 'numeric' })}`;
  const cells = week.days
    .map((d) => {
      const text = `<b>${esc(short(d, { weekday: 'short' }))}</b>${esc(short(d, { month: 'short', day: 'numeric' }))}`;
      if (Temporal.PlainDate.compare(d, week.today) < 0) return `<span>${text}</span>`;
      const on = d.equals(day);
      const cls = [on ? 'on' : '', open.has(d.toString()) ? '' : 'none'].filter(Boolean).join(' ');
      const title = open.has(d.toString()) ? '' : ' title="No open times"';
      return `<a href="${esc(href(d.toString()))}"${cls ? ` class="${cls}"` : ''}${on ? ' aria-current="date"' : ''}${title}>${text}</a>`;
    })
    .join('');
  return `<nav aria-label="Weeks" class="week">${prev}<strong>${esc(label)}</strong>${todayLink}${next}</nav><nav class="days" aria-label="Days">${cells}</nav>`;
}

export const clock = (iso: string, zone: string) =>
  Temporal.Instant.from(iso).toZonedDateTimeISO(zone).toLocaleString('en-US', { hour: 'numeric', minute: '2-digit' });

export const localDayOf = (iso: string, zone: string) => Temporal.Instant.from(iso).toZonedDateTimeISO(zone).toPlainDate().toString();

/** The slot radios of a day, or a note when it has none. */
export const slotRadios = (starts: string[], zone: string) =>
  starts.length
    ? `<fieldset class="slots"><legend>Times</legend>${starts.map((s, i) => `<label><input type="radio" name="start_at" value="${esc(s)}"${i === 0 ? ' required' : ''}>${esc(clock(s, zone))}</label>`).join('')}</fieldset>`
    : '<p class="note">No open times on this day. Pick another day or week.</p>';

// ---------------------------------------------------------------- calendar links

const calendarStamp = (iso: string) => `${new Date(iso).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;

/** "Add to Google Calendar" and "Outlook" links (links the person follows; nothing is loaded from them). */
export function calendarLinks(b: { start_at: string; end_at: string }, title: string, details: string, location: string) {
  const google = new URL('https://calendar.google.com/calendar/render');
  google.search = new URLSearchParams({
    action: 'TEMPLATE',
    text: title,
    dates: `${calendarStamp(b.start_at)}/${calendarStamp(b.end_at)}`,
    details,
    location,
  }).toString();
  const outlook = new URL('https://outlook.live.com/calendar/0/deeplink/compose');
  outlook.search = new URLSearchParams({
    subject: title,
    startdt: `${new Date(b.start_at).toISOString().slice(0, 19)}Z`,
    enddt: `${new Date(b.end_at).toISOString().slice(0, 19)}Z`,
    body: details,
    location,
  }).toString();
  return `<p class="actions"><a class="button quiet" href="${esc(google.toString())}" target="_blank" rel="noopener noreferrer">Add to Google Calendar</a><a class="button quiet" href="${esc(outlook.toString())}" target="_blank" rel="noopener noreferrer">Add to Outlook</a></p>`;
}
