import { Temporal } from 'temporal-polyfill';
import { WEEKDAYS, type SchedulingKind, type WeeklyHours } from './schema';

/*
 * The slot engine: pure functions over a meeting type's rules and the hosts'
 * commitments (confirmed bookings, busy blocks), all instants in epoch ms.
 * Wall-clock rules (weekly hours, the daily cap's day) are read in the
 * schedule's IANA zone through Temporal (the `temporal-polyfill` package: the
 * runtime has no native Temporal yet), so DST days and half-hour zones come
 * out right without any fixed offset.
 */

const MINUTE = 60_000;
const DAY_MS = 86_400_000;

export type SlotRules = {
  zone: string;
  weeklyHours: WeeklyHours;
  durationMinutes: number;
  intervalMinutes: number;
  minNoticeMinutes: number;
  bufferBeforeMinutes: number;
  bufferAfterMinutes: number;
  dailyCap: number | null;
  kind: SchedulingKind;
  /** The eligible hosts (active pool members), in pool order. */
  hosts: string[];
  meetingTypeId: string;
};

/** A confirmed booking: every host attending it, and its meeting type (the daily cap counts per type). */
export type Commitment = { id: string; hosts: string[]; start: number; end: number; meetingTypeId: string };
export type Block = { host: string; start: number; end: number };
export type Slot = { start: number; end: number; hosts: string[] };

export type Calendar = { bookings: Commitment[]; blocks: Block[] };

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** `HH:MM` from 00:00 to 24:00. */
export const isWallTime = (v: string) => /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/.test(v);

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
function wallInside(date: Temporal.PlainDate, a: number, b: number, start: number, end: number, zone: string): boolean {
  const inRange = (ms: number) => {
    const w = wallOf(ms, zone);
    return w.date.equals(date) && w.minutes >= a && w.minutes < b;
  };
  if (!inRange(start) || !inRange(end - MINUTE)) return false;
  const next = Temporal.Instant.fromEpochMilliseconds(start).toZonedDateTimeISO(zone).getTimeZoneTransition('next');
  if (next && next.epochMilliseconds < end) return inRange(next.epochMilliseconds - MINUTE) && inRange(next.epochMilliseconds);
  return true;
}

export const localDateOf = (ms: number, zone: string) => wallOf(ms, zone).date;

/** The local dates whose windows can produce a slot starting in [from, to). */
function datesCovering(from: number, to: number, zone: string): Temporal.PlainDate[] {
  const first = localDateOf(from, zone).subtract({ days: 1 });
  const last = localDateOf(to, zone);
  const out: Temporal.PlainDate[] = [];
  for (let d = first; Temporal.PlainDate.compare(d, last) <= 0; d = d.add({ days: 1 })) out.push(d);
  return out;
}

/**
 * Every start the weekly hours allow in [from, to), ascending: starts step by
 * the interval in wall-clock time from each window's start, and a slot must
 * end by the window's end. Wall times a DST gap skips are not offered; on a
 * fall-back day a repeated wall time is offered once (its first occurrence).
 */
export function candidateStarts(rules: Pick<SlotRules, 'zone' | 'weeklyHours' | 'durationMinutes' | 'intervalMinutes'>, from: number, to: number): { start: number; day: string }[] {
  const out: { start: number; day: string }[] = [];
  const dur = rules.durationMinutes * MINUTE;
  const step = rules.intervalMinutes;
  for (const date of datesCovering(from, to, rules.zone)) {
    const windows = rules.weeklyHours[WEEKDAYS[date.dayOfWeek - 1]] ?? [];
    const day = date.toString();
    for (const [a, b] of windows) {
      const am = minutesOf(a);
      const bm = minutesOf(b);
      const winStart = boundaryOf(date, am, rules.zone);
      const winEnd = boundaryOf(date, bm, rules.zone);
      // No offset change inside the window: wall-clock steps are plain instant steps.
      const steady = winEnd - winStart === (bm - am) * MINUTE && wallOf(winStart, rules.zone).minutes === am && wallOf(winEnd, rules.zone).minutes === bm % 1440;
      for (let m = am; m + rules.durationMinutes <= bm; m += step) {
        let start: number;
        if (steady) start = winStart + (m - am) * MINUTE;
        else {
          start = instantOf(date, m, rules.zone);
          if (wallOf(start, rules.zone).minutes !== m) continue; // inside a DST gap
          if (!wallInside(date, am, bm, start, start + dur, rules.zone)) continue;
        }
        if (start >= from && start < to) out.push({ start, day });
      }
    }
  }
  out.sort((x, y) => x.start - y.start);
  // Overlapping windows of one day offer a start once.
  return out.filter((c, i) => i === 0 || c.start !== out[i - 1].start);
}

