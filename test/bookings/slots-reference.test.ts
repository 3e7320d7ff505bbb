import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { slotListJson } from '../../src/modules/bookings/slot-listing';
import type { WeeklyHours } from '../../src/modules/bookings/schema';
import { openSlots, openStarts, slotAt, type Calendar, type Slot, type SlotRules } from '../../src/modules/bookings/slots';

/*
 * The slot engine against a straightforward reference: every wall time of every
 * window of every local day, its instant found by trying the zone's offsets
 * around it, every 5th minute of the slot read back through Intl, and each host
 * checked against every commitment. No Temporal, no sorting, no sweeping.
 */

const MIN = 60_000;
const DAY = 86_400_000;
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

const formats = new Map<string, Intl.DateTimeFormat>();
/** The wall clock of an instant in a zone: its local date and minutes since midnight, through Intl. */
function wall(ms: number, zone: string) {
  let f = formats.get(zone);
  if (!f)
    formats.set(
      zone,
      (f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })),
    );
  const p = Object.fromEntries(f.formatToParts(new Date(ms)).map((x) => [x.type, x.value]));
  return { date: `${p.year}-${p.month}-${p.day}`, minutes: Number(p.hour) * 60 + Number(p.minute), seconds: Number(p.second) };
}

/** The zone's offset at an instant: its wall clock read as UTC, less the instant. */
function offsetAt(ms: number, zone: string) {
  const w = wall(ms, zone);
  return Date.parse(`${w.date}T00:00:00Z`) + w.minutes * MIN + w.seconds * 1000 - (ms - (ms % 1000));
}

/** The first instant reading `date` at `minutes`, or null when the clocks skip it. */
function firstInstantOf(date: string, minutes: number, zone: string): number | null {
  const local = Date.parse(`${date}T00:00:00Z`) + minutes * MIN;
  const found = [offsetAt(local - DAY, zone), offsetAt(local + DAY, zone)]
    .map((offset) => local - offset)
    .filter((t) => {
      const w = wall(t, zone);
      return w.date === date && w.minutes === minutes && w.seconds === 0;
    });
  return found.length ? Math.min(...found) : null;
}

const toMin = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

function referenceSlots(
  rules: SlotRules,
  cal: Calendar,
  from: number,
  to: number,
  now: number,
  opts: { pinned?: string; ignoreBookingId?: string } = {},
): Slot[] {
  const dur = rules.durationMinutes * MIN;
  const starts = new Set<number>();
  const lastDate = wall(to + DAY, rules.zone).date;
  for (
    let date = wall(from - DAY, rules.zone).date;
    date <= lastDate;
    date = new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10)
  ) {
    const weekday = WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()];
    for (const [a, b] of rules.weeklyHours[weekday] ?? []) {
      for (let m = toMin(a); m + rules.durationMinutes <= toMin(b); m += rules.intervalMinutes) {
        const start = firstInstantOf(date, m, rules.zone);
        if (start === null || start < from || start >= to || start < now + rules.minNoticeMinutes * MIN) continue;
        const samples = [];
        for (let t = start; t < start + dur; t += 5 * MIN) samples.push(t);
        samples.push(start + dur - MIN);
        if (
          samples.every((t) => wall(t, rules.zone).date === date && wall(t, rules.zone).minutes >= toMin(a) && wall(t, rules.zone).minutes < toMin(b))
        )
          starts.add(start);
      }
    }
  }
  const pool = opts.pinned ? [opts.pinned] : rules.hosts;
  const out: Slot[] = [];
  for (const start of [...starts].sort((x, y) => x - y)) {
    const end = start + dur;
    const day = wall(start, rules.zone).date;
    const free = pool.filter((h) => {
      const own = cal.bookings.filter((c) => c.id !== opts.ignoreBookingId && c.hosts.includes(h));
      if (own.some((c) => c.start < end + rules.bufferAfterMinutes * MIN && c.end > start - rules.bufferBeforeMinutes * MIN)) return false;
      if (cal.blocks.some((c) => c.host === h && c.start < end && c.end > start)) return false;
      const sameDay = own.filter((c) => c.meetingTypeId === rules.meetingTypeId && wall(c.start, rules.zone).date === day).length;
      return rules.dailyCap === null || sameDay < rules.dailyCap;
    });
    const open = rules.hosts.length > 0 && (rules.kind === 'round_robin' ? free.length > 0 : free.length === pool.length);
    if (open) out.push({ start, end, hosts: free });
  }
  return out;
}

