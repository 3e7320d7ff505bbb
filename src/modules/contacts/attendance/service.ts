import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../../platform/context';
import { type Db, guarded, nowIso } from '../../../platform/d1/db';
import { guardOf, uniqueOn } from '../../../platform/d1/constraints';
import { runOperation, unchanged } from '../../../platform/d1/operation';
import { uuidv7 } from '../../../platform/ids';
import { rawAll } from '../../../platform/d1/raw-query';
import { attendanceEvents, eventAttendances } from './schema';
import { AttendanceErrors } from './errors';
import { ContactErrors } from '../errors';

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
export function setAttendance(ctx: ServiceContext, eventId: string, input: { contact_id: string; status: string }) {
  const { db, ws } = ctx;
  const contactId = input.contact_id.toLowerCase();
  return runOperation(ctx, {
    reads: {
      event: db
        .select()
        .from(attendanceEvents)
        .where(and(eq(attendanceEvents.workspace_id, ws.id), eq(attendanceEvents.id, eventId))),
      contact: rawAll<{ id: string }>(db, sql`SELECT id FROM contacts WHERE workspace_id = ${ws.id} AND id = ${contactId}`),
      existing: db
        .select()
        .from(eventAttendances)
        .where(and(eq(eventAttendances.workspace_id, ws.id), eq(eventAttendances.event_id, eventId), eq(eventAttendances.contact_id, contactId))),
    },
    decide: (read, batch) => {
      const [event] = read.event;
      if (!event) throw AttendanceErrors.eventNotFound();
      if (!read.contact[0]) throw ContactErrors.referenceNotFound();
      const existing = read.existing[0] ?? null;
      if (existing && existing.status === input.status) return unchanged(serialize(existing));
      const row = attendanceRow(ws.id, eventId, contactId, input.status, existing);
      batch.write(existing ? statusUpdate(db, existing, row) : db.insert(eventAttendances).values(row));
      batch.emit('event.attendance.changed', {
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
      // A contact attends an event once, however its attendance is corrected afterwards.
      if (input.status === 'attended' && !existing?.attended_at) batch.signal(contactId, 'event.attended');
      return batch.answerWith(serialize(row));
    },
    lostRaceOn: [uniqueOn(eventAttendances.event_id, eventAttendances.contact_id), guardOf(eventAttendances.status)],
  });
}

/** The attendance as the change leaves it: first registration, attendance and cancellation times kept. */
function attendanceRow(workspaceId: string, eventId: string, contactId: string, status: string, existing: Attendance | null): Attendance {
  const now = nowIso();
  return {
    id: existing?.id ?? uuidv7(),
    workspace_id: workspaceId,
    event_id: eventId,
    contact_id: contactId,
    status,
    registered_at: existing?.registered_at ?? now,
    attended_at: status === 'attended' ? (existing?.attended_at ?? now) : (existing?.attended_at ?? null),
    unregistered_at: status === 'cancelled' ? now : (existing?.unregistered_at ?? null),
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
}

/** The status change of an existing attendance, only over the status that was read. */
const statusUpdate = (db: Db, existing: Attendance, row: Attendance) =>
  db
    .update(eventAttendances)
    .set({
      status: guarded(sql`${eventAttendances.status} = ${existing.status}`, sql`${row.status}`),
      attended_at: row.attended_at,
      unregistered_at: row.unregistered_at,
      updated_at: row.updated_at,
    })
    .where(eq(eventAttendances.id, existing.id));
