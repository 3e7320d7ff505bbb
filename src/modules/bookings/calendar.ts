import { sql, type SQL } from 'drizzle-orm';
import type { Db, Statement } from '../../platform/d1/db';
import { preparedSql } from '../../platform/d1/prepared';
import type { RowGuard } from '../../platform/d1/row-guard';
import { calendarWindow, MAX_DURATION_MINUTES, type Calendar, type SlotRules } from './slots';

/*
 * The hosts' commitments as the slot engine reads them: confirmed bookings and
 * busy blocks overlapping a window of instants, in one statement answering one
 * row of JSON text (D1 hands a result over value by value, and 500 bookings
 * are 2,500 values, where this is two), its SQL built once. Bookings are
 * stored with ISO instants, so a window is three
 * ISO bounds: `lo` and `hi`, and `floor`, `lo` less the longest meeting, which
 * no booking overlapping the window can start before (it lets the scan of the
 * start index begin there instead of at the workspace's first booking).
 */

const DAY_MS = 86_400_000;
const MINUTE = 60_000;

const ws = sql.placeholder('ws');
const mt = sql.placeholder('mt');
const from = sql.placeholder('from');
const to = sql.placeholder('to');

/** An instant in epoch ms (SQL) as the ISO text `toISOString` writes. */
const isoOf = (ms: SQL) => sql`strftime('%Y-%m-%dT%H:%M:%fZ', (${ms}) / 1000.0, 'unixepoch')`;

/** The daily cap's padding of a window (`calendarWindow`), from the meeting type's row. */
const pad = sql.raw(`CASE WHEN daily_cap IS NULL THEN 0 ELSE ${2 * DAY_MS} END`);

/**
 * The window `calendarWindow` gives for [:from, end) with the rules of meeting
 * type :mt, computed from its row as the statement runs (so the calendar is read
 * in the same round trip as the meeting type). No row, no window: nothing read.
 */
const windowOfType = (end: SQL) =>
  sql`(SELECT ${isoOf(sql`${from} - (buffer_before_minutes + duration_minutes) * 60000 - ${pad}`)} AS lo,
    ${isoOf(sql`${end} + (buffer_after_minutes + duration_minutes) * 60000 + ${pad}`)} AS hi,
    ${isoOf(sql`${from} - (buffer_before_minutes + duration_minutes + ${sql.raw(String(MAX_DURATION_MINUTES))}) * 60000 - ${pad}`)} AS floor
    FROM meeting_types WHERE workspace_id = ${ws} AND id = ${mt})`;

/** A window given as values (`boundsOf`). */
const givenWindow = sql`(SELECT ${sql.placeholder('lo')} AS lo, ${sql.placeholder('hi')} AS hi, ${sql.placeholder('floor')} AS floor)`;

/** A commitment as text: two reads that give the same texts saw the same commitments. */
const bookingPrint = sql.raw(`b.id || ' ' || b.host_user_ids || ' ' || b.start_at || ' ' || b.end_at || ' ' || b.meeting_type_id`);
const blockPrint = sql.raw(`k.id || ' ' || k.user_id || ' ' || k.start_at || ' ' || k.end_at`);

/** The confirmed bookings (`b`) and busy blocks (`k`) overlapping the window `w`. */
const bookingsOver = sql`bookings b ON b.workspace_id = ${ws} AND b.status = 'confirmed' AND b.start_at < w.hi AND b.start_at >= w.floor AND b.end_at > w.lo`;
const blocksOver = sql`busy_blocks k ON k.workspace_id = ${ws} AND k.start_at < w.hi AND k.end_at > w.lo`;

/**
 * The commitments overlapping `window` as one row: `bookings` an array of
 * `[id, hosts, start, end, meeting type, print]`, `blocks` of `[id, host,
 * start, end, print]`; the prints only `withPrints` (a booking's write guard
 * compares them).
 */
const commitmentsIn = (window: SQL, withPrints: boolean) =>
  preparedSql<{ bookings: string; blocks: string }, 'all'>('all', () => {
    const bookingPrints = withPrints ? sql`, ${bookingPrint}` : sql``;
    const blockPrints = withPrints ? sql`, ${blockPrint}` : sql``;
    return sql`SELECT (SELECT json_group_array(json_array(b.id, json(b.host_user_ids), b.start_at, b.end_at, b.meeting_type_id${bookingPrints})) FROM ${window} w JOIN ${bookingsOver}) AS bookings,
      (SELECT json_group_array(json_array(k.id, k.user_id, k.start_at, k.end_at${blockPrints})) FROM ${window} w JOIN ${blocksOver}) AS blocks`;
  });

const forListing = commitmentsIn(windowOfType(sql`${to}`), false);
const aroundStart = commitmentsIn(windowOfType(sql`${from} + duration_minutes * 60000`), true);
const inWindow = commitmentsIn(givenWindow, true);

/** The calendar for listing slots in [from, to) of meeting type `meetingTypeId`, read beside the meeting type itself (`calendarOf` reads each result). */
export const listingRead = (db: Db, workspaceId: string, meetingTypeId: string, fromMs: number, toMs: number): Statement =>
  forListing.in(db, { ws: workspaceId, mt: meetingTypeId, from: fromMs, to: toMs });