/** Whether [start, end) lies inside one weekly-hours window of its local day. */
export function insideWeeklyHours(rules: Pick<SlotRules, 'zone' | 'weeklyHours' | 'durationMinutes' | 'intervalMinutes'>, start: number, end: number): boolean {
  for (const date of datesCovering(start, start + 1, rules.zone)) {
    for (const [a, b] of rules.weeklyHours[WEEKDAYS[date.dayOfWeek - 1]] ?? []) {
      if (wallInside(date, minutesOf(a), minutesOf(b), start, end, rules.zone)) return true;
    }
  }
  return false;
}

/** What stands between one host and one slot: `hard` a genuine overlap with a confirmed booking; `soft` the reasons a forced reassign may override. */
export type HostCheck = { hard: boolean; soft: string[] };

type HostIndex = {
  /** The host's bookings, by start, and the longest one (where a scan for overlaps may begin). */
  bookings: Commitment[];
  longestBooking: number;
  blocks: Block[];
  longestBlock: number;
  /** Per local day (`YYYY-MM-DD`), the host's bookings of this meeting type (daily cap). */
  perDay: Map<string, number>;
};

function indexHosts(rules: SlotRules, cal: Calendar, hosts: string[], ignoreBookingId?: string): Map<string, HostIndex> {
  const idx = new Map<string, HostIndex>(hosts.map((h) => [h, { bookings: [], longestBooking: 0, blocks: [], longestBlock: 0, perDay: new Map() }]));
  for (const b of cal.bookings) {
    if (b.id === ignoreBookingId) continue;
    let day: string | null = null;
    for (const h of b.hosts) {
      const entry = idx.get(h);
      if (!entry) continue;
      entry.bookings.push(b);
      if (rules.dailyCap !== null && b.meetingTypeId === rules.meetingTypeId) {
        day ??= localDateOf(b.start, rules.zone).toString();
        entry.perDay.set(day, (entry.perDay.get(day) ?? 0) + 1);
      }
    }
  }
  for (const bl of cal.blocks) idx.get(bl.host)?.blocks.push(bl);
  for (const entry of idx.values()) {
    entry.bookings.sort((x, y) => x.start - y.start);
    entry.blocks.sort((x, y) => x.start - y.start);
    entry.longestBooking = Math.max(0, ...entry.bookings.map((b) => b.end - b.start));
    entry.longestBlock = Math.max(0, ...entry.blocks.map((b) => b.end - b.start));
  }
  return idx;
}

/** The first index whose `start` is at least `at` (the list sorted by start). */
function firstFrom(list: { start: number }[], at: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid].start < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const overlaps = (s1: number, e1: number, s2: number, e2: number) => s1 < e2 && s2 < e1;

/**
 * One host against one slot [start, end) of the day `day`. A confirmed booking
 * overlapping the slot is hard; one overlapping only the slot padded by the
 * buffers (`start - before`, `end + after`), a busy block, the daily cap, the
 * minimum notice and the weekly hours are soft.
 */
function checkHost(rules: SlotRules, entry: HostIndex, start: number, end: number, day: string, now: number, inHours: boolean): HostCheck {
  const soft: string[] = [];
  const padStart = start - rules.bufferBeforeMinutes * MINUTE;
  const padEnd = end + rules.bufferAfterMinutes * MINUTE;
  let hard = false;
  let buffer = false;
  for (let i = firstFrom(entry.bookings, padStart - entry.longestBooking); i < entry.bookings.length; i++) {
    const b = entry.bookings[i];
    if (b.start >= padEnd) break;
    if (!overlaps(padStart, padEnd, b.start, b.end)) continue;
    if (overlaps(start, end, b.start, b.end)) hard = true;
    else buffer = true;
  }
  if (!inHours) soft.push('outside the schedule window');
  if (start < now + rules.minNoticeMinutes * MINUTE) soft.push('inside the minimum notice');
  if (buffer) soft.push('inside the buffer of another booking');
  if (rules.dailyCap !== null && (entry.perDay.get(day) ?? 0) >= rules.dailyCap) soft.push('daily cap reached');
  for (let i = firstFrom(entry.blocks, start - entry.longestBlock); i < entry.blocks.length; i++) {
    const bl = entry.blocks[i];
    if (bl.start >= end) break;
    if (overlaps(start, end, bl.start, bl.end)) {
      soft.push('busy in an external calendar');
      break;
    }
  }
  return { hard, soft };
}

const free = (c: HostCheck) => !c.hard && c.soft.length === 0;

