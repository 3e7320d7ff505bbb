import type { Temporal } from 'temporal-polyfill';
import { WEEKDAYS, type SchedulingKind, type WeeklyHours } from './schema';
import {
  localDateOf,
  localDay,
  plainDateOf,
  startsAcrossChange,
  steadyOffset,
  wallInside,
  weekdayOf,
  zoneOffsets,
  type ZoneOffsets,
} from './zone-time';

/*
 * The slot engine: pure functions over a meeting type's rules and the hosts'
 * commitments (confirmed bookings, busy blocks), all instants in epoch ms.
 * Wall-clock rules (weekly hours, the daily cap's day) are read in the
 * schedule's IANA zone. The zone's offsets over a request's range come from
 * Temporal (the `temporal-polyfill` package: the runtime has no native Temporal
 * yet) once; a day far from any offset change converts with arithmetic, and
 * only the windows near a change go through Temporal wall time by wall time,
 * so DST days and half-hour zones come out right without any fixed offset.
 */

const MINUTE = 60_000;
const DAY_MS = 86_400_000;

/** The longest meeting a type may have, so the longest booking: calendar reads bound their scans with it. */
export const MAX_DURATION_MINUTES = 720;

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

// ---------------------------------------------------------------- candidate starts

/** Ascending distinct starts, each with its local day (days since 1970-01-01). */
export type Candidates = { starts: number[]; days: number[] };

/** The offsets a request over [from, to) needs: its days, the day before, and its commitments' days. */
const offsetsAround = (zone: string, from: number, to: number) => zoneOffsets(zone, from - 3 * DAY_MS, to + 3 * DAY_MS);

/**
 * Every start the weekly hours allow in [from, to), ascending: starts step by
 * the interval in wall-clock time from each window's start, and a slot must
 * end by the window's end. Wall times a DST gap skips are not offered; on a
 * fall-back day a repeated wall time is offered once (its first occurrence).
 * A window a day or more from any offset change is stepped with arithmetic.
 */
export function candidateStarts(
  rules: Pick<SlotRules, 'zone' | 'weeklyHours' | 'durationMinutes' | 'intervalMinutes'>,
  from: number,
  to: number,
  offsets = offsetsAround(rules.zone, from, to),
): Candidates {
  const starts: number[] = [];
  const days: number[] = [];
  let ordered = true;
  const push = (start: number, day: number) => {
    if (start < from || start >= to) return;
    if (starts.length && start <= starts[starts.length - 1]) ordered = false;
    starts.push(start);
    days.push(day);
  };
  const stepMs = rules.intervalMinutes * MINUTE;
  const last = localDay(offsets, to);
  for (let day = localDay(offsets, from) - 1; day <= last; day++) {
    const windows = rules.weeklyHours[WEEKDAYS[weekdayOf(day)]];
    if (!windows) continue;
    for (const [a, b] of windows) {
      const am = minutesOf(a);
      const bm = minutesOf(b);
      const opens = day * DAY_MS + am * MINUTE;
      const off = steadyOffset(offsets, opens, day * DAY_MS + bm * MINUTE);
      if (off === null) {
        for (const start of startsAcrossChange(rules, plainDateOf(day), am, bm)) push(start, day);
        continue;
      }
      const base = opens - off;
      const skip = from > base ? Math.ceil((from - base) / stepMs) : 0;
      for (let m = am + skip * rules.intervalMinutes; m + rules.durationMinutes <= bm; m += rules.intervalMinutes) {
        const start = base + (m - am) * MINUTE;
        if (start >= to) break;
        push(start, day);
      }
    }
  }
  if (ordered) return { starts, days };
  // Windows out of order or overlapping on one day: sort, and offer a start once.
  const order = starts.map((_, i) => i).sort((x, y) => starts[x] - starts[y] || x - y);
  const sorted: Candidates = { starts: [], days: [] };
  for (const i of order) {
    if (sorted.starts.length && sorted.starts[sorted.starts.length - 1] === starts[i]) continue;
    sorted.starts.push(starts[i]);
    sorted.days.push(days[i]);
  }
  return sorted;
}

/** The local dates whose windows can hold [start, ...). */
function datesAround(start: number, zone: string): Temporal.PlainDate[] {
  const date = localDateOf(start, zone);
  return [date.subtract({ days: 1 }), date];
}

