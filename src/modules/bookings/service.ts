import { afterInsertOf } from '../../platform/d1/row-guard';
import { and, asc, desc, eq, getTableColumns, gt, gte, lt, lte, Param, sql, type SQL } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { guarded, nowIso, retryOnConflict, runBatch, type Db, type Statement } from '../../platform/d1/db';
import { guardOf, lostRaceOn, uniqueOn } from '../../platform/d1/constraints';
import { uuidv7 } from '../../platform/ids';
import { envelope, parsePaging, parseSort } from '../../platform/list';
import { prepared, preparedInsert, preparedSql } from '../../platform/d1/prepared';
import type { RowGuard } from '../../platform/d1/row-guard';
import { isValidTimeZone } from '../../platform/timezones';
import { isUuid } from '../../platform/validation';
import { identityTaken, planContactReference, type ContactReferencePlan } from '../contacts';
import { aroundStartRead, calendarOf, calendarRead, unchangedCondition, unchangedFor, type CalendarRead } from './calendar';
import { notifyInvitee, type BookingNotify } from './notifications';
import { BOOKING_SORTS, type BookingCreateInput, type BookingListInput } from './dto';
import type { SlotLocks } from './locks';
import {
  loadMeetingType,
  membersFrom,
  membersRead,
  parseInstant,
  rulesOf,
  settingsRead,
  settingsStatements,
  typeFrom,
  typeReads,
  type BookingSettings,
  type Member,
} from './meeting-types';
import { bookingAssignments, bookings, BOOKING_STATUSES, type BookingRow, type MeetingTypeRow } from './schema';
import { checkHostAt, lockRange, pickFairest, slotAt, type Calendar, type HostCheck, type SlotRules } from './slots';
import { SharedErrors } from '../../platform/shared-errors';
import { BookingErrors } from './errors';

const isFree = (c: HostCheck) => !c.hard && c.soft.length === 0;

const MINUTE = 60_000;
const FAIRNESS_WINDOW_MS = 30 * 86_400_000;

export type BookingSource = 'api' | 'public_page' | 'embed' | 'manual';
/** Where a booking came from and the origin its links use. */
/** Where a booking comes from, and how work after the response is run (`defer`, see `afterResponse`). */
export type BookingOrigin = { source: BookingSource; base: string; env: Bindings; defer: (task: () => Promise<unknown>) => void };

// ---------------------------------------------------------------- reading

export function serializeBooking(b: BookingRow, members: Map<string, Member>) {
  return {
    id: b.id,
    meeting_type_id: b.meetingTypeId,
    contact_id: b.contactId,
    host_user_id: b.hostUserId,
    hosts: b.hostUserIds.map((id, i) => ({ user_id: id, name: members.get(id)?.name ?? null, role: i === 0 ? 'host' : 'co_host' })),
    status: b.status,
    start_at: b.startAt,
    end_at: b.endAt,
    host_timezone: b.hostTimezone,
    invitee_timezone: b.inviteeTimezone,
    invitee_name: b.inviteeName,
    invitee_email: b.inviteeEmail,
    invitee_phone: b.inviteePhone,
    join_url: b.joinUrl,
    notes: b.notes,
    source: b.source,
    cancelled_at: b.cancelledAt,
    cancelled_by: b.cancelledBy,
    cancellation_reason: b.cancellationReason,
    rescheduled_at: b.rescheduledAt,
    previous_start_at: b.previousStartAt,
    reschedule_count: b.rescheduleCount,
    created_at: b.createdAt,
    updated_at: b.updatedAt,
  };
}

const bookingById = prepared((db) =>
  db
    .select()
    .from(bookings)
    .where(and(eq(bookings.workspaceId, sql.placeholder('ws')), eq(bookings.id, sql.placeholder('id'))))
    .limit(1),
);

const selectBooking = (ctx: ServiceContext, id: string) => bookingById.in(ctx.db, { ws: ctx.ws.id, id: isUuid(id) ? id.toLowerCase() : '' });

type MemberRows = Parameters<typeof membersFrom>[0];