/** The calendar around a slot starting at `start` of meeting type `meetingTypeId`, read beside the meeting type itself. */
export const aroundStartRead = (db: Db, workspaceId: string, meetingTypeId: string, start: number) =>
  aroundStart.in(db, { ws: workspaceId, mt: meetingTypeId, from: start });

type Bounds = { lo: string; hi: string; floor: string };

function boundsOf(
  rules: Pick<SlotRules, 'bufferBeforeMinutes' | 'bufferAfterMinutes' | 'durationMinutes' | 'dailyCap'>,
  fromMs: number,
  toMs: number,
): Bounds {
  const w = calendarWindow(rules, fromMs, toMs);
  return {
    lo: new Date(w.from).toISOString(),
    hi: new Date(w.to).toISOString(),
    floor: new Date(w.from - MAX_DURATION_MINUTES * MINUTE).toISOString(),
  };
}

/** The calendar that can affect slots in [from, to) under `rules`. */
export const calendarRead = (db: Db, workspaceId: string, rules: SlotRules, fromMs: number, toMs: number) =>
  inWindow.in(db, { ws: workspaceId, ...boundsOf(rules, fromMs, toMs) });

type ReadBooking = { hosts: string[]; start_at: string; end_at: string; print: string };
type ReadBlock = { host: string; start_at: string; end_at: string; print: string };

/** What a calendar read gives: the engine's calendar, and each commitment as read (for `unchangedFor`). */
export type CalendarRead = { calendar: Calendar; bookings: ReadBooking[]; blocks: ReadBlock[] };

export function calendarOf(result: unknown): CalendarRead {
  const [row] = result as { bookings: string; blocks: string }[];
  const bookings = JSON.parse(row.bookings) as [string, string[], string, string, string, string?][];
  const blocks = JSON.parse(row.blocks) as [string, string, string, string, string?][];
  return {
    calendar: {
      bookings: bookings.map(([id, hosts, start, end, meetingTypeId]) => ({
        id,
        hosts,
        start: Date.parse(start),
        end: Date.parse(end),
        meetingTypeId,
      })),
      blocks: blocks.map(([, host, start, end]) => ({ host, start: Date.parse(start), end: Date.parse(end) })),
    },
    bookings: bookings.map(([, hosts, start_at, end_at, , print = '']) => ({ hosts, start_at, end_at, print })),
    blocks: blocks.map(([, host, start_at, end_at, print = '']) => ({ host, start_at, end_at, print })),
  };
}

// ---------------------------------------------------------------- the calendar unchanged

const relevantBookings = sql`b.workspace_id = ${ws} AND b.status = 'confirmed' AND b.start_at < ${sql.placeholder('hi')} AND b.start_at >= ${sql.placeholder('floor')} AND b.end_at > ${sql.placeholder('lo')}
  AND EXISTS (SELECT 1 FROM json_each(b.host_user_ids) h WHERE h.value IN (SELECT value FROM json_each(${sql.placeholder('hosts')})))`;
const relevantBlocks = sql`k.workspace_id = ${ws} AND k.user_id IN (SELECT value FROM json_each(${sql.placeholder('hosts')})) AND k.start_at < ${sql.placeholder('hi')} AND k.end_at > ${sql.placeholder('lo')}`;

/** Exactly the commitments seen: as many, and none printed otherwise, in one pass each (the condition of `unchangedFor`, for a statement built once). */
export const unchangedCondition = sql`(SELECT count(*) = json_array_length(${sql.placeholder('seenBookings')}) AND total(${bookingPrint} NOT IN (SELECT value FROM json_each(${sql.placeholder('seenBookings')}))) = 0
    FROM bookings b WHERE ${relevantBookings})
  AND (SELECT count(*) = json_array_length(${sql.placeholder('seenBlocks')}) AND total(${blockPrint} NOT IN (SELECT value FROM json_each(${sql.placeholder('seenBlocks')}))) = 0
    FROM busy_blocks k WHERE ${relevantBlocks})`;

/**
 * A guard holding while the commitments of `hosts` overlapping `range` (what
 * their locks hold: the slot padded by the buffers, widened to the local day
 * under a daily cap) are still those of `read`: the confirmed bookings any of
 * them attends and their busy blocks. Whether the slot is free for them
 * depends on nothing else in the database, so a write under this guard stands
 * on the state it was decided on (checked as its batch runs), however old the
 * read. The read must cover the range (`calendarWindow` does), or the guard
 * fails for rows it did not see.
 */
export function unchangedFor(read: CalendarRead, hosts: string[], workspaceId: string, range: { start: number; end: number }): RowGuard {
  const lo = new Date(range.start).toISOString();
  const hi = new Date(range.end).toISOString();
  const floor = new Date(range.start - MAX_DURATION_MINUTES * MINUTE).toISOString();
  const seenBookings = read.bookings.filter((b) => b.start_at < hi && b.end_at > lo && b.hosts.some((h) => hosts.includes(h))).map((b) => b.print);
  const seenBlocks = read.blocks.filter((b) => b.start_at < hi && b.end_at > lo && hosts.includes(b.host)).map((b) => b.print);
  return {
    condition: unchangedCondition,
    values: {
      ws: workspaceId,
      lo,
      hi,
      floor,
      hosts: JSON.stringify(hosts),
      seenBookings: JSON.stringify(seenBookings),
      seenBlocks: JSON.stringify(seenBlocks),
    },
  };
}