/** Whether [start, end) lies inside one weekly-hours window of its local day. */
export function insideWeeklyHours(rules: Pick<SlotRules, 'zone' | 'weeklyHours'>, start: number, end: number): boolean {
  for (const date of datesAround(start, rules.zone)) {
    for (const [a, b] of rules.weeklyHours[WEEKDAYS[date.dayOfWeek - 1]] ?? []) {
      if (wallInside(date, minutesOf(a), minutesOf(b), start, end, rules.zone)) return true;
    }
  }
  return false;
}

// ---------------------------------------------------------------- hosts

const overlaps = (s1: number, e1: number, s2: number, e2: number) => s1 < e2 && s2 < e1;

/**
 * One host's availability over ascending starts. Each commitment rules out an
 * open range of starts: a booking [s, e) every start in (s - duration - buffer
 * after, e + buffer before), the slot padded by the buffers overlapping it; a
 * busy block [s, e) every start in (s - duration, e). Sorted by their low ends
 * and swept once: a start is taken when a range opening below it reaches past
 * it. Also the daily cap: the host's bookings of this type per local day.
 */
type HostSweep = (start: number, day: number) => boolean;

function hostSweeps(rules: SlotRules, cal: Calendar, hosts: string[], offsets: ZoneOffsets, ignoreBookingId?: string): HostSweep[] {
  const dur = rules.durationMinutes * MINUTE;
  const before = rules.bufferBeforeMinutes * MINUTE;
  const after = rules.bufferAfterMinutes * MINUTE;
  const index = new Map(hosts.map((h, i) => [h, i]));
  const ranges: [number, number][][] = hosts.map(() => []);
  const perDay: Map<number, number>[] = hosts.map(() => new Map());
  for (const b of cal.bookings) {
    if (b.id === ignoreBookingId) continue;
    const counted = rules.dailyCap !== null && b.meetingTypeId === rules.meetingTypeId;
    for (const h of b.hosts) {
      const i = index.get(h);
      if (i === undefined) continue;
      ranges[i].push([b.start - dur - after, b.end + before]);
      if (counted) {
        const day = localDay(offsets, b.start);
        perDay[i].set(day, (perDay[i].get(day) ?? 0) + 1);
      }
    }
  }
  for (const bl of cal.blocks) {
    const i = index.get(bl.host);
    if (i !== undefined) ranges[i].push([bl.start - dur, bl.end]);
  }
  return hosts.map((_, i) => {
    const own = ranges[i].sort((x, y) => x[0] - y[0]);
    const cap = rules.dailyCap;
    const days = perDay[i];
    let next = 0;
    let reach = -Infinity;
    return (start, day) => {
      while (next < own.length && own[next][0] < start) reach = Math.max(reach, own[next++][1]);
      return reach <= start && (cap === null || (days.get(day) ?? 0) < cap);
    };
  });
}

/**
 * Calls `visit` for each open start in [from, to), ascending: inside weekly
 * hours, after the minimum notice, and free for any eligible host
 * (round-robin), every host (collective) or the host (one-on-one, or a pinned
 * host). With `freeHosts`, `visit` gets the free hosts (a list it must copy to
 * keep); without, the look stops at the first host that decides the slot.
 */
function eachOpenStart(
  rules: SlotRules,
  cal: Calendar,
  from: number,
  to: number,
  now: number,
  opts: { pinned?: string; ignoreBookingId?: string },
  freeHosts: boolean,
  visit: (start: number, hosts: string[]) => void,
): void {
  if (rules.hosts.length === 0) return;
  // A pinned host outside the eligible pool is never free.
  if (opts.pinned !== undefined && !rules.hosts.includes(opts.pinned)) return;
  const lo = Math.max(from, now + rules.minNoticeMinutes * MINUTE);
  if (lo >= to) return;
  const offsets = offsetsAround(rules.zone, lo, to);
  const { starts, days } = candidateStarts(rules, lo, to, offsets);
  const pool = opts.pinned !== undefined ? [opts.pinned] : rules.hosts;
  const sweeps = hostSweeps(rules, cal, pool, offsets, opts.ignoreBookingId);
  const any = rules.kind === 'round_robin';
  const free: string[] = [];
  for (let k = 0; k < starts.length; k++) {
    const start = starts[k];
    const day = days[k];
    let open: boolean;
    if (freeHosts) {
      free.length = 0;
      for (let i = 0; i < pool.length; i++) if (sweeps[i](start, day)) free.push(pool[i]);
      open = any ? free.length > 0 : free.length === pool.length;
    } else {
      open = any ? sweeps.some((free) => free(start, day)) : sweeps.every((free) => free(start, day));
    }
    if (open) visit(start, free);
  }
}