export async function getBooking(ctx: ServiceContext, id: string) {
  const [rows, members] = (await runBatch(ctx.db, [selectBooking(ctx, id), membersRead(ctx.db, ctx.ws.id)])) as [BookingRow[], MemberRows];
  if (!rows[0]) throw BookingErrors.notFound();
  return serializeBooking(rows[0], membersFrom(members));
}

function listInstant(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const ms = parseInstant(raw);
  if (ms === null) throw BookingErrors.invalidListDate({ name });
  return new Date(ms).toISOString();
}

/** `GET /v1/bookings`: status, meeting_type_id, from/to on `start_at`, sort (default `-start_at`), paging; malformed values 400. */
export async function listBookings(ctx: ServiceContext, query: BookingListInput) {
  const paging = parsePaging(query, { limit: 50, cap: 500 });
  const sort = parseSort(query.sort, BOOKING_SORTS, '-start_at');
  const conditions: SQL[] = [eq(bookings.workspaceId, ctx.ws.id)];
  if (query.status !== undefined && query.status !== '') {
    if (!(BOOKING_STATUSES as readonly string[]).includes(query.status))
      throw SharedErrors.notOneOf({ name: 'status', values: BOOKING_STATUSES.join(', ') });
    conditions.push(eq(bookings.status, query.status as BookingRow['status']));
  }
  if (query.meeting_type_id !== undefined && query.meeting_type_id !== '') {
    if (!isUuid(query.meeting_type_id)) throw SharedErrors.invalidUuidParam({ name: 'meeting_type_id' });
    conditions.push(eq(bookings.meetingTypeId, query.meeting_type_id.toLowerCase()));
  }
  const from = listInstant('from', query.from);
  const to = listInstant('to', query.to);
  if (from) conditions.push(gte(bookings.startAt, from));
  if (to) conditions.push(lte(bookings.startAt, to));
  // `+end_at`: with a status filter SQLite would walk `bookings_status_end` (the status sweep's index over the shard) for this order.
  const column = { start_at: bookings.startAt, end_at: sql`+${bookings.endAt}`, created_at: bookings.createdAt, updated_at: bookings.updatedAt }[
    sort.field as (typeof BOOKING_SORTS)[number]
  ];
  const order = sort.descending ? [desc(column), desc(bookings.id)] : [asc(column), asc(bookings.id)];
  const where = and(...conditions);
  const [counted, rows, members] = (await runBatch(ctx.db, [
    ctx.db.select({ total: sql<number>`count(*)` }).from(bookings).where(where),
    ctx.db
      .select()
      .from(bookings)
      .where(where)
      .orderBy(...order)
      .limit(paging.limit)
      .offset(paging.offset),
    membersRead(ctx.db, ctx.ws.id),
  ])) as [{ total: number }[], BookingRow[], MemberRows];
  const byId = membersFrom(members);
  return envelope(
    rows.map((r) => serializeBooking(r, byId)),
    counted[0].total,
    paging,
  );
}

// ---------------------------------------------------------------- events

/** Booking event data (docs/events.md): explicit nulls, `previous_host_name` only on reassigned, never a manage link. */
export function bookingEventData(
  b: BookingRow,
  mt: Pick<MeetingTypeRow, 'name' | 'locationType'>,
  members: Map<string, Member>,
  previousHostName: string | null = null,
) {
  return {
    booking_id: b.id,
    contact_id: b.contactId,
    meeting_type_id: b.meetingTypeId,
    meeting_type_name: mt.name,
    host_user_id: b.hostUserId,
    host_name: members.get(b.hostUserId)?.name ?? null,
    previous_host_name: previousHostName,
    start_at: b.startAt,
    end_at: b.endAt,
    host_timezone: b.hostTimezone,
    invitee_timezone: b.inviteeTimezone,
    status: b.status,
    location_type: mt.locationType,
    cancelled_by: b.cancelledBy,
    cancel_reason: b.status === 'cancelled' ? b.cancellationReason : null,
    source: b.source,
  };
}

// ---------------------------------------------------------------- scheduling helpers

type Schedule = { row: MeetingTypeRow; members: Map<string, Member>; rules: SlotRules };
type Stats = Map<string, { count: number; lastBookedAt: string | null }>;

