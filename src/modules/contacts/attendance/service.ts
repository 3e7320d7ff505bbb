import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../../platform/context';
import { type Db, guarded, nowIso, retryOnConflict, runBatch } from '../../../platform/d1/db';
import { guardOf, lostRaceOn, uniqueOn } from '../../../platform/d1/constraints';
import { uuidv7 } from '../../../platform/ids';
import { rawAll } from '../../../platform/d1/raw-query';
import { attendanceEvents, eventAttendances } from './schema';
import { SharedErrors } from '../../../platform/shared-errors';
import { AttendanceErrors } from './errors';

export async function createAttendanceEvent(db: Db, workspaceId: string, input: { name: string; start_at: string }) {
  const row = { id: uuidv7(), workspace_id: workspaceId, name: input.name, start_at: new Date(input.start_at).toISOString(), created_at: nowIso() };
  await db.insert(attendanceEvents).values(row);
  return row;
}

type Attendance = typeof eventAttendances.$inferSelect;

const serialize = (a: Attendance) => ({
  id: a.id,
  event_id: a.event_id,
  contact_id: a.contact_id,
  status: a.status,
  registered_at: a.registered_at,
  attended_at: a.attended_at,
  unregistered_at: a.unregistered_at,
  created_at: a.created_at,
  updated_at: a.updated_at,
});

/**
 * Sets a contact's status for an event (one row per event and contact) and
 * fires `event.attendance.changed` when the status actually changed, in the
 * same batch as the write. The write applies only to the row as it was read
 * (a fresh insert loses to a parallel one on the unique index, an update is
 * guarded on the read status), so parallel identical changes fire once.
 */
export async function setAttendance(ctx: ServiceContext, eventId: string, input: { contact_id: string; status: string }) {
  return retryOnConflict(() => setAttendanceOnce(ctx, eventId, input), attendanceLostRace);
}

const attendanceLostRace = lostRaceOn(uniqueOn(eventAttendances.event_id, eventAttendances.contact_id), guardOf(eventAttendances.status));

async function setAttendanceOnce(ctx: ServiceContext, eventId: string, input: { contact_id: string; status: string }) {
  const { db, ws } = ctx;
  const contactId = input.contact_id.toLowerCase();
  const [events, contactRows, existingRows] = await db.batch([
    db
      .select()
      .from(attendanceEvents)
      .where(and(eq(attendanceEvents.workspace_id, ws.id), eq(attendanceEvents.id, eventId))),
    rawAll<{ id: string }>(db, sql`SELECT id FROM contacts WHERE workspace_id = ${ws.id} AND id = ${contactId}`),
    db
      .select()
      .from(eventAttendances)
      .where(and(eq(eventAttendances.workspace_id, ws.id), eq(eventAttendances.event_id, eventId), eq(eventAttendances.contact_id, contactId))),
  ]);
  const event = events[0];
  if (!event) throw AttendanceErrors.eventNotFound();
  if (!contactRows[0]) throw SharedErrors.contactNotFound();
  const existing = existingRows[0] ?? null;
  if (existing && existing.status === input.status) return serialize(existing);
  const now = nowIso();
  const row: Attendance = {
    id: existing?.id ?? uuidv7(),
    workspace_id: ws.id,
    event_id: eventId,
    contact_id: contactId,
    status: input.status,
    registered_at: existing?.registered_at ?? now,
    attended_at: input.status === 'attended' ? (existing?.attended_at ?? now) : (existing?.attended_at ?? null),
    unregistered_at: input.status === 'cancelled' ? now : (existing?.unregistered_at ?? null),
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  const emitted = ctx.events.emit(db, ws.id, 'event.attendance.changed', {
    attendance_id: row.id,
    event_id: eventId,
    contact_id: contactId,
    status: row.status,
    previous_status: existing?.status ?? null,
    registered_at: row.registered_at,
    attended_at: row.attended_at,
    unregistered_at: row.unregistered_at,
    event: { id: event.id, name: event.name, start_at: event.start_at },
  });
  const write = existing
    ? db
        .update(eventAttendances)
        .set({
          status: guarded(sql`${eventAttendances.status} = ${existing.status}`, sql`${row.status}`),
          attended_at: row.attended_at,
          unregistered_at: row.unregistered_at,
          updated_at: now,
        })
        .where(eq(eventAttendances.id, existing.id))
    : db.insert(eventAttendances).values(row);
  // A contact attends an event once, however its attendance is corrected afterwards.
  const attended = input.status === 'attended' && !existing?.attended_at;
  await runBatch(db, [write, emitted.statement, ...(attended ? ctx.events.signal(db, ws.id, contactId, 'event.attended') : [])]);
  ctx.events.committedAfter([emitted.event]);
  return serialize(row);
}