/**
 * The open slots in [from, to), each with its free hosts. Linear in
 * candidates x hosts, plus sorting each host's commitments once.
 */
export function openSlots(
  rules: SlotRules,
  cal: Calendar,
  from: number,
  to: number,
  now: number,
  opts: { pinned?: string; ignoreBookingId?: string } = {},
): Slot[] {
  const dur = rules.durationMinutes * MINUTE;
  const out: Slot[] = [];
  eachOpenStart(rules, cal, from, to, now, opts, true, (start, hosts) => out.push({ start, end: start + dur, hosts: hosts.slice() }));
  return out;
}

/** The starts of the open slots in [from, to), for listing them. */
export function openStarts(rules: SlotRules, cal: Calendar, from: number, to: number, now: number): number[] {
  const out: number[] = [];
  eachOpenStart(rules, cal, from, to, now, {}, false, (start) => out.push(start));
  return out;
}

/** The slot at exactly `start`, when open (with its free hosts). */
export function slotAt(
  rules: SlotRules,
  cal: Calendar,
  start: number,
  now: number,
  opts: { pinned?: string; ignoreBookingId?: string } = {},
): Slot | null {
  const [slot] = openSlots(rules, cal, start, start + 1, now, opts);
  return slot && slot.start === start ? slot : null;
}

/** What stands between one host and one slot: `hard` a genuine overlap with a confirmed booking; `soft` the reasons a forced reassign may override. */
export type HostCheck = { hard: boolean; soft: string[] };

/**
 * One host against one start (the reassign target; the booking itself
 * ignored). A confirmed booking overlapping the slot is hard; one overlapping
 * only the slot padded by the buffers, a busy block, the daily cap, the
 * minimum notice and the weekly hours are soft.
 */
export function checkHostAt(rules: SlotRules, cal: Calendar, host: string, start: number, now: number, ignoreBookingId?: string): HostCheck {
  const end = start + rules.durationMinutes * MINUTE;
  const padStart = start - rules.bufferBeforeMinutes * MINUTE;
  const padEnd = end + rules.bufferAfterMinutes * MINUTE;
  const day = rules.dailyCap !== null ? localDateOf(start, rules.zone).toString() : '';
  let hard = false;
  let buffer = false;
  let sameDay = 0;
  for (const b of cal.bookings) {
    if (b.id === ignoreBookingId || !b.hosts.includes(host)) continue;
    if (overlaps(padStart, padEnd, b.start, b.end)) {
      if (overlaps(start, end, b.start, b.end)) hard = true;
      else buffer = true;
    }
    if (rules.dailyCap !== null && b.meetingTypeId === rules.meetingTypeId && localDateOf(b.start, rules.zone).toString() === day) sameDay++;
  }
  const soft: string[] = [];
  if (!insideWeeklyHours(rules, start, end)) soft.push('outside the schedule window');
  if (start < now + rules.minNoticeMinutes * MINUTE) soft.push('inside the minimum notice');
  if (buffer) soft.push('inside the buffer of another booking');
  if (rules.dailyCap !== null && sameDay >= rules.dailyCap) soft.push('daily cap reached');
  if (cal.blocks.some((bl) => bl.host === host && overlaps(start, end, bl.start, bl.end))) soft.push('busy in an external calendar');
  return { hard, soft };
}

/** The instant range whose commitments can affect slots in [from, to): widened by the buffers and a day each side (daily cap). */
export function calendarWindow(
  rules: Pick<SlotRules, 'bufferBeforeMinutes' | 'bufferAfterMinutes' | 'durationMinutes' | 'dailyCap'>,
  from: number,
  to: number,
): { from: number; to: number } {
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
export function lockRange(
  rules: Pick<SlotRules, 'zone' | 'bufferBeforeMinutes' | 'bufferAfterMinutes' | 'dailyCap'>,
  start: number,
  end: number,
): { start: number; end: number } {
  let lo = start - rules.bufferBeforeMinutes * MINUTE;
  let hi = end + rules.bufferAfterMinutes * MINUTE;
  if (rules.dailyCap !== null) {
    const day = localDateOf(start, rules.zone);
    lo = Math.min(lo, day.toZonedDateTime(rules.zone).epochMilliseconds);
    hi = Math.max(hi, day.add({ days: 1 }).toZonedDateTime(rules.zone).epochMilliseconds);
  }
  return { start: lo, end: hi };
}