/** Which hosts of a slot are free; open when any (round-robin) or every (collective, one-on-one) host is. */
function openHosts(rules: SlotRules, idx: Map<string, HostIndex>, start: number, end: number, day: string, now: number, inHours: boolean, only?: string): string[] | null {
  if (rules.hosts.length === 0) return null;
  const pool = only ? [only] : rules.hosts;
  const freeHosts = pool.filter((h) => free(checkHost(rules, idx.get(h)!, start, end, day, now, inHours)));
  if (rules.kind === 'round_robin') return freeHosts.length ? freeHosts : null;
  return freeHosts.length === pool.length ? freeHosts : null;
}

/**
 * The open slots in [from, to): inside weekly hours, after the minimum notice,
 * and free for any eligible host (round-robin), every host (collective) or the
 * host (one-on-one, or a pinned round-robin host). Each slot lists its free
 * hosts. Linear in candidates x hosts x the host's commitments near the slot.
 */
export function openSlots(rules: SlotRules, cal: Calendar, from: number, to: number, now: number, opts: { pinned?: string; ignoreBookingId?: string } = {}): Slot[] {
  const idx = indexHosts(rules, cal, rules.hosts, opts.ignoreBookingId);
  const earliest = now + rules.minNoticeMinutes * MINUTE;
  const dur = rules.durationMinutes * MINUTE;
  const out: Slot[] = [];
  for (const { start, day } of candidateStarts(rules, Math.max(from, earliest), to)) {
    const hosts = openHosts(rules, idx, start, start + dur, day, now, true, opts.pinned);
    if (hosts) out.push({ start, end: start + dur, hosts });
  }
  return out;
}

/** The checks of one host for one start (the reassign target; the booking itself ignored). */
export function checkHostAt(rules: SlotRules, cal: Calendar, host: string, start: number, now: number, ignoreBookingId?: string): HostCheck {
  const idx = indexHosts(rules, cal, [host], ignoreBookingId);
  const end = start + rules.durationMinutes * MINUTE;
  const day = localDateOf(start, rules.zone).toString();
  return checkHost(rules, idx.get(host)!, start, end, day, now, insideWeeklyHours(rules, start, end));
}

/** The slot at exactly `start`, when open (with its free hosts). */
export function slotAt(rules: SlotRules, cal: Calendar, start: number, now: number, opts: { pinned?: string; ignoreBookingId?: string } = {}): Slot | null {
  const [slot] = openSlots(rules, cal, start, start + 1, now, opts);
  return slot && slot.start === start ? slot : null;
}

/** The instant range whose commitments can affect slots in [from, to): widened by the buffers and a day each side (daily cap). */
export function calendarWindow(rules: Pick<SlotRules, 'bufferBeforeMinutes' | 'bufferAfterMinutes' | 'durationMinutes' | 'dailyCap'>, from: number, to: number): { from: number; to: number } {
  const pad = rules.dailyCap !== null ? 2 * DAY_MS : 0;
  return {
    from: from - rules.bufferBeforeMinutes * MINUTE - rules.durationMinutes * MINUTE - pad,
    to: to + rules.bufferAfterMinutes * MINUTE + rules.durationMinutes * MINUTE + pad,
  };
}

/**
 * Round-robin fairness: the eligible host with the fewest confirmed bookings
 * created in the trailing 30 days; ties go to the least recently booked
 * (never booked first), then pool order.
 */
export function pickFairest(candidates: string[], stats: Map<string, { count: number; lastBookedAt: string | null }>, pool: string[]): string | null {
  let best: string | null = null;
  const rank = (h: string) => stats.get(h) ?? { count: 0, lastBookedAt: null };
  for (const h of candidates) {
    if (best === null) {
      best = h;
      continue;
    }
    const a = rank(h);
    const b = rank(best);
    if (a.count !== b.count) {
      if (a.count < b.count) best = h;
      continue;
    }
    const la = a.lastBookedAt ?? '';
    const lb = b.lastBookedAt ?? '';
    if (la !== lb) {
      if (la < lb) best = h;
      continue;
    }
    if (pool.indexOf(h) < pool.indexOf(best)) best = h;
  }
  return best;
}

/**
 * What a booking at [start, end) must hold on each host's SlotLock: the slot
 * padded by the buffers, widened to the host-local day when a daily cap
 * applies (two bookings the same day must not both pass the cap).
 */
export function lockRange(rules: Pick<SlotRules, 'zone' | 'bufferBeforeMinutes' | 'bufferAfterMinutes' | 'dailyCap'>, start: number, end: number): { start: number; end: number } {
  let lo = start - rules.bufferBeforeMinutes * MINUTE;
  let hi = end + rules.bufferAfterMinutes * MINUTE;
  if (rules.dailyCap !== null) {
    const day = localDateOf(start, rules.zone);
    lo = Math.min(lo, day.toZonedDateTime(rules.zone).epochMilliseconds);
    hi = Math.max(hi, day.add({ days: 1 }).toZonedDateTime(rules.zone).epochMilliseconds);
  }
  return { start: lo, end: hi };
}