const scheduleFrom = (found: ReturnType<typeof typeFrom>): Schedule | null => found && { ...found, rules: rulesOf(found.row, found.members) };

async function scheduleOf(ctx: ServiceContext, meetingTypeId: string): Promise<Schedule | null> {
  return scheduleFrom(await loadMeetingType(ctx.db, ctx.ws.id, meetingTypeId));
}

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

const fairness = (ctx: ServiceContext, meetingTypeId: string) =>
  fairnessRead.in(ctx.db, { ws: ctx.ws.id, mt: meetingTypeId, since: new Date(Date.now() - FAIRNESS_WINDOW_MS).toISOString() });
const statsFrom = (rows: unknown) =>
  new Map((rows as { host: string; count: number; last: string | null }[]).map((r) => [r.host, { count: r.count, lastBookedAt: r.last }])) as Stats;

/** The authoritative calendar around one slot, and round-robin fairness stats of the meeting type: one batch. */
async function readAround(ctx: ServiceContext, s: Schedule, start: number, extra: Statement[] = []) {
  const results = await runBatch(ctx.db, [
    calendarRead(ctx.db, ctx.ws.id, s.rules, start, start + s.rules.durationMinutes * MINUTE),
    fairness(ctx, s.row.id),
    ...extra,
  ]);
  const read = calendarOf(results[0]);
  return { read, calendar: read.calendar, stats: statsFrom(results[1]), extra: results.slice(2) };
}

/** A pass's look: the calendar around the slot, fairness, and the bookings already at that start (double submits). */
async function lookAround(ctx: ServiceContext, s: Schedule, start: number, startIso: string): Promise<Look> {
  const { read, stats, extra } = await readAround(ctx, s, start, [sameStart(ctx, s.row.id, startIso)]);
  return { read, stats, sameStart: extra[0] as BookingRow[] };
}

/** The hosts a booking at `start` takes: assigned host first (collective: the whole eligible pool). */
function assignHosts(s: Schedule, free: string[], stats: Stats, pinned?: string): string[] | null {
  if (s.rules.kind === 'collective') return free.length === s.rules.hosts.length ? [...s.rules.hosts] : null;
  if (pinned) return free.includes(pinned) ? [pinned] : null;
  const pick = s.rules.kind === 'round_robin' ? pickFairest(free, stats, s.rules.hosts) : free[0];
  return pick ? [pick] : null;
}

const claimsFor = (rules: SlotRules, hosts: string[], start: number) => {
  const range = lockRange(rules, start, start + rules.durationMinutes * MINUTE);
  return hosts.map((host) => ({ host, ...range }));
};

function parseStart(raw: string): number {
  const ms = parseInstant(raw);
  if (ms === null || !/T/.test(raw)) throw BookingErrors.badStart();
  return ms;
}

// ---------------------------------------------------------------- create

const dedupeKeyOf = (meetingTypeId: string, startIso: string, contactId: string, pinned: string | null) =>
  `${meetingTypeId}|${startIso}|${contactId}|${pinned ?? ''}`;

/** The confirmed bookings of one meeting type and start (their double-submit keys share the prefix; the contact and pin follow): at most a few. */
const sameStartRead = prepared((db) =>
  db
    .select()
    .from(bookings)
    .where(
      and(
        eq(bookings.workspaceId, sql.placeholder('ws')),
        eq(bookings.status, 'confirmed'),
        gt(bookings.dedupeKey, sql.placeholder('prefix')),
        lt(bookings.dedupeKey, sql.placeholder('beyond')),
      ),
    ),
);

// '~' sorts after every character a key holds after the prefix (hex digits, dashes, '|').
const sameStart = (ctx: ServiceContext, meetingTypeId: string, startIso: string) =>
  sameStartRead.in(ctx.db, { ws: ctx.ws.id, prefix: `${meetingTypeId}|${startIso}|`, beyond: `${meetingTypeId}|${startIso}|~` });

/** What a pass decides on: the calendar around the slot, fairness, and the bookings already at that start. */
type Look = { read: CalendarRead; stats: Stats; sameStart: BookingRow[] };

