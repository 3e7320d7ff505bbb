import { sql } from 'drizzle-orm';

/**
 * The data of `automation.enrollment.started` and `.ended`, computed from the enrollment's row as the
 * batch writes it (`EventSink.emitFrom`, placeholder `enrollment`), so the event says what was committed.
 */
export const ENROLLMENT_EVENT_DATA = sql`(SELECT json_object('automation_id', e.automation_id, 'enrollment_id', e.id,
  'automation_version', e.automation_version, 'contact_id', e.contact_id, 'status', e.status,
  'trigger', json(CASE WHEN e.trigger_event_id IS NOT NULL THEN json_object('event_id', e.trigger_event_id, 'event_type', e.trigger_event_type) END),
  'exit_reason', e.exit_reason, 'enrolled_at', e.enrolled_at, 'ended_at', e.ended_at)
  FROM automation_enrollments e WHERE e.id = ${sql.placeholder('enrollment')})`;
