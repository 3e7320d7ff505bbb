import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Events contacts attend (webinars, meetups), created by the operator. */
export const attendanceEvents = sqliteTable(
  'attendance_events',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    name: text('name').notNull(),
    start_at: text('start_at').notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [index('attendance_events_workspace').on(t.workspace_id, t.start_at)],
);

export const eventAttendances = sqliteTable(
  'event_attendances',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    event_id: text('event_id').notNull(),
    contact_id: text('contact_id').notNull(),
    status: text('status').notNull(),
    registered_at: text('registered_at').notNull(),
    attended_at: text('attended_at'),
    unregistered_at: text('unregistered_at'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('event_attendances_event_contact').on(t.event_id, t.contact_id),
    index('event_attendances_contact').on(t.contact_id, t.event_id),
  ],
);
