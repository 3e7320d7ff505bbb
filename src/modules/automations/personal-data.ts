import { sql } from 'drizzle-orm';
import { nowIso } from '../../platform/d1/db';
import { rawRun } from '../../platform/d1/raw-query';
import type { PersonalData } from '../../platform/personal-data';

/**
 * Enrollments follow their contact in a merge (an enrollment the target already has under the same
 * re-enrollment key keeps its history without the key), are part of its export with their step history,
 * and on erasure are cancelled and stripped: no contact id, no trigger data, no step results, no token.
 */
export const automationPersonalData: PersonalData = {
  exportKinds: {
    automation_enrollments: {
      rows: (w, c) =>
        sql`SELECT e.id, e.automation_id, e.automation_version, e.status, e.trigger_event_id, e.trigger_event_type, e.current_step_id,
          e.enrolled_at, e.ended_at, e.exit_reason,
          (SELECT json_group_array(json_object('step_id', r.step_id, 'type', r.type, 'status', r.status, 'started_at', r.started_at,
            'finished_at', r.finished_at, 'reason', r.reason, 'result', json(r.result))) FROM automation_step_runs r WHERE r.enrollment_id = e.id) AS steps
          FROM automation_enrollments e WHERE e.workspace_id = ${w} AND e.contact_id = ${c}`,
      json: ['steps'],
      order: 'enrolled_at',
    },
  },
  rekey: (db, w, from, to) => [
    rawRun(
      db,
      sql`UPDATE OR IGNORE automation_enrollments SET contact_id = ${to},
        once_key = CASE WHEN once_key IS NULL THEN NULL ELSE ${to} END, active_key = CASE WHEN active_key IS NULL THEN NULL ELSE ${to} END
        WHERE workspace_id = ${w} AND contact_id = ${from}`,
    ),
    rawRun(
      db,
      sql`UPDATE automation_enrollments SET contact_id = ${to}, once_key = NULL, active_key = NULL WHERE workspace_id = ${w} AND contact_id = ${from}`,
    ),
  ],
  erase: (db, w, c) => {
    const now = nowIso();
    return [
      rawRun(
        db,
        sql`UPDATE automation_step_runs SET result = NULL, unsubscribe_token = NULL
          WHERE workspace_id = ${w} AND enrollment_id IN (SELECT id FROM automation_enrollments WHERE workspace_id = ${w} AND contact_id = ${c})`,
      ),
      rawRun(
        db,
        sql`UPDATE automation_enrollments SET exit_reason = CASE WHEN status = 'active' THEN 'contact_erased' ELSE exit_reason END,
          ended_at = coalesce(ended_at, ${now}), status = CASE WHEN status = 'active' THEN 'cancelled' ELSE status END,
          contact_id = NULL, once_key = NULL, active_key = NULL, trigger_data = NULL, trigger_objects = '{}',
          waiting_step_id = NULL, waiting_event_type = NULL, updated_at = ${now}
          WHERE workspace_id = ${w} AND contact_id = ${c}`,
      ),
    ];
  },
};