const bookingColumns = Object.entries(getTableColumns(bookings));

/**
 * A booking's insert whose `version` (NOT NULL) is NULL unless its hosts'
 * calendar is still the one the booking was decided on (`unchangedFor`): the
 * constraint then fails the whole batch (contact, assignment, event), and
 * nothing is written.
 */
const bookingInsert = preparedSql('run', () => {
  const names = sql.join(
    bookingColumns.map(([, c]) => sql.identifier(c.name)),
    sql.raw(', '),
  );
  const values = sql.join(
    bookingColumns.map(([key, c]) => (key === 'version' ? guarded(unchangedCondition, sql`1`) : new Param(sql.placeholder(key), c))),
    sql.raw(', '),
  );
  return sql`INSERT INTO ${bookings} (${names}) VALUES (${values})`;
});
const insertBooking = (db: Db, row: BookingRow, unchanged: RowGuard) => bookingInsert.in(db, { ...row, ...unchanged.values });
const assignmentInsert = preparedInsert(bookingAssignments);

/**
 * `POST /v1/bookings` (and the hosted page): validation in the documented order,
 * the contact (contact_id wins, else the invitee upsert; a merge conflict
 * books nothing), a double submit answers the existing booking, then the
 * slot is taken under the hosts' SlotLocks.
 *
 * One batch reads the meeting type, the workspace's members, the contact, the
 * calendar around the slot (its window worked out from the meeting type in
 * SQL), fairness, the bookings already at that start and the booking
 * settings; the hosts are picked from it and their locks taken. The write
 * batch (booking, assignment history, the contact's own writes,
 * `booking.created`, the settings' first use) is guarded on the hosts'
 * calendar being unchanged since that read, so under the locks nothing needs
 * reading again: two round trips. When the guard fails, the locks are let go
 * and the next pass reads again and decides anew (a round-robin host taken
 * in between: another free one). The locks are released after the response.
 */
export async function createBooking(ctx: ServiceContext, locks: SlotLocks, input: BookingCreateInput, origin: BookingOrigin) {
  if (input.contact_id === undefined && input.invitee === undefined) throw BookingErrors.noContact();
  const start = parseStart(input.start_at);
  if (!isValidTimeZone(input.timezone)) throw BookingErrors.badZone();
  const typeId = input.meeting_type_id.toLowerCase();
  const pinned = input.host_user_id?.toLowerCase();
  const startIso = new Date(start).toISOString();

  return retryOnConflict(
    async () => {
      // An invitee the plan refuses (400) is answered after the meeting type's own refusals.
      let contactPlan: ContactReferencePlan | null = null;
      let refused: unknown = null;
      try {
        contactPlan = planContactReference(
          ctx,
          input.contact_id !== undefined
            ? { contact_id: input.contact_id }
            : { email: input.invitee!.email, phone: input.invitee!.phone, name: input.invitee!.name },
          { missing: BookingErrors.noContact, source: origin.source === 'api' ? 'api' : 'booking' },
        );
      } catch (err) {
        refused = err;
      }
      const results = await runBatch(ctx.db, [
        ...typeReads(ctx.db, ctx.ws.id, typeId, 'all'),
        aroundStartRead(ctx.db, ctx.ws.id, typeId, start),
        fairness(ctx, typeId),
        sameStart(ctx, typeId, startIso),
        settingsRead(ctx.db, ctx.ws.id),
        ...(contactPlan?.reads ?? []),
      ]);
      const s = scheduleFrom(typeFrom(results));
      if (!s) throw BookingErrors.meetingTypeNotFound();
      if (!s.row.isActive) throw BookingErrors.notActive();
      if (pinned !== undefined) {
        if (s.row.schedulingKind !== 'round_robin') throw BookingErrors.pinKind();
        if (!s.rules.hosts.includes(pinned)) throw BookingErrors.pinPool();
      }
      if (!s.row.weeklyHours) throw BookingErrors.noSchedule();
      if (!contactPlan) throw refused;
      const planned = await contactPlan.resolve(results.slice(6));
      const key = dedupeKeyOf(s.row.id, startIso, planned.contact.id, pinned ?? null);
      const settings = (results[5] as BookingSettings[])[0] as BookingSettings | undefined;
      const first: Look = {
        read: calendarOf(results[2]),
        stats: statsFrom(results[3]),
        sameStart: results[4] as BookingRow[],
      };

      for (let pass = 0; pass <= s.rules.hosts.length; pass++) {
        const look = pass === 0 ? first : await lookAround(ctx, s, start, startIso);
        const duplicate = look.sameStart.find((b) => b.dedupeKey === key);
        if (duplicate) return { ...serializeBooking(duplicate, s.members), duplicate: true };
        const slot = slotAt(s.rules, look.read.calendar, start, Date.now(), { pinned });
        const hosts = slot && assignHosts(s, slot.hosts, look.stats, pinned);
        if (!hosts) throw BookingErrors.slotTaken();

        const claims = claimsFor(s.rules, hosts, start);
        const outcome = await locks.hold(
          ctx.ws.id,
          claims,
          async () => {
            // Only the claimed slot is checked again, at the time it is written: of what the hosts were picked on,
            // only the clock can have moved (the minimum notice); anything else is the write's guard's to find.
            if (start < Date.now() + s.rules.minNoticeMinutes * MINUTE) return 'changed' as const;
            return writeBooking(ctx, s, input, origin, {
              start,
              startIso,
              key,
              pinned,
              hosts,
              planned,
              settings,
              unchanged: unchangedFor(look.read, hosts, ctx.ws.id, claims[0]),
            });
          },
          { guarded: true },
        );
        // Someone changed the hosts' calendar since it was read: the locks are let go, and the next pass reads again.
        if (outcome === 'changed') continue;
        // The same submit won in parallel (double submit), or the contact write raced: run again from the top.
        if (outcome === 'lost') throw new LostRace();
        const { row, linkSecret } = outcome;
        // The manage link's signature and the message are made after the response, with the send.
        notifyInvitee(ctx, origin, 'confirmation', row, s.row, s.members, linkSecret);
        return { ...serializeBooking(row, s.members), duplicate: false };
      }
      throw BookingErrors.slotTaken();
    },
    (err) => err instanceof LostRace || doubleSubmit(err) || identityTaken(err),
  );
}

