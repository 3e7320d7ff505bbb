import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateStarts, checkHostAt, openSlots, pickFairest, type Commitment, type SlotRules } from '../../src/modules/bookings/slots';
import type { WeeklyHours } from '../../src/modules/bookings/schema';

const MIN = 60_000;
const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/** Wall clock of an instant in a zone, read independently of the engine (Intl, not Temporal). */
const formats = new Map<string, Intl.DateTimeFormat>();
function wall(ms: number, zone: string) {
  if (!formats.has(zone)) {
    formats.set(
      zone,
      new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        weekday: 'short',
      }),
    );
  }
  const parts = Object.fromEntries(
    formats
      .get(zone)!
      .formatToParts(new Date(ms))
      .map((p) => [p.type, p.value]),
  );
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
    weekday: parts.weekday.toLowerCase().slice(0, 3),
  };
}

const toMin = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));

/**
 * Every minute of the slot lies in one window of its local weekday: sampled
 * each 5 minutes and at its last minute, each reads on the slot's local day
 * inside the window's wall times (a fall-back fold may repeat wall times).
 */
function insideHours(slot: { start: number; end: number }, zone: string, hours: WeeklyHours): boolean {
  const s = wall(slot.start, zone);
  const samples: ReturnType<typeof wall>[] = [];
  for (let t = slot.start; t < slot.end; t += 5 * MIN) samples.push(wall(t, zone));
  samples.push(wall(slot.end - MIN, zone));
  return (hours[s.weekday as keyof WeeklyHours] ?? []).some(([a, b]) =>
    samples.every((w) => w.date === s.date && w.minutes >= toMin(a) && w.minutes < toMin(b)),
  );
}

const ZONES = [
  { zone: 'America/New_York', days: ['2026-03-08', '2026-11-01'] },
  { zone: 'Europe/Berlin', days: ['2026-03-29', '2026-10-25'] },
  { zone: 'Asia/Kolkata', days: ['2026-06-01'] },
  { zone: 'Australia/Lord_Howe', days: ['2026-04-05', '2026-10-04'] },
];

const wallTime = fc.integer({ min: 0, max: 48 }).map((h) => `${String(Math.floor(h / 2)).padStart(2, '0')}:${h % 2 ? '30' : '00'}`);
const window = fc.tuple(wallTime, wallTime).filter(([a, b]) => toMin(a) < toMin(b));
const weeklyHours: fc.Arbitrary<WeeklyHours> = fc.record(
  Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, fc.array(window, { maxLength: 2 })])) as Record<
    string,
    fc.Arbitrary<[string, string][]>
  >,
) as fc.Arbitrary<WeeklyHours>;

const HOSTS = ['h1', 'h2', 'h3'];

const rulesArb = fc.record({
  zoneCase: fc.constantFrom(...ZONES),
  weeklyHours,
  durationMinutes: fc.constantFrom(15, 30, 45, 60, 90),
  intervalMinutes: fc.constantFrom(15, 30, 60),
  bufferBeforeMinutes: fc.constantFrom(0, 10, 30),
  bufferAfterMinutes: fc.constantFrom(0, 15),
  dailyCap: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  kind: fc.constantFrom('one_on_one', 'round_robin', 'collective') as fc.Arbitrary<SlotRules['kind']>,
});

