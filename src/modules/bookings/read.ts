import { and, asc, desc, eq, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { readAll } from '../../platform/d1/operation';
import { prepared } from '../../platform/d1/prepared';
import { envelope, parsePaging, parseSort } from '../../platform/list';
import { SharedErrors } from '../../platform/shared-errors';
import { isUuid } from '../../platform/validation';
import { BOOKING_SORTS, type BookingListInput } from './dto';
import { BookingErrors } from './errors';
import { parseInstant } from './instant';
import { membersFrom, membersRead, type Member } from './meeting-types';
import { bookings, BOOKING_STATUSES, type BookingRow } from './schema';

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

/** A booking id as stored; one that is no UUID as an id no booking has. */
export const bookingIdOf = (id: string) => (isUuid(id) ? id.toLowerCase() : '');

/** Booking `id` of the workspace, for a caller's batch. */
export const selectBooking = (ctx: ServiceContext, id: string) => bookingById.in(ctx.db, { ws: ctx.ws.id, id: bookingIdOf(id) });

export async function getBooking(ctx: ServiceContext, id: string) {
  const read = await readAll(ctx.db, { booking: selectBooking(ctx, id), members: membersRead(ctx.db, ctx.ws.id) });
  const [booking] = read.booking;
  if (!booking) throw BookingErrors.notFound();
  return serializeBooking(booking, membersFrom(read.members));
}

function listInstant(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  const ms = parseInstant(raw);
  if (ms === null) throw BookingErrors.invalidListDate({ name });
  return new Date(ms).toISOString();
}

/** The conditions of a list query; malformed values 400. */
function listConditions(ctx: ServiceContext, query: BookingListInput): SQL[] {
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
  return conditions;
}

/** `GET /v1/bookings`: status, meeting_type_id, from/to on `start_at`, sort (default `-start_at`), paging; malformed values 400. */
export async function listBookings(ctx: ServiceContext, query: BookingListInput) {
  const paging = parsePaging(query, { limit: 50, cap: 500 });
  const sort = parseSort(query.sort, BOOKING_SORTS, '-start_at');
  const where = and(...listConditions(ctx, query));
  // `+end_at`: with a status filter SQLite would walk `bookings_status_end` (the status sweep's index over the shard) for this order.
  const column = { start_at: bookings.startAt, end_at: sql`+${bookings.endAt}`, created_at: bookings.createdAt, updated_at: bookings.updatedAt }[
    sort.field as (typeof BOOKING_SORTS)[number]
  ];
  const order = sort.descending ? [desc(column), desc(bookings.id)] : [asc(column), asc(bookings.id)];
  const read = await readAll(ctx.db, {
    counted: ctx.db.select({ total: sql<number>`count(*)` }).from(bookings).where(where),
    rows: ctx.db
      .select()
      .from(bookings)
      .where(where)
      .orderBy(...order)
      .limit(paging.limit)
      .offset(paging.offset),
    members: membersRead(ctx.db, ctx.ws.id),
  });
  const byId = membersFrom(read.members);
  return envelope(
    read.rows.map((r) => serializeBooking(r, byId)),
    read.counted[0].total,
    paging,
  );
}