/** Days whose clocks change (Berlin: last Sundays of March and October; New York: second Sunday of March, first of November), and plain ones. */
const DAYS = [
  { zone: 'Europe/Berlin', day: '2026-03-29' },
  { zone: 'Europe/Berlin', day: '2026-10-25' },
  { zone: 'Europe/Berlin', day: '2026-07-14' },
  { zone: 'America/New_York', day: '2026-03-08' },
  { zone: 'America/New_York', day: '2026-11-01' },
  { zone: 'America/New_York', day: '2026-01-20' },
  { zone: 'Australia/Lord_Howe', day: '2026-04-05' },
  { zone: 'Asia/Kolkata', day: '2026-06-01' },
];

const HOSTS = ['h1', 'h2', 'h3'];
const wallTime = fc.integer({ min: 0, max: 96 }).map((q) => `${String(Math.floor(q / 4)).padStart(2, '0')}:${String((q % 4) * 15).padStart(2, '0')}`);
const weeklyHours = fc.record(
  Object.fromEntries(
    WEEKDAYS.map((d) => [
      d,
      fc.array(
        fc.tuple(wallTime, wallTime).filter(([a, b]) => a < b),
        { maxLength: 2 },
      ),
    ]),
  ) as Record<string, fc.Arbitrary<[string, string][]>>,
) as fc.Arbitrary<WeeklyHours>;

const caseArb = fc.record({
  place: fc.constantFrom(...DAYS),
  weeklyHours,
  durationMinutes: fc.constantFrom(15, 30, 45, 60, 90),
  intervalMinutes: fc.constantFrom(15, 30, 60),
  minNoticeMinutes: fc.constantFrom(0, 90, 1500),
  bufferBeforeMinutes: fc.constantFrom(0, 10, 30),
  bufferAfterMinutes: fc.constantFrom(0, 15, 45),
  dailyCap: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  kind: fc.constantFrom('one_on_one', 'round_robin', 'collective') as fc.Arbitrary<SlotRules['kind']>,
  // From a day before the day to 1-3 days after it, starting at any quarter hour.
  startQuarter: fc.integer({ min: -96, max: 0 }),
  days: fc.integer({ min: 1, max: 3 }),
  nowMinutes: fc.integer({ min: -600, max: 1800 }),
  bookings: fc.array(
    fc.record({
      hosts: fc.subarray(HOSTS, { minLength: 1, maxLength: 2 }),
      startMin: fc.integer({ min: -2880, max: 5760 }),
      len: fc.constantFrom(15, 30, 60, 120),
      same: fc.boolean(),
    }),
    { maxLength: 25 },
  ),
  blocks: fc.array(fc.record({ host: fc.constantFrom(...HOSTS), startMin: fc.integer({ min: -2880, max: 5760 }), len: fc.constantFrom(30, 240) }), {
    maxLength: 4,
  }),
  pinned: fc.option(fc.constantFrom(...HOSTS), { nil: undefined }),
  ignoreFirst: fc.boolean(),
});