describe('slot engine properties', () => {
  it('every slot lies inside weekly hours in the host zone and clears confirmed bookings plus buffers of its hosts, across DST and odd-offset days', () => {
    fc.assert(
      fc.property(
        rulesArb,
        fc.array(
          fc.record({
            host: fc.constantFrom(...HOSTS),
            startMin: fc.integer({ min: -24 * 60, max: 72 * 60 }),
            len: fc.constantFrom(15, 30, 60, 120),
          }),
          { maxLength: 12 },
        ),
        fc.nat({ max: 1 }),
        (r, booked, dayPick) => {
          const day = r.zoneCase.days[dayPick % r.zoneCase.days.length];
          const hosts = r.kind === 'one_on_one' ? ['h1'] : HOSTS;
          const rules: SlotRules = { ...r, zone: r.zoneCase.zone, minNoticeMinutes: 0, hosts, meetingTypeId: 'mt' };
          const from = Date.parse(`${day}T00:00:00Z`) - 24 * 60 * MIN;
          const to = from + 3 * 24 * 60 * MIN;
          const bookings: Commitment[] = booked.map((b, i) => ({
            id: `b${i}`,
            hosts: [b.host],
            start: from + b.startMin * MIN,
            end: from + (b.startMin + b.len) * MIN,
            meetingTypeId: 'other',
          }));
          const slots = openSlots(rules, { bookings, blocks: [] }, from, to, 0);
          for (const slot of slots) {
            expect(slot.start >= from && slot.start < to).toBe(true);
            expect(slot.end - slot.start).toBe(rules.durationMinutes * MIN);
            expect(insideHours(slot, rules.zone, rules.weeklyHours)).toBe(true);
            const required = rules.kind === 'round_robin' ? slot.hosts : hosts;
            expect(slot.hosts.length).toBeGreaterThan(0);
            for (const h of required) {
              for (const b of bookings.filter((x) => x.hosts.includes(h))) {
                const clear = b.end <= slot.start - rules.bufferBeforeMinutes * MIN || b.start >= slot.end + rules.bufferAfterMinutes * MIN;
                expect(clear).toBe(true);
              }
            }
          }
          // Slots are ascending and distinct.
          for (let i = 1; i < slots.length; i++) expect(slots[i].start).toBeGreaterThan(slots[i - 1].start);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('offers every wall-clock step of a window that exists, none in a DST gap, and none past the window', () => {
    for (const { zone, days } of ZONES) {
      for (const day of days) {
        const rules = {
          zone,
          weeklyHours: Object.fromEntries(DAYS.map((d) => [d, [['00:00', '24:00']]])) as WeeklyHours,
          durationMinutes: 30,
          intervalMinutes: 30,
        };
        const from = Date.parse(`${day}T00:00:00Z`) - 36 * 60 * MIN;
        const to = from + 72 * 60 * MIN;
        const starts = candidateStarts(rules, from, to).starts;
        const onDay = starts.filter((s) => wall(s, zone).date === day);
        const walls = onDay.map((s) => wall(s, zone).minutes);
        // Distinct wall times, ascending, each a multiple of 30 from midnight.
        expect(new Set(walls).size).toBe(walls.length);
        for (const m of walls) expect(m % 30).toBe(0);
        // The day's length in real time decides how many half-hours exist (23 h, 24 h, 23.5 h, 24.5 h, 25 h).
        const startOfDay = starts.find((s) => wall(s, zone).date === day)!;
        const nextDay = starts.find((s) => s > startOfDay && wall(s, zone).date !== day)!;
        const hours = (nextDay - startOfDay) / (60 * MIN);
        expect(onDay.length).toBe(hours >= 24 ? 48 : Math.round(hours * 2));
      }
    }
  });

  it('knows the real DST days: New York spring-forward has 23 h, fall-back 25 h; Lord Howe shifts by 30 minutes', () => {
    const hoursOf = (zone: string, day: string) => {
      const rules = {
        zone,
        weeklyHours: Object.fromEntries(DAYS.map((d) => [d, [['00:00', '24:00']]])) as WeeklyHours,
        durationMinutes: 30,
        intervalMinutes: 30,
      };
      const from = Date.parse(`${day}T00:00:00Z`) - 36 * 60 * MIN;
      const starts = candidateStarts(rules, from, from + 96 * 60 * MIN).starts;
      const first = starts.find((s) => wall(s, zone).date === day)!;
      const next = starts.find((s) => s > first && wall(s, zone).date > day)!;
      return (next - first) / (60 * MIN);
    };
    expect(hoursOf('America/New_York', '2026-03-08')).toBe(23);
    expect(hoursOf('America/New_York', '2026-11-01')).toBe(25);
    expect(hoursOf('Europe/Berlin', '2026-03-29')).toBe(23);
    expect(hoursOf('Europe/Berlin', '2026-10-25')).toBe(25);
    expect(hoursOf('Asia/Kolkata', '2026-06-01')).toBe(24);
    expect(hoursOf('Australia/Lord_Howe', '2026-10-04')).toBe(23.5);
    expect(hoursOf('Australia/Lord_Howe', '2026-04-05')).toBe(24.5);
  });

  it('09:00 in Kolkata is 03:30 UTC', () => {
    const rules = { zone: 'Asia/Kolkata', weeklyHours: { mon: [['09:00', '10:00']] } as WeeklyHours, durationMinutes: 60, intervalMinutes: 60 };
    const starts = candidateStarts(rules, Date.parse('2026-06-01T00:00:00Z'), Date.parse('2026-06-02T00:00:00Z'));
    expect(starts.starts.map((s) => new Date(s).toISOString())).toEqual(['2026-06-01T03:30:00.000Z']);
  });

  it('minimum notice, daily cap per host-local day, busy blocks and collective/round-robin pools', () => {
    const base: SlotRules = {
      zone: 'Europe/Berlin',
      weeklyHours: { mon: [['09:00', '12:00']] },
      durationMinutes: 60,
      intervalMinutes: 60,
      minNoticeMinutes: 0,
      bufferBeforeMinutes: 0,
      bufferAfterMinutes: 0,
      dailyCap: null,
      kind: 'round_robin',
      hosts: ['a', 'b'],
      meetingTypeId: 'mt',
    };
    const from = Date.parse('2026-06-01T00:00:00Z'); // a Monday; 09:00 Berlin = 07:00Z
    const to = from + 86_400_000;
    const at = (h: number) => Date.parse(`2026-06-01T${String(h).padStart(2, '0')}:00:00Z`);
    expect(openSlots(base, { bookings: [], blocks: [] }, from, to, 0).map((s) => s.start)).toEqual([at(7), at(8), at(9)]);
    // Notice: now 07:30Z with 60 minutes' notice leaves 09:00Z only.
    expect(openSlots({ ...base, minNoticeMinutes: 60 }, { bookings: [], blocks: [] }, from, to, at(7) + 30 * MIN).map((s) => s.start)).toEqual([
      at(9),
    ]);
    const aBusy: Commitment = { id: 'x', hosts: ['a'], start: at(7), end: at(8), meetingTypeId: 'mt' };
    // Round-robin: b still free at 07:00Z; collective needs both.
    expect(openSlots(base, { bookings: [aBusy], blocks: [] }, from, to, 0)[0]).toEqual({ start: at(7), end: at(8), hosts: ['b'] });
    expect(openSlots({ ...base, kind: 'collective' }, { bookings: [aBusy], blocks: [] }, from, to, 0).map((s) => s.start)).toEqual([at(8), at(9)]);
    // Pinned to a: only a's free slots.
    expect(openSlots(base, { bookings: [aBusy], blocks: [] }, from, to, 0, { pinned: 'a' }).map((s) => s.start)).toEqual([at(8), at(9)]);
    // Daily cap 1 per host-local day: a has one booking of this type that day; b is free.
    const capped = { ...base, dailyCap: 1 };
    expect(openSlots(capped, { bookings: [aBusy], blocks: [] }, from, to, 0, { pinned: 'a' })).toEqual([]);
    // A booking at 23:30Z on Sunday is Monday 01:30 in Berlin: it counts for Monday.
    const lateSunday: Commitment = {
      id: 'y',
      hosts: ['a'],
      start: Date.parse('2026-05-31T23:30:00Z'),
      end: Date.parse('2026-06-01T00:00:00Z'),
      meetingTypeId: 'mt',
    };
    expect(openSlots(capped, { bookings: [lateSunday], blocks: [] }, from, to, 0, { pinned: 'a' })).toEqual([]);
    // Busy block of b at 08:00Z: soft for b.
    const blocks = [{ host: 'b', start: at(8), end: at(8) + 30 * MIN }];
    expect(openSlots({ ...base, kind: 'collective' }, { bookings: [], blocks }, from, to, 0).map((s) => s.start)).toEqual([at(7), at(9)]);
    // checkHostAt separates hard conflicts from soft ones.
    expect(checkHostAt(base, { bookings: [aBusy], blocks: [] }, 'a', at(7), 0)).toEqual({ hard: true, soft: [] });
    expect(checkHostAt({ ...base, bufferBeforeMinutes: 15 }, { bookings: [aBusy], blocks: [] }, 'a', at(8), 0).soft).toEqual([
      'inside the buffer of another booking',
    ]);
    expect(checkHostAt(base, { bookings: [], blocks }, 'b', at(8), 0).soft).toEqual(['busy in an external calendar']);
    expect(checkHostAt(base, { bookings: [], blocks: [] }, 'b', at(12), 0).soft).toEqual(['outside the schedule window']);
  });

  it('round-robin fairness: fewest bookings, then least recently booked, then pool order', () => {
    const stats = new Map([
      ['a', { count: 2, lastBookedAt: '2026-01-02' }],
      ['b', { count: 1, lastBookedAt: '2026-01-03' }],
      ['c', { count: 1, lastBookedAt: '2026-01-01' }],
    ]);
    expect(pickFairest(['a', 'b', 'c'], stats, ['a', 'b', 'c'])).toBe('c');
    expect(pickFairest(['a', 'b'], stats, ['a', 'b', 'c'])).toBe('b');
    expect(pickFairest(['d', 'e'], stats, ['a', 'e', 'd'])).toBe('e');
  });

  it('62 days, 5 hosts and 500 bookings: every open slot is computed', () => {
    const hosts = ['h1', 'h2', 'h3', 'h4', 'h5'];
    const rules: SlotRules = {
      zone: 'America/New_York',
      weeklyHours: Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [['08:00', '18:00']]])) as WeeklyHours,
      durationMinutes: 30,
      intervalMinutes: 15,
      minNoticeMinutes: 0,
      bufferBeforeMinutes: 10,
      bufferAfterMinutes: 10,
      dailyCap: 6,
      kind: 'round_robin',
      hosts,
      meetingTypeId: 'mt',
    };
    const from = Date.parse('2026-03-01T00:00:00Z');
    const to = from + 62 * 86_400_000;
    const bookings: Commitment[] = Array.from({ length: 500 }, (_, i) => {
      const start = from + Math.floor((i * 62 * 86_400_000) / 500);
      return { id: `b${i}`, hosts: [hosts[i % 5]], start, end: start + 30 * MIN, meetingTypeId: i % 2 ? 'mt' : 'other' };
    });
    const slots = openSlots(rules, { bookings, blocks: [] }, from, to, 0);
    // How long it takes is the bench's to measure, through the API; a test only checks the answer.
    expect(slots.length).toBeGreaterThan(1000);
  });
});