type Planned = Awaited<ReturnType<ContactReferencePlan['resolve']>>;
type Decided = {
  start: number;
  startIso: string;
  key: string;
  pinned: string | undefined;
  hosts: string[];
  planned: Planned;
  settings: BookingSettings | undefined;
  unchanged: RowGuard;
};

/**
 * The write batch of a booking decided on a calendar: its row, assignment
 * history, the contact's writes, `booking.created`, and the workspace's booking
 * settings when the read found none (created on first use; their link secret
 * signs the manage link). `changed` when the hosts' calendar is no longer the
 * one decided on.
 */
async function writeBooking(ctx: ServiceContext, s: Schedule, input: BookingCreateInput, origin: BookingOrigin, d: Decided) {
  const now = nowIso();
  const contact = d.planned.contact;
  const row: BookingRow = {
    id: uuidv7(),
    workspaceId: ctx.ws.id,
    meetingTypeId: s.row.id,
    contactId: contact.id,
    hostUserId: d.hosts[0],
    hostUserIds: d.hosts,
    status: 'confirmed',
    startAt: d.startIso,
    endAt: new Date(d.start + s.rules.durationMinutes * MINUTE).toISOString(),
    hostTimezone: s.row.timezone,
    inviteeTimezone: input.timezone,
    inviteeName: input.invitee?.name ?? contact.name ?? contact.email ?? contact.phone ?? '',
    inviteeEmail: input.invitee?.email.trim().toLowerCase() ?? contact.email ?? '',
    inviteePhone: input.invitee?.phone ?? contact.phone ?? null,
    joinUrl: null,
    notes: input.notes ?? null,
    source: origin.source,
    pinnedHostUserId: d.pinned ?? null,
    dedupeKey: d.key,
    cancelledAt: null,
    cancelledBy: null,
    cancellationReason: null,
    rescheduledAt: null,
    previousStartAt: null,
    rescheduleCount: 0,
    inviteSequence: 0,
    noShowMarkedAt: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  const event = ctx.events.emit(ctx.db, ctx.ws.id, 'booking.created', bookingEventData(row, s.row, s.members));
  let results: unknown[];
  try {
    results = await runBatch(ctx.db, [
      ...d.planned.writes,
      insertBooking(ctx.db, row, d.unchanged),
      assignmentInsert.in(ctx.db, {
        id: uuidv7(),
        workspaceId: ctx.ws.id,
        bookingId: row.id,
        fromUserId: null,
        toUserId: d.hosts[0],
        reason: d.pinned ? 'pinned' : s.rules.kind,
        kind: 'created',
        forced: false,
        createdAt: now,
      }),
      event.statement,
      ...ctx.events.signal(ctx.db, ctx.ws.id, row.contactId, 'booking.created', afterInsertOf(bookings, row.id)),
      ...(d.settings ? [] : settingsStatements(ctx.db, ctx.ws.id)),
    ]);
  } catch (err) {
    if (versionChanged(err)) return 'changed' as const;
    if (doubleSubmit(err) || identityTaken(err)) return 'lost' as const;
    throw d.planned.mapError(err);
  }
  ctx.events.committedAfter([...d.planned.events, event.event]);
  const settings = d.settings ?? (results[results.length - 1] as BookingSettings[])[0];
  return { row, linkSecret: settings.linkSecret };
}

class LostRace extends Error {}

/** A change lost to another since the booking was read (`versionGuard`). */
const versionChanged = lostRaceOn(guardOf(bookings.version));
/** A confirmed booking of the same type, start and contact was written meanwhile (a double submit). */
const doubleSubmit = lostRaceOn(uniqueOn(bookings.workspaceId, bookings.dedupeKey));

// ---------------------------------------------------------------- cancel

async function readBookingWithType(ctx: ServiceContext, id: string) {
  const [rows, members] = (await runBatch(ctx.db, [selectBooking(ctx, id), membersRead(ctx.db, ctx.ws.id)])) as [BookingRow[], MemberRows];
  const booking = rows[0];
  if (!booking) throw BookingErrors.notFound();
  const s = await scheduleOf(ctx, booking.meetingTypeId);
  return { booking, s, members: membersFrom(members) };
}

const versionGuard = (b: BookingRow) => guarded(sql`${bookings.version} = ${b.version} AND ${bookings.status} = 'confirmed'`, sql`${b.version + 1}`);

/**
 * `POST /v1/bookings/{id}/cancel` (host side) and the manage page (`invitee`). With `notify`, the
 * invitee's cancellation email (`METHOD:CANCEL`, the next `SEQUENCE`) leaves after the answer.
 */
export async function cancelBooking(
  ctx: ServiceContext,
  id: string,
  input: { reason?: string },
  cancelledBy: 'host' | 'invitee' = 'host',
  notify?: BookingNotify,
) {
  return retryOnConflict(async () => {
    const { booking, s, members } = await readBookingWithType(ctx, id);
    if (booking.status !== 'confirmed') throw BookingErrors.notCancellable();
    const now = nowIso();
    const row: BookingRow = {
      ...booking,
      status: 'cancelled',
      cancelledAt: now,
      cancelledBy,
      cancellationReason: input.reason ?? null,
      inviteSequence: booking.inviteSequence + 1,
      version: booking.version + 1,
      updatedAt: now,
    };
    const event = ctx.events.emit(ctx.db, ctx.ws.id, 'booking.cancelled', bookingEventData(row, s?.row ?? { name: '', locationType: '' }, members));
    await runBatch(ctx.db, [
      ctx.db
        .update(bookings)
        .set({
          status: 'cancelled',
          cancelledAt: now,
          cancelledBy,
          cancellationReason: row.cancellationReason,
          inviteSequence: row.inviteSequence,
          version: versionGuard(booking),
          updatedAt: now,
        })
        .where(and(eq(bookings.workspaceId, ctx.ws.id), eq(bookings.id, booking.id))),
      event.statement,
      ...ctx.events.signal(ctx.db, ctx.ws.id, booking.contactId, 'booking.cancelled'),
    ]);
    ctx.events.committedAfter([event.event]);
    if (notify && s) notifyInvitee(ctx, notify, 'cancellation', row, s.row, members);
    return serializeBooking(row, members);
  }, versionChanged);
}

// ---------------------------------------------------------------- reschedule

/**
 * `POST /v1/bookings/{id}/reschedule`: the same host(s) at a new open slot
 * (the booking's own old slot does not count against it), taken under the
 * hosts' SlotLocks. The old slot is free once the row moves. With `notify`, the invitee's updated
 * invite (`METHOD:REQUEST`, the same `UID`, the next `SEQUENCE`) leaves after the answer.
 */
export async function rescheduleBooking(
  ctx: ServiceContext,
  locks: SlotLocks,
  id: string,
  input: { start_at: string; timezone?: string },
  notify?: BookingNotify,
) {
  return retryOnConflict(async () => {
    const { booking, s, members } = await readBookingWithType(ctx, id);
    if (booking.status !== 'confirmed') throw BookingErrors.notReschedulable();
    if (!s) throw BookingErrors.typeGone();
    const start = parseStart(input.start_at);
    if (input.timezone !== undefined && !isValidTimeZone(input.timezone)) throw BookingErrors.badZone();
    if (!s.row.weeklyHours) throw BookingErrors.noSchedule();
    const hosts = booking.hostUserIds;
    const fits = (calendar: Calendar) => {
      const slot = slotAt(s.rules, calendar, start, Date.now(), {
        ignoreBookingId: booking.id,
        pinned: s.rules.kind === 'collective' ? undefined : booking.hostUserId,
      });
      return slot !== null && (s.rules.kind === 'collective' || slot.hosts.includes(booking.hostUserId));
    };
    if (!fits((await readAround(ctx, s, start)).calendar)) throw BookingErrors.slotTaken();
    const row = await locks.hold(ctx.ws.id, claimsFor(s.rules, hosts, start), async () => {
      if (!fits((await readAround(ctx, s, start)).calendar)) throw BookingErrors.slotTaken();
      const now = nowIso();
      const startIso = new Date(start).toISOString();
      const next: BookingRow = {
        ...booking,
        startAt: startIso,
        endAt: new Date(start + s.rules.durationMinutes * MINUTE).toISOString(),
        inviteeTimezone: input.timezone ?? booking.inviteeTimezone,
        previousStartAt: booking.startAt,
        rescheduledAt: now,
        rescheduleCount: booking.rescheduleCount + 1,
        inviteSequence: booking.inviteSequence + 1,
        dedupeKey: dedupeKeyOf(booking.meetingTypeId, startIso, booking.contactId, booking.pinnedHostUserId),
        version: booking.version + 1,
        updatedAt: now,
      };
      const event = ctx.events.emit(ctx.db, ctx.ws.id, 'booking.rescheduled', bookingEventData(next, s.row, members));
      await runBatch(ctx.db, [
        ctx.db
          .update(bookings)
          .set({
            startAt: next.startAt,
            endAt: next.endAt,
            inviteeTimezone: next.inviteeTimezone,
            previousStartAt: next.previousStartAt,
            rescheduledAt: now,
            rescheduleCount: next.rescheduleCount,
            inviteSequence: next.inviteSequence,
            dedupeKey: next.dedupeKey,
            version: versionGuard(booking),
            updatedAt: now,
          })
          .where(and(eq(bookings.workspaceId, ctx.ws.id), eq(bookings.id, booking.id))),
        event.statement,
      ]).catch((err) => {
        // The contact already holds a confirmed booking of this type at that start: not an open slot for this one.
        throw doubleSubmit(err) ? BookingErrors.slotTaken() : err;
      });
      ctx.events.committedAfter([event.event]);
      return next;
    });
    if (notify) notifyInvitee(ctx, notify, 'reschedule', row, s.row, members);
    return serializeBooking(row, members);
  }, versionChanged);
}

// ---------------------------------------------------------------- reassign

/**
 * `POST /v1/bookings/{id}/reassign`: guards in the documented order; an explicit
 * target's genuine conflict is SLOT_TAKEN, its soft failures HOST_UNAVAILABLE
 * unless `force` is true; an omitted target re-picks the fairest free pool
 * host (round-robin only). The write compares the version read first: a
 * booking changed in between answers BOOKING_MODIFIED.
 */
export async function reassignBooking(
  ctx: ServiceContext,
  locks: SlotLocks,
  id: string,
  input: { user_id?: string; reason?: string; force?: boolean },
) {
  const [rows, memberRows] = (await runBatch(ctx.db, [selectBooking(ctx, id), membersRead(ctx.db, ctx.ws.id)])) as [BookingRow[], MemberRows];
  const booking = rows[0];
  if (!booking) throw BookingErrors.notFound();
  const members = membersFrom(memberRows);
  const s = await scheduleOf(ctx, booking.meetingTypeId);
  if (!s) throw BookingErrors.typeGoneNotFound();
  if (booking.status !== 'confirmed') throw BookingErrors.notReassignable();
  const start = Date.parse(booking.startAt);
  if (start <= Date.now()) throw BookingErrors.started();
  if (s.row.schedulingKind === 'collective') throw BookingErrors.collective();
  const force = input.force === true;
  const target = input.user_id?.toLowerCase();
  if (target === undefined) {
    if (s.row.schedulingKind !== 'round_robin') throw BookingErrors.chooseHost();
  } else {
    if (target === booking.hostUserId) throw BookingErrors.sameHost();
    if (!members.get(target)?.active) throw BookingErrors.targetInactive();
  }

  /** An explicit target must clear the hard check, and the soft ones unless forced; an automatic pick must be free. */
  const verify = (calendar: Calendar, host: string, explicit: boolean) => {
    const check = checkHostAt(s.rules, calendar, host, start, Date.now(), booking.id);
    if (check.hard) throw explicit ? BookingErrors.hostConflict() : BookingErrors.noFreeHost();
    if (check.soft.length && !(explicit && force)) {
      if (!explicit) throw BookingErrors.noFreeHost();
      throw BookingErrors.hostUnavailable({ reasons: check.soft.join(', ') });
    }
  };
  const seen = await readAround(ctx, s, start);
  let chosen: string;
  if (target !== undefined) {
    verify(seen.calendar, target, true);
    chosen = target;
  } else {
    const free = s.rules.hosts.filter(
      (h) => h !== booking.hostUserId && isFree(checkHostAt(s.rules, seen.calendar, h, start, Date.now(), booking.id)),
    );
    const pick = pickFairest(free, seen.stats, s.rules.hosts);
    if (!pick) throw BookingErrors.noFreeHost();
    chosen = pick;
  }
  const row = await locks.hold(ctx.ws.id, claimsFor(s.rules, [chosen], start), async () => {
    verify((await readAround(ctx, s, start)).calendar, chosen, target !== undefined);
    const now = nowIso();
    const next: BookingRow = { ...booking, hostUserId: chosen, hostUserIds: [chosen], version: booking.version + 1, updatedAt: now };
    const event = ctx.events.emit(
      ctx.db,
      ctx.ws.id,
      'booking.reassigned',
      bookingEventData(next, s.row, members, members.get(booking.hostUserId)?.name ?? null),
    );
    try {
      await runBatch(ctx.db, [
        ctx.db
          .update(bookings)
          .set({ hostUserId: chosen, hostUserIds: [chosen], version: versionGuard(booking), updatedAt: now })
          .where(and(eq(bookings.workspaceId, ctx.ws.id), eq(bookings.id, booking.id))),
        ctx.db.insert(bookingAssignments).values({
          id: uuidv7(),
          workspaceId: ctx.ws.id,
          bookingId: booking.id,
          fromUserId: booking.hostUserId,
          toUserId: chosen,
          reason: input.reason ?? null,
          kind: 'reassigned',
          forced: force,
          createdAt: now,
        }),
        event.statement,
      ]);
    } catch (err) {
      if (versionChanged(err)) throw BookingErrors.modified();
      throw err;
    }
    ctx.events.committedAfter([event.event]);
    return next;
  });
  return serializeBooking(row, members);
}
