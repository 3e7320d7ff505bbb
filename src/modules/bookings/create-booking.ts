import { getTableColumns, Param, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import { CONFLICT_ATTEMPTS, guarded, nowIso, type Db } from '../../platform/d1/db';
import { DecisionStale, runOperation, unchanged, type Decided, type Hold, type ReadsOf, type WriteBatch } from '../../platform/d1/operation';
import { preparedInsert, preparedSql } from '../../platform/d1/prepared';
import { afterInsertOf, type RowGuard } from '../../platform/d1/row-guard';
import { uuidv7 } from '../../platform/ids';
import { isValidTimeZone } from '../../platform/timezones';
import { planContactReference, type ContactReferencePlan, type PlannedContact } from '../contacts';
import { aroundStartRead, calendarOf, unchangedCondition, unchangedFor } from './calendar';
import { dedupeKeyOf, doubleSubmitKey, sameStart } from './double-submit';
import type { BookingCreateInput } from './dto';
import { BookingErrors } from './errors';
import { bookingEventData } from './event-payload';
import type { HostClaim, SlotLocks } from './locks';
import { settingsFirstUse, settingsRead, type BookingSettings } from './booking-settings';
import { MAX_POOL_HOSTS, membersFrom, membersRead, typeRead } from './meeting-types';
import { notifyInvitee } from './notifications';
import { serializeBooking } from './read';
import { claimsFor, fairness, MINUTE, parseStart, scheduleFrom, statsFrom, type Schedule, type Stats } from './scheduling';
import { bookingAssignments, bookings, type BookingRow } from './schema';
import { pickFairest, slotAt, type Calendar } from './slots';

export type BookingSource = 'api' | 'public_page' | 'embed' | 'manual';
/** Where a booking comes from, and how work after the response is run (`defer`, see `afterResponse`). */
export type BookingOrigin = { source: BookingSource; base: string; env: Bindings; defer: (task: () => Promise<unknown>) => void };

/** The slot asked for: meeting type, start, and the pinned host if any. */
type Wanted = { typeId: string; start: number; startIso: string; pinned: string | undefined };

/** What a booking answers: the one written, or the one a double submit already made. */
type Booked = { row: BookingRow; s: Schedule } & ({ duplicate: true } | { duplicate: false; linkSecret: string });

const bookingColumns = Object.entries(getTableColumns(bookings));

/**
 * A booking's insert whose `version` (NOT NULL) is NULL unless its hosts' calendar is still the
 * one the booking was decided on (`unchangedFor`): the constraint then fails the whole batch
 * (contact, assignment, event), and nothing is written.
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

/** The hosts' calendar changed since it was read: the insert's `version` was NULL. */
const calendarChanged = guardOf(bookings.version);

/**
 * `POST /v1/bookings` (and the hosted page): validation in the documented order, the contact
 * (contact_id wins, else the invitee upsert; a merge conflict books nothing), a double submit
 * answers the existing booking, then the slot is taken under the hosts' SlotLocks.
 *
 * One batch reads the meeting type, the workspace's members, the contact, the calendar around the
 * slot (its window worked out from the meeting type in SQL), fairness, the bookings already at
 * that start and the booking settings; the hosts are picked from it and their locks taken. The
 * write batch (the contact's own writes, booking, assignment history, `booking.created`, the
 * settings' first use) is guarded on the hosts' calendar being unchanged since that read, so under
 * the locks nothing needs reading again: two round trips. When the guard fails, the locks are let
 * go and the booking reads again and decides anew (a round-robin host taken in between: another
 * free one). The locks are released after the response.
 */
export async function createBooking(ctx: ServiceContext, locks: SlotLocks, input: BookingCreateInput, origin: BookingOrigin) {
  if (input.contact_id === undefined && input.invitee === undefined) throw BookingErrors.noContact();
  const start = parseStart(input.start_at);
  if (!isValidTimeZone(input.timezone)) throw BookingErrors.badZone();
  const wanted: Wanted = {
    typeId: input.meeting_type_id.toLowerCase(),
    start,
    startIso: new Date(start).toISOString(),
    pinned: input.host_user_id?.toLowerCase(),
  };
  const contact = inviteeContact(ctx, input, origin);
  const passes = bookingPasses();
  const booked = await runOperation(ctx, {
    reads: bookingReads(ctx, wanted, contact.plan),
    decide: async (read, batch) => {
      const s = scheduleToBook(read, wanted.pinned);
      if (!contact.plan) throw contact.refusal;
      const planned = await read.contact();
      const key = dedupeKeyOf(s.row.id, wanted.startIso, planned.contact.id, wanted.pinned ?? null);
      const duplicate = read.sameStart.find((b) => b.dedupeKey === key);
      if (duplicate) return unchanged<Booked>({ row: duplicate, s, duplicate: true });
      const seen = calendarOf(read.calendar);
      const hosts = hostsAt(s, seen.calendar, statsFrom(read.fairness), wanted);
      const claims = claimsFor(s.rules, hosts, start);
      const row = newBooking(ctx, { s, input, origin, wanted, contact: planned.contact, hosts, key });
      writeBooking(ctx, batch.join(planned), s, row, unchangedFor(seen, hosts, ctx.ws.id, claims[0]));
      batch.heldBy(underSlotLocks(ctx, locks, claims, { s, start, passes }));
      return answered(ctx, batch, { row, s }, read.settings[0]);
    },
    lostRaceOn: [calendarChanged, doubleSubmitKey],
    // Each host of the pool may be taken under the booking in turn (`bookingPasses`), besides the races any write can lose.
    attempts: CONFLICT_ATTEMPTS + MAX_POOL_HOSTS,
  });
  // The manage link's signature and the message are made after the response, with the send.
  if (!booked.duplicate) notifyInvitee(ctx, origin, 'confirmation', booked.row, booked.s.row, booked.s.members, booked.linkSecret);
  return { ...serializeBooking(booked.row, booked.s.members), duplicate: booked.duplicate };
}

/**
 * The contact plan of the booking's reference. One the contact rules refuse (an invitee's bad
 * phone, 400) is answered after the meeting type's own refusals, so its refusal is kept till then.
 */
function inviteeContact(ctx: ServiceContext, input: BookingCreateInput, origin: BookingOrigin) {
  const reference =
    input.contact_id !== undefined
      ? { contact_id: input.contact_id }
      : { email: input.invitee!.email, phone: input.invitee!.phone, name: input.invitee!.name };
  try {
    const plan: ContactReferencePlan = planContactReference(ctx, reference, {
      missing: BookingErrors.noContact,
      source: origin.source === 'api' ? 'api' : 'booking',
    });
    return { plan, refusal: null };
  } catch (err) {
    return { plan: null, refusal: err };
  }
}

/**
 * How many times a booking goes round: each change of its hosts' calendar under it (or of the
 * clock past its notice) sends it back to read and decide anew, a round-robin booking perhaps on
 * another host. It goes round once per host of the pool and once more; a change on its last pass
 * leaves the slot taken.
 */
function bookingPasses() {
  let changes = 0;
  return { changed: (s: Schedule, lost: unknown) => (changes++ < s.rules.hosts.length ? lost : BookingErrors.slotTaken.requested()) };
}

/** Everything a booking decides on, in one batch. */
const bookingReads = (ctx: ServiceContext, w: Wanted, contact: ContactReferencePlan | null) => ({
  type: typeRead(ctx.db, ctx.ws.id, w.typeId),
  members: membersRead(ctx.db, ctx.ws.id),
  calendar: aroundStartRead(ctx.db, ctx.ws.id, w.typeId, w.start),
  fairness: fairness(ctx, w.typeId),
  sameStart: sameStart(ctx, w.typeId, w.startIso),
  settings: settingsRead(ctx.db, ctx.ws.id),
  contact,
});

/** The meeting type to book, with its refusals in the documented order. */
function scheduleToBook(read: ReadsOf<ReturnType<typeof bookingReads>>, pinned: string | undefined): Schedule {
  const s = scheduleFrom(read.type[0], membersFrom(read.members));
  if (!s) throw BookingErrors.meetingTypeNotFound();
  if (!s.row.isActive) throw BookingErrors.notActive();
  if (pinned !== undefined) {
    if (s.row.schedulingKind !== 'round_robin') throw BookingErrors.pinKind();
    if (!s.rules.hosts.includes(pinned)) throw BookingErrors.pinPool();
  }
  if (!s.row.weeklyHours) throw BookingErrors.noSchedule();
  return s;
}

/** The hosts a booking of the slot takes; none free: SLOT_TAKEN. */
function hostsAt(s: Schedule, calendar: Calendar, stats: Stats, w: Wanted): string[] {
  const slot = slotAt(s.rules, calendar, w.start, Date.now(), { pinned: w.pinned });
  const hosts = slot && assignHosts(s, slot.hosts, stats, w.pinned);
  if (!hosts) throw BookingErrors.slotTaken.requested();
  return hosts;
}

/** The hosts a booking takes of those free: assigned host first (collective: the whole eligible pool). */
function assignHosts(s: Schedule, free: string[], stats: Stats, pinned?: string): string[] | null {
  if (s.rules.kind === 'collective') return free.length === s.rules.hosts.length ? [...s.rules.hosts] : null;
  if (pinned) return free.includes(pinned) ? [pinned] : null;
  const pick = s.rules.kind === 'round_robin' ? pickFairest(free, stats, s.rules.hosts) : free[0];
  return pick ? [pick] : null;
}

/** The booking's row; the invitee's details fall back on the contact's. */
function newBooking(
  ctx: ServiceContext,
  b: {
    s: Schedule;
    input: BookingCreateInput;
    origin: BookingOrigin;
    wanted: Wanted;
    contact: PlannedContact['contact'];
    hosts: string[];
    key: string;
  },
): BookingRow {
  const { s, input, contact } = b;
  const now = nowIso();
  return {
    id: uuidv7(),
    workspaceId: ctx.ws.id,
    meetingTypeId: s.row.id,
    contactId: contact.id,
    hostUserId: b.hosts[0],
    hostUserIds: b.hosts,
    status: 'confirmed',
    startAt: b.wanted.startIso,
    endAt: new Date(b.wanted.start + s.rules.durationMinutes * MINUTE).toISOString(),
    hostTimezone: s.row.timezone,
    inviteeTimezone: input.timezone,
    inviteeName: input.invitee?.name ?? contact.name ?? contact.email ?? contact.phone ?? '',
    inviteeEmail: input.invitee?.email.trim().toLowerCase() ?? contact.email ?? '',
    inviteePhone: input.invitee?.phone ?? contact.phone ?? null,
    joinUrl: null,
    notes: input.notes ?? null,
    source: b.origin.source,
    pinnedHostUserId: b.wanted.pinned ?? null,
    dedupeKey: b.key,
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
}

/** The booking's writes after the contact's: its row (guarded on `unchanged`), its assignment history, `booking.created` and its signal. */
function writeBooking(ctx: ServiceContext, batch: WriteBatch, s: Schedule, row: BookingRow, unchanged: RowGuard): void {
  batch.write(
    insertBooking(ctx.db, row, unchanged),
    assignmentInsert.in(ctx.db, {
      id: uuidv7(),
      workspaceId: ctx.ws.id,
      bookingId: row.id,
      fromUserId: null,
      toUserId: row.hostUserId,
      reason: row.pinnedHostUserId ? 'pinned' : s.rules.kind,
      kind: 'created',
      forced: false,
      createdAt: row.createdAt,
    }),
  );
  batch.emit('booking.created', bookingEventData(row, s.row, s.members));
  batch.signal(row.contactId, 'booking.created', afterInsertOf(bookings, row.id));
}

/**
 * The booking's write under its hosts' SlotLocks, their leases kept in memory only: the write's
 * guard finds any change they miss. Of what the hosts were picked on, only the clock can have
 * moved while the locks were awaited (the minimum notice); anything else is the guard's to find.
 */
function underSlotLocks(
  ctx: ServiceContext,
  locks: SlotLocks,
  claims: HostClaim[],
  b: { s: Schedule; start: number; passes: ReturnType<typeof bookingPasses> },
): Hold {
  const { s, passes } = b;
  return (write) =>
    locks.hold(
      ctx.ws.id,
      claims,
      async () => {
        if (b.start < Date.now() + s.rules.minNoticeMinutes * MINUTE) throw passes.changed(s, new DecisionStale());
        await write().catch((err) => {
          throw failedOn(err, calendarChanged) ? passes.changed(s, err) : err;
        });
      },
      { guarded: true },
    );
}

/**
 * The answer of a booking written: the workspace's booking settings sign its manage link, created
 * on first use in the booking's own batch and read back from it.
 */
function answered(
  ctx: ServiceContext,
  batch: WriteBatch,
  booked: { row: BookingRow; s: Schedule },
  settings: BookingSettings | undefined,
): Decided<Booked> {
  if (settings) return batch.answerWith({ ...booked, duplicate: false, linkSecret: settings.linkSecret });
  batch.write(settingsFirstUse(ctx.db, ctx.ws.id));
  return batch.answer(settingsRead(ctx.db, ctx.ws.id), ([created]) => ({ ...booked, duplicate: false, linkSecret: created.linkSecret }));
}
