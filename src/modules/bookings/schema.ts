import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const SCHEDULING_KINDS = ['one_on_one', 'round_robin', 'collective'] as const;
export type SchedulingKind = (typeof SCHEDULING_KINDS)[number];
export const BOOKING_STATUSES = ['confirmed', 'cancelled', 'completed', 'no_show'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** Local wall-clock windows per weekday, `HH:MM` pairs (`24:00` may end a window). */
export type WeeklyHours = Partial<Record<Weekday, [string, string][]>>;

/** A meeting type (operator-made, read-only in /v1) with its availability schedule. */
export const meetingTypes = sqliteTable(
  'meeting_types',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    description: text('description'),
    durationMinutes: integer('duration_minutes').notNull(),
    locationType: text('location_type').notNull(),
    isActive: integer('is_active', { mode: 'boolean' }).notNull(),
    schedulingKind: text('scheduling_kind', { enum: SCHEDULING_KINDS }).notNull(),
    /** The pool in order (one host for `one_on_one`). */
    hostUserIds: text('host_user_ids', { mode: 'json' }).$type<string[]>().notNull(),
    /** The schedule's IANA zone; null weekly hours means no schedule is configured. */
    timezone: text('timezone').notNull(),
    weeklyHours: text('weekly_hours', { mode: 'json' }).$type<WeeklyHours>(),
    minNoticeMinutes: integer('min_notice_minutes').notNull(),
    bufferBeforeMinutes: integer('buffer_before_minutes').notNull(),
    bufferAfterMinutes: integer('buffer_after_minutes').notNull(),
    dailyCap: integer('daily_cap'),
    slotIntervalMinutes: integer('slot_interval_minutes').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('meeting_types_workspace_slug').on(t.workspaceId, t.slug),
    index('meeting_types_workspace_created').on(t.workspaceId, t.createdAt),
  ],
);

export const bookings = sqliteTable(
  'bookings',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    meetingTypeId: text('meeting_type_id').notNull(),
    contactId: text('contact_id').notNull(),
    /** The assigned host. */
    hostUserId: text('host_user_id').notNull(),
    /** Every host attending, the assigned host first (collective types list the whole pool). */
    hostUserIds: text('host_user_ids', { mode: 'json' }).$type<string[]>().notNull(),
    status: text('status', { enum: BOOKING_STATUSES }).notNull(),
    startAt: text('start_at').notNull(),
    endAt: text('end_at').notNull(),
    hostTimezone: text('host_timezone').notNull(),
    inviteeTimezone: text('invitee_timezone').notNull(),
    inviteeName: text('invitee_name').notNull(),
    inviteeEmail: text('invitee_email').notNull(),
    inviteePhone: text('invitee_phone'),
    joinUrl: text('join_url'),
    notes: text('notes'),
    source: text('source').notNull(),
    /** The host the create pinned (round-robin), part of the double-submit key. */
    pinnedHostUserId: text('pinned_host_user_id'),
    /** Slot + meeting type + contact (+ pinned host): unique among confirmed bookings. */
    dedupeKey: text('dedupe_key').notNull(),
    cancelledAt: text('cancelled_at'),
    cancelledBy: text('cancelled_by'),
    cancellationReason: text('cancellation_reason'),
    rescheduledAt: text('rescheduled_at'),
    previousStartAt: text('previous_start_at'),
    rescheduleCount: integer('reschedule_count').notNull().default(0),
    /** The calendar invite's `SEQUENCE`: 0 at the confirmation, raised by each reschedule and by the cancellation. */
    inviteSequence: integer('invite_sequence').notNull().default(0),
    /** Set in the application when the host marks the invitee absent; the sweep then ends the booking as `no_show`. */
    noShowMarkedAt: text('no_show_marked_at'),
    /** Bumped by every change: reassign compares it (BOOKING_MODIFIED). */
    version: integer('version').notNull().default(1),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('bookings_confirmed_dedupe').on(t.workspaceId, t.dedupeKey).where(sql`status = 'confirmed'`),
    index('bookings_workspace_start').on(t.workspaceId, t.startAt),
    index('bookings_workspace_status_start').on(t.workspaceId, t.status, t.startAt),
    index('bookings_workspace_contact').on(t.workspaceId, t.contactId),
    index('bookings_status_end').on(t.status, t.endAt),
  ],
);

/** Who a booking was assigned to, and why: one row at create and one per reassign. */
export const bookingAssignments = sqliteTable(
  'booking_assignments',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    bookingId: text('booking_id').notNull(),
    fromUserId: text('from_user_id'),
    toUserId: text('to_user_id').notNull(),
    reason: text('reason'),
    kind: text('kind', { enum: ['created', 'reassigned'] }).notNull(),
    forced: integer('forced', { mode: 'boolean' }).notNull().default(false),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('booking_assignments_booking').on(t.workspaceId, t.bookingId)],
);

/** Busy blocks from a host's external calendar (a soft check). */
export const busyBlocks = sqliteTable(
  'busy_blocks',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    userId: text('user_id').notNull(),
    startAt: text('start_at').notNull(),
    endAt: text('end_at').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('busy_blocks_workspace_start').on(t.workspaceId, t.startAt)],
);

/** Per-workspace booking settings: the publishable embed key and the secret that signs manage links. */
export const bookingSettings = sqliteTable('booking_settings', {
  workspaceId: text('workspace_id').primaryKey(),
  embedKey: text('embed_key').notNull(),
  linkSecret: text('link_secret').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
});

export type MeetingTypeRow = typeof meetingTypes.$inferSelect;
export type BookingRow = typeof bookings.$inferSelect;
export type BusyBlockRow = typeof busyBlocks.$inferSelect;
