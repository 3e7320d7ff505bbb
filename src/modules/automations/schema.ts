import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { Definition } from './definition';

export const AUTOMATION_STATUSES = ['draft', 'active', 'paused', 'archived'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];

export const ENROLLMENT_STATUSES = ['active', 'completed', 'exited', 'cancelled', 'failed'] as const;
export type EnrollmentStatus = (typeof ENROLLMENT_STATUSES)[number];

/** An automation as it stands now; `definition` is its current version's (./definition.ts). */
export const automations = sqliteTable(
  'automations',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    name: text('name').notNull(),
    status: text('status', { enum: AUTOMATION_STATUSES }).notNull(),
    version: integer('version').notNull(),
    definition: text('definition', { mode: 'json' }).$type<Definition>().notNull(),
    trigger_event: text('trigger_event').notNull(),
    /** The origin of links in its emails (unsubscribe pages): the one of the request that last activated it. */
    link_origin: text('link_origin'),
    /** When it last became active: events from before (while it was paused or a draft) start no enrollment. */
    activated_at: text('activated_at'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    index('automations_workspace_created').on(t.workspace_id, t.created_at),
    index('automations_workspace_trigger').on(t.workspace_id, t.trigger_event, t.status),
  ],
);

/**
 * The event types each automation reacts to (its trigger, waits and exits, in every version it had):
 * what the outbox asks, inside every emitting batch, to tell whether an event has an automation to go to.
 * One index seek per event, whatever the automation's size.
 */
export const automationEventTypes = sqliteTable(
  'automation_event_types',
  {
    workspace_id: text('workspace_id').notNull(),
    event_type: text('event_type').notNull(),
    automation_id: text('automation_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspace_id, t.event_type, t.automation_id] })],
);

/** Every version an enrollment may still run: an enrollment keeps the version it started on to its end. */
export const automationVersions = sqliteTable(
  'automation_versions',
  {
    automation_id: text('automation_id').notNull(),
    version: integer('version').notNull(),
    workspace_id: text('workspace_id').notNull(),
    definition: text('definition', { mode: 'json' }).$type<Definition>().notNull(),
    created_at: text('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.automation_id, t.version] }), index('automation_versions_workspace').on(t.workspace_id)],
);

/**
 * One contact's run through one version of an automation. The unique indexes are the re-enrollment rules,
 * so parallel triggers cannot enroll twice: `trigger_event_id` (one enrollment per trigger event),
 * `once_key` (the contact, under `never`: once ever) and `active_key` (the contact while the enrollment
 * runs, under `after_end` and for manual enrollments: one at a time). An erasure clears all three with
 * the contact id.
 *
 * `waiting_step_id` names the `wait_for` step the enrollment waits in, so an event reaches only waits
 * that began before it; `trigger_objects` are the deal, order, payment request and booking ids the
 * trigger event named (the same-object rule of `wait_for` and `exit_on`).
 */
export const automationEnrollments = sqliteTable(
  'automation_enrollments',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    automation_id: text('automation_id').notNull(),
    automation_version: integer('automation_version').notNull(),
    contact_id: text('contact_id'),
    status: text('status', { enum: ENROLLMENT_STATUSES }).notNull(),
    trigger_event_id: text('trigger_event_id'),
    trigger_event_type: text('trigger_event_type'),
    trigger_data: text('trigger_data', { mode: 'json' }).$type<Record<string, unknown>>(),
    trigger_objects: text('trigger_objects', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    once_key: text('once_key'),
    active_key: text('active_key'),
    current_step_id: text('current_step_id'),
    waiting_step_id: text('waiting_step_id'),
    waiting_event_type: text('waiting_event_type'),
    enrolled_at: text('enrolled_at').notNull(),
    started_at: text('started_at'),
    ended_at: text('ended_at'),
    exit_reason: text('exit_reason'),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('automation_enrollments_trigger_event').on(t.automation_id, t.trigger_event_id),
    uniqueIndex('automation_enrollments_once').on(t.automation_id, t.once_key),
    uniqueIndex('automation_enrollments_active').on(t.automation_id, t.active_key),
    index('automation_enrollments_automation').on(t.workspace_id, t.automation_id, t.enrolled_at),
    index('automation_enrollments_contact').on(t.workspace_id, t.contact_id, t.status),
    index('automation_enrollments_unstarted').on(t.started_at, t.enrolled_at).where(sql`started_at IS NULL AND status = 'active'`),
  ],
);

export type AutomationRow = typeof automations.$inferSelect;
export type EnrollmentRow = typeof automationEnrollments.$inferSelect;

export const STEP_RUN_STATUSES = ['completed', 'skipped', 'failed', 'waiting'] as const;
export type StepRunStatus = (typeof STEP_RUN_STATUSES)[number];

/**
 * What each step of an enrollment did, one row per (enrollment, step): the primary key is what makes a
 * step's own writes happen once however often the engine retries or replays it (they join the batch
 * that claims the row). `seq` orders the history as run.
 */
export const automationStepRuns = sqliteTable(
  'automation_step_runs',
  {
    enrollment_id: text('enrollment_id').notNull(),
    step_id: text('step_id').notNull(),
    workspace_id: text('workspace_id').notNull(),
    type: text('type').notNull(),
    status: text('status', { enum: STEP_RUN_STATUSES }).notNull(),
    seq: integer('seq').notNull(),
    started_at: text('started_at').notNull(),
    finished_at: text('finished_at'),
    reason: text('reason'),
    result: text('result', { mode: 'json' }).$type<Record<string, unknown>>(),
    /** A `send_email` step's one-click unsubscribe token (`/u/{token}`): the email's recipient stops marketing email with it. */
    unsubscribe_token: text('unsubscribe_token'),
  },
  (t) => [
    primaryKey({ columns: [t.enrollment_id, t.step_id] }),
    index('automation_step_runs_workspace').on(t.workspace_id),
    uniqueIndex('automation_step_runs_unsubscribe_token').on(t.unsubscribe_token),
  ],
);

export type StepRunRow = typeof automationStepRuns.$inferSelect;
