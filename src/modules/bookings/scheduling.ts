import { and, eq, gte, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { readAll } from '../../platform/d1/operation';
import { prepared } from '../../platform/d1/prepared';
import type { RowsOf } from '../../platform/d1/typed-read';
import { calendarOf, calendarRead } from './calendar';
import { BookingErrors } from './errors';
import { parseInstant } from './instant';
import { rulesOf, type Member } from './meeting-types';
import { bookings, type MeetingTypeRow } from './schema';
import { lockRange, type Calendar, type SlotRules } from './slots';

export const MINUTE = 60_000;
const FAIRNESS_WINDOW_MS = 30 * 86_400_000;

/** A meeting type as a booking is decided on it: its row, the workspace's members, its slot rules. */
export type Schedule = { row: MeetingTypeRow; members: Map<string, Member>; rules: SlotRules };

/** The schedule of a meeting type read beside the workspace's members; none read: null. */
export const scheduleFrom = (row: MeetingTypeRow | undefined, members: Map<string, Member>): Schedule | null =>
  row ? { row, members, rules: rulesOf(row, members) } : null;

/** A start as the API takes it: an ISO instant with a time. */
export function parseStart(raw: string): number {
  const ms = parseInstant(raw);
  if (ms === null || !/T/.test(raw)) throw BookingErrors.badStart();
  return ms;
}

/** What a booking of `hosts` at `start` claims of each host's SlotLock. */
export const claimsFor = (rules: SlotRules, hosts: string[], start: number) => {
  const range = lockRange(rules, start, start + rules.durationMinutes * MINUTE);
  return hosts.map((host) => ({ host, ...range }));
};

/** Round-robin fairness: each host's confirmed bookings of the meeting type created in the trailing 30 days, and the latest. */
const fairnessRead = prepared((db) =>
  db
    .select({ host: bookings.hostUserId, count: sql<number>`count(*)`, last: sql<string | null>`max(${bookings.createdAt})` })
    .from(bookings)
    .where(
      and(
        eq(bookings.workspaceId, sql.placeholder('ws')),
        eq(bookings.meetingTypeId, sql.placeholder('mt')),
        eq(bookings.status, 'confirmed'),
        gte(bookings.createdAt, sql.placeholder('since')),
      ),
    )
    .groupBy(bookings.hostUserId),
);

/** The fairness of meeting type `meetingTypeId`'s hosts, for a caller's batch (`statsFrom` reads it). */
export const fairness = (ctx: ServiceContext, meetingTypeId: string) =>
  fairnessRead.in(ctx.db, { ws: ctx.ws.id, mt: meetingTypeId, since: new Date(Date.now() - FAIRNESS_WINDOW_MS).toISOString() });

export type Stats = Map<string, { count: number; lastBookedAt: string | null }>;

export const statsFrom = (rows: RowsOf<ReturnType<typeof fairness>>): Stats =>
  new Map(rows.map((r) => [r.host, { count: r.count, lastBookedAt: r.last }]));

/** The authoritative calendar around a slot of `s` at `start`, for a caller's batch (`calendarOf` reads it). */
export const calendarAround = (ctx: ServiceContext, s: Schedule, start: number) =>
  calendarRead(ctx.db, ctx.ws.id, s.rules, start, start + s.rules.durationMinutes * MINUTE);

/** The calendar around a slot, read on its own. */
export async function readCalendarAround(ctx: ServiceContext, s: Schedule, start: number): Promise<Calendar> {
  const read = await readAll(ctx.db, { calendar: calendarAround(ctx, s, start) });
  return calendarOf(read.calendar).calendar;
}