describe('slot engine against a straightforward reference', () => {
  it('the same open slots, free hosts, listing and single-slot answers, across DST days, buffers, notice, caps, blocks and pools', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const hosts = c.kind === 'one_on_one' ? ['h1'] : HOSTS;
        const rules: SlotRules = { ...c, zone: c.place.zone, hosts, meetingTypeId: 'mt' };
        const dayStart = Date.parse(`${c.place.day}T00:00:00Z`);
        const from = dayStart + c.startQuarter * 15 * MIN;
        const to = from + c.days * DAY;
        const cal: Calendar = {
          bookings: c.bookings.map((b, i) => ({
            id: `b${i}`,
            hosts: b.hosts,
            start: dayStart + b.startMin * MIN,
            end: dayStart + (b.startMin + b.len) * MIN,
            meetingTypeId: b.same ? 'mt' : 'other',
          })),
          blocks: c.blocks.map((b) => ({ host: b.host, start: dayStart + b.startMin * MIN, end: dayStart + (b.startMin + b.len) * MIN })),
        };
        const now = dayStart + c.nowMinutes * MIN;
        const opts = { pinned: c.kind === 'round_robin' ? c.pinned : undefined, ignoreBookingId: c.ignoreFirst ? 'b0' : undefined };
        const expected = referenceSlots(rules, cal, from, to, now, opts);
        expect(openSlots(rules, cal, from, to, now, opts)).toEqual(expected);
        expect(openStarts(rules, cal, from, to, now)).toEqual(referenceSlots(rules, cal, from, to, now).map((s) => s.start));
        for (const slot of expected.slice(0, 3)) expect(slotAt(rules, cal, slot.start, now, opts)).toEqual(slot);
        // Any instant: a slot exactly when the reference has one starting there.
        for (const probe of [from + 7 * MIN, from + 6 * 60 * MIN, from + 30 * 60 * MIN])
          expect(slotAt(rules, cal, probe, now, opts)).toEqual(referenceSlots(rules, cal, probe, probe + 1, now, opts)[0] ?? null);
      }),
      { numRuns: 150 },
    );
  });

  it('62 days of 5-minute slots for 5 hosts and 500 bookings: the listing equals the reference', () => {
    const hosts = ['h1', 'h2', 'h3', 'h4', 'h5'];
    const rules: SlotRules = {
      zone: 'America/New_York',
      weeklyHours: Object.fromEntries(WEEKDAYS.map((d) => [d, [['00:00', '24:00']]])) as WeeklyHours,
      durationMinutes: 5,
      intervalMinutes: 5,
      minNoticeMinutes: 0,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 5,
      dailyCap: null,
      kind: 'collective',
      hosts,
      meetingTypeId: 'mt',
    };
    // April and May: New York keeps one offset, so every 5 minutes is a start.
    const from = Date.parse('2026-04-01T04:00:00Z');
    const to = from + 62 * DAY;
    const cal: Calendar = {
      bookings: Array.from({ length: 500 }, (_, i) => {
        const start = from + Math.floor((i * 62 * 288) / 500) * 5 * MIN;
        return { id: `b${i}`, hosts: [hosts[i % 5]], start, end: start + 5 * MIN, meetingTypeId: 'mt' };
      }),
      blocks: [],
    };
    const starts = openStarts(rules, cal, from, to, 0);
    expect(starts.length).toBeGreaterThan(16_000);
    // The reference checks hosts one by one over every booking: compare the collective listing against the plain rule.
    const taken = (s: number) => cal.bookings.some((b) => b.start < s + 10 * MIN && b.end > s);
    const expected: number[] = [];
    for (let s = from; s < to; s += 5 * MIN) if (!taken(s)) expected.push(s);
    expect(starts).toEqual(expected);
  });
});

describe('the slots answer as JSON text', () => {
  it('is exactly what serializing the slots with toISOString gives', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.integer({ min: 0, max: 5_000_000 }).map((m) => Date.UTC(2020, 0, 1) + m * MIN),
            fc.integer({ min: 0, max: 2 ** 42 }),
          ),
          { maxLength: 50 },
        ),
        fc.constantFrom(5, 30, 720),
        (starts, durationMinutes) => {
          const list = { meetingTypeId: '01a2b3c4-0000-7000-8000-000000000000', timezone: 'Europe/Berlin', durationMinutes, starts };
          const expected = JSON.stringify({
            meeting_type_id: list.meetingTypeId,
            timezone: list.timezone,
            duration_minutes: durationMinutes,
            slots: starts.map((s) => ({ start: new Date(s).toISOString(), end: new Date(s + durationMinutes * MIN).toISOString() })),
          });
          expect(slotListJson(list)).toBe(expected);
        },
      ),
    );
  });
});
