import { instanceCache } from './instance-cache';

/**
 * Calendar arithmetic in the workspace's time zone. A date-only value names a
 * day of that zone; monthly steps keep the day of month, clamped to the
 * month's end (Jan 31 -> Feb 28/29 -> Mar 31, always counted from the anchor).
 */

/** The steps a recurring schedule takes. */
export type CalendarInterval = 'weekly' | 'monthly' | 'quarterly' | 'yearly';

export type LocalParts = { y: number; m: number; d: number; h: number; mi: number; s: number; ms: number };

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
/** Making a zone's formatter costs far more than using it, and a service meets few zones. */
const formatters = instanceCache<Intl.DateTimeFormat>('time-zone-formatters', { max: 500 });

function formatter(zone: string) {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock reading of an instant in `zone`. */
export function localParts(instantMs: number, zone: string): LocalParts {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(instantMs))
      .map((p) => [p.type, p.value]),
  );
  return {
    y: Number(parts.year),
    m: Number(parts.month),
    d: Number(parts.day),
    h: Number(parts.hour) % 24,
    mi: Number(parts.minute),
    s: Number(parts.second),
    ms: new Date(instantMs).getUTCMilliseconds(),
  };
}

const asUtc = (p: LocalParts) => Date.UTC(p.y, p.m - 1, p.d, p.h, p.mi, p.s, p.ms);

/** The instant a wall-clock reading in `zone` names (the earlier one across a DST overlap). */
export function zonedInstant(p: LocalParts, zone: string): number {
  const wanted = asUtc(p);
  let guess = wanted;
  for (let i = 0; i < 3; i++) {
    const offset = asUtc(localParts(guess, zone)) - guess;
    const next = wanted - offset;
    if (next === guess) break;
    guess = next;
  }
  return guess;
}

const daysIn = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** `p` moved by `months`, the day clamped to the target month's end. */
export function addMonths(p: LocalParts, months: number): LocalParts {
  const index = p.y * 12 + (p.m - 1) + months;
  const y = Math.floor(index / 12);
  const m = (index % 12) + 1;
  return { ...p, y, m, d: Math.min(p.d, daysIn(y, m)) };
}

export function addDays(p: LocalParts, days: number): LocalParts {
  const t = new Date(Date.UTC(p.y, p.m - 1, p.d + days));
  return { ...p, y: t.getUTCFullYear(), m: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');
export const dateOnly = (p: LocalParts) => `${pad(p.y, 4)}-${pad(p.m)}-${pad(p.d)}`;

function isCalendarDate(y: number, m: number, d: number) {
  return m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
}

/**
 * An ISO 8601 value as a UTC ISO string, or null when it is not a valid date.
 * A date-only value is the start (or, with `endOfDay`, the last millisecond)
 * of that day in `zone`.
 */
export function parseIsoInZone(value: string, zone: string, endOfDay = false): string | null {
  const v = value.trim();
  const dateOnlyMatch = DATE_ONLY.exec(v);
  if (dateOnlyMatch) {
    const [y, m, d] = dateOnlyMatch.slice(1).map(Number);
    if (!isCalendarDate(y, m, d)) return null;
    const at = endOfDay ? { y, m, d, h: 23, mi: 59, s: 59, ms: 999 } : { y, m, d, h: 0, mi: 0, s: 0, ms: 0 };
    return new Date(zonedInstant(at, zone)).toISOString();
  }
  const full = /^(\d{4})-(\d{2})-(\d{2})T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i.exec(v);
  if (!full) return null;
  const [y, m, d] = full.slice(1, 4).map(Number);
  if (!isCalendarDate(y, m, d)) return null;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

/** The due instant of cycle `n` (1-based) of a plan anchored at `anchorIso`. */
export function cycleDueAt(anchorIso: string, interval: CalendarInterval, n: number, zone: string): string {
  const anchor = localParts(Date.parse(anchorIso), zone);
  const steps = n - 1;
  const moved =
    interval === 'weekly' ? addDays(anchor, 7 * steps) : addMonths(anchor, steps * (interval === 'monthly' ? 1 : interval === 'quarterly' ? 3 : 12));
  return new Date(zonedInstant(moved, zone)).toISOString();
}

/** The workspace-local date (`YYYY-MM-DD`) of an instant. */
export const localDate = (iso: string, zone: string): string => dateOnly(localParts(Date.parse(iso), zone));

/** Due dates of `count` monthly installments from the purchase day, clamped to month ends. */
export function installmentDueDates(purchaseIso: string, count: number, zone: string): string[] {
  const start = localParts(Date.parse(purchaseIso), zone);
  return Array.from({ length: count }, (_, i) => dateOnly(addMonths(start, i)));
}
