import { Temporal } from 'temporal-polyfill';

/*
 * A schedule's zone for the slot engine (./slots.ts): its offsets over a request's range, read
 * from Temporal once, and wall time through Temporal near an offset change, where arithmetic on
 * a fixed offset would be wrong.
 */

const MINUTE = 60_000;
const DAY_MS = 86_400_000;

// ---------------------------------------------------------------- the zone's offsets

/**
 * A zone's UTC offsets over a range of instants, read once: segment `i` starts
 * at `starts[i]` (the range's start, then each offset change) and keeps
 * `offsets[i]` until the next.
 */
export type ZoneOffsets = { zone: string; from: number; to: number; starts: number[]; offsets: number[] };

export function zoneOffsets(zone: string, from: number, to: number): ZoneOffsets {
  let at = Temporal.Instant.fromEpochMilliseconds(from).toZonedDateTimeISO(zone);
  const starts = [from];
  const offsets = [at.offsetNanoseconds / 1e6];
  for (;;) {
    const next = at.getTimeZoneTransition('next');
    if (!next || next.epochMilliseconds > to) break;
    starts.push(next.epochMilliseconds);
    offsets.push(next.offsetNanoseconds / 1e6);
    at = next;
  }
  return { zone, from, to, starts, offsets };
}

/** The offset in effect at an instant (outside the range read, asked of Temporal). */
function offsetAt(o: ZoneOffsets, ms: number): number {
  if (ms < o.from || ms > o.to) return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(o.zone).offsetNanoseconds / 1e6;
  let i = o.starts.length - 1;
  while (o.starts[i] > ms) i--;
  return o.offsets[i];
}

/** The local calendar day of an instant, as days since 1970-01-01. */
export const localDay = (o: ZoneOffsets, ms: number) => Math.floor((ms + offsetAt(o, ms)) / DAY_MS);

/**
 * The offset that turns every local wall time in [lo, hi] (local ms) into its
 * instant by subtraction: the one in effect from a day before to a day after
 * them. Null near an offset change, where Temporal decides wall time by wall time.
 */
export function steadyOffset(o: ZoneOffsets, lo: number, hi: number): number | null {
  for (let i = 0; i < o.starts.length; i++) {
    const off = o.offsets[i];
    const end = i + 1 < o.starts.length ? o.starts[i + 1] : o.to;
    if (o.starts[i] <= lo - off - DAY_MS && hi - off + DAY_MS < end) return off;
  }
  return null;
}

/** Monday 0 ... Sunday 6 of a day number (1970-01-01 was a Thursday). */
export const weekdayOf = (day: number) => (((day % 7) + 7 + 3) % 7) as 0 | 1 | 2 | 3 | 4 | 5 | 6;

export function plainDateOf(day: number): Temporal.PlainDate {
  const d = new Date(day * DAY_MS);
  return new Temporal.PlainDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate());
}

// ---------------------------------------------------------------- wall time through Temporal (near an offset change)

/** The instant of a local wall time (minutes from midnight, may be 1440) on a local date; gaps resolve forward (`compatible`). */
function instantOf(date: Temporal.PlainDate, minutes: number, zone: string): number {
  const day = minutes >= 1440 ? date.add({ days: 1 }) : date;
  const m = minutes % 1440;
  return day.toPlainDateTime({ hour: Math.floor(m / 60), minute: m % 60 }).toZonedDateTime(zone, { disambiguation: 'compatible' }).epochMilliseconds;
}

/**
 * The instant a window opens or closes at a local wall time. A wall time that
 * a DST gap skips bounds the window at the gap itself (the moment the clocks
 * jump), so a window never reaches past its wall-clock end.
 */
function boundaryOf(date: Temporal.PlainDate, minutes: number, zone: string): number {
  const day = minutes >= 1440 ? date.add({ days: 1 }) : date;
  const m = minutes % 1440;
  const z = day.toPlainDateTime({ hour: Math.floor(m / 60), minute: m % 60 }).toZonedDateTime(zone, { disambiguation: 'compatible' });
  if (z.hour * 60 + z.minute === m) return z.epochMilliseconds;
  return z.getTimeZoneTransition('previous')?.epochMilliseconds ?? z.epochMilliseconds;
}

/** Local wall-clock minutes of an instant in a zone, and its local date. */
function wallOf(ms: number, zone: string): { date: Temporal.PlainDate; minutes: number } {
  const z = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(zone);
  return { date: z.toPlainDate(), minutes: z.hour * 60 + z.minute };
}

/**
 * Whether every minute of [start, end) reads on `date` between the wall times
 * `a` (inclusive) and `b` (exclusive). The offset changes at most once inside
 * a slot, so the first and last minute and the minutes around a transition
 * decide it (a fall-back fold can leave a window and come back).
 */
export function wallInside(date: Temporal.PlainDate, a: number, b: number, start: number, end: number, zone: string): boolean {
  const inRange = (ms: number) => {
    const w = wallOf(ms, zone);
    return w.date.equals(date) && w.minutes >= a && w.minutes < b;
  };
  if (!inRange(start) || !inRange(end - MINUTE)) return false;
  const next = Temporal.Instant.fromEpochMilliseconds(start).toZonedDateTimeISO(zone).getTimeZoneTransition('next');
  if (next && next.epochMilliseconds < end) return inRange(next.epochMilliseconds - MINUTE) && inRange(next.epochMilliseconds);
  return true;
}

/** The starts of one window [am, bm) on `date` whose offset changes inside or near it, wall time by wall time. */
export function startsAcrossChange(
  rules: { zone: string; durationMinutes: number; intervalMinutes: number },
  date: Temporal.PlainDate,
  am: number,
  bm: number,
): number[] {
  const out: number[] = [];
  const dur = rules.durationMinutes * MINUTE;
  const winStart = boundaryOf(date, am, rules.zone);
  const winEnd = boundaryOf(date, bm, rules.zone);
  // No offset change inside the window after all: wall-clock steps are plain instant steps.
  const steady =
    winEnd - winStart === (bm - am) * MINUTE && wallOf(winStart, rules.zone).minutes === am && wallOf(winEnd, rules.zone).minutes === bm % 1440;
  for (let m = am; m + rules.durationMinutes <= bm; m += rules.intervalMinutes) {
    if (steady) {
      out.push(winStart + (m - am) * MINUTE);
      continue;
    }
    const start = instantOf(date, m, rules.zone);
    if (wallOf(start, rules.zone).minutes !== m) continue; // inside a DST gap
    if (wallInside(date, am, bm, start, start + dur, rules.zone)) out.push(start);
  }
  return out;
}

export const localDateOf = (ms: number, zone: string) => wallOf(ms, zone).date;
