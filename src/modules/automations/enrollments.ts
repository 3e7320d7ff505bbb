import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { afterInsertOf } from '../../platform/d1/row-guard';
import { uuidv7 } from '../../platform/ids';
import { isUuid } from '../../platform/validation';
import { SharedErrors } from '../../platform/shared-errors';
import { parsePaging } from '../../platform/list';
import type { Envelope } from '../../platform/outbox';
import { ContactErrors, contactMatches, referencedContactExists } from '../contacts';
import type { Definition, StepType } from './definition';
import { AutomationErrors } from './errors';
import { ENROLLMENT_EVENT_DATA } from './event-payload';
import { type RunParams, startRuns, stopRuns } from './runs';
import { automationEnrollments, ENROLLMENT_STATUSES, type EnrollmentStatus, type StepRunRow } from './schema';

type StoredEnrollment = {
  id: string;
  automation_id: string;
  automation_version: number;
  contact_id: string | null;
  status: EnrollmentStatus;
  trigger_event_id: string | null;
  trigger_event_type: string | null;
  current_step_id: string | null;
  enrolled_at: string;
  ended_at: string | null;
  exit_reason: string | null;
};

export const serializeEnrollment = (e: StoredEnrollment) => ({
  id: e.id,
  automation_id: e.automation_id,
  automation_version: e.automation_version,
  contact_id: e.contact_id,
  status: e.status,
  trigger: e.trigger_event_id ? { event_id: e.trigger_event_id, event_type: e.trigger_event_type! } : null,
  current_step_id: e.current_step_id,
  enrolled_at: e.enrolled_at,
  ended_at: e.ended_at,
  exit_reason: e.exit_reason,
});

const ENROLLMENT_COLUMNS = sql.raw(
  'e.id, e.automation_id, e.automation_version, e.contact_id, e.status, e.trigger_event_id, e.trigger_event_type, e.current_step_id, e.enrolled_at, e.ended_at, e.exit_reason',
);

/** The objects an event's data names: what `wait_for` and `exit_on` hold an enrollment's later events to. */
const OBJECT_KEYS = ['deal_id', 'order_id', 'payment_request_id', 'booking_id'] as const;
export const objectsOf = (data: Record<string, unknown>): Record<string, string> =>
  Object.fromEntries(OBJECT_KEYS.filter((k) => typeof data[k] === 'string').map((k) => [k, data[k] as string]));

/** An event's objects that contradict an enrollment's: same kind of object, another one. */
export const sameObjects = (mine: Record<string, string>, theirs: Record<string, string>) =>
  Object.entries(theirs).every(([k, v]) => mine[k] === undefined || mine[k] === v);

type Enrolling = { automationId: string; contactId: string; filter?: Record<string, unknown>; event?: Envelope };

/**
 * The enrollment's insert and its `started` event, for one batch. The insert is guarded by the automation
 * being active and the contact existing (and matching the trigger's filter) as the batch runs; the unique
 * indexes of the re-enrollment rules refuse a second one (./schema.ts), so racing triggers enroll once.
 * A manual enrollment (no event) takes the contact's active key under every rule: one at a time.
 */
function enrollmentStatements(ctx: ServiceContext, enrolling: Enrolling, now: string): { id: string; insert: Statement; started: Statement } {
  const id = uuidv7();
  const { automationId, contactId, event } = enrolling;
  const eventId = event?.id ?? null;
  const insert = rawAll<{ id: string }>(
    ctx.db,
    sql`INSERT INTO automation_enrollments (id, workspace_id, automation_id, automation_version, contact_id, status, trigger_event_id,
        trigger_event_type, trigger_data, trigger_objects, once_key, active_key, enrolled_at, updated_at)
      SELECT ${id}, a.workspace_id, a.id, a.version, ${contactId}, 'active', ${eventId}, ${event?.type ?? null},
        ${event ? JSON.stringify(event.data) : null}, ${JSON.stringify(event ? objectsOf(event.data) : {})},
        CASE WHEN a.definition ->> '$.re_enrollment' = 'never' THEN ${contactId} END,
        CASE WHEN a.definition ->> '$.re_enrollment' = 'after_end' OR ${eventId} IS NULL THEN ${contactId} END,
        ${now}, ${now}
      FROM automations a
      WHERE a.workspace_id = ${ctx.ws.id} AND a.id = ${automationId} AND a.status = 'active' AND (${event?.created_at ?? null} IS NULL OR a.activated_at <= ${event?.created_at ?? null})
        AND ${enrolling.filter ? contactMatches(ctx.ws.id, contactId, enrolling.filter) : referencedContactExists(ctx.ws.id, contactId)}
      ON CONFLICT DO NOTHING RETURNING id`,
  );
  const started = ctx.events.emitFrom(
    ctx.db,
    ctx.ws.id,
    'automation.enrollment.started',
    ENROLLMENT_EVENT_DATA,
    { enrollment: id },
    afterInsertOf(automationEnrollments, id),
  );
  ctx.events.committedAfter([started.event]);
  return { id, insert, started: started.statement };
}

/**
 * POST /v1/automations/{id}/enrollments: one batch decides; why nothing was written is read in the same
 * batch. The instance is created after the answer (`later`): the enrollment is committed, and should the
 * creation fail the `automation-starts` sweep starts it.
 */
export async function enrollContact(
  ctx: ServiceContext,
  env: Bindings,
  automationId: string,
  contactId: string,
  later: (task: () => Promise<unknown>) => void,
) {
  const now = nowIso();
  const { id, insert, started } = enrollmentStatements(ctx, { automationId, contactId }, now);
  const [inserted, , [automation], [contact], rows] = await ctx.db.batch([
    insert,
    started,
    rawAll<{ status: string; definition: string }>(
      ctx.db,
      sql`SELECT status, definition FROM automations WHERE workspace_id = ${ctx.ws.id} AND id = ${automationId}`,
    ),
    rawAll<{ found: number }>(ctx.db, sql`SELECT 1 AS found WHERE ${referencedContactExists(ctx.ws.id, contactId)}`),
    rawAll<StoredEnrollment>(ctx.db, sql`SELECT ${ENROLLMENT_COLUMNS} FROM automation_enrollments e WHERE e.id = ${id}`),
  ]);
  if (!automation) throw AutomationErrors.notFound();
  if (!contact) throw ContactErrors.referenceNotFound();
  if (automation.status !== 'active') throw AutomationErrors.notActive({ status: automation.status });
  if (!(inserted as unknown[]).length) {
    const rule = (JSON.parse(automation.definition) as Definition).re_enrollment;
    throw AutomationErrors.enrollmentRefused({
      reason:
        rule === 'never'
          ? 'The contact was enrolled in this automation before; re_enrollment is never'
          : 'The contact has an enrollment in this automation that has not ended',
    });
  }
  later(() => startRuns(env, [{ workspace_id: ctx.ws.id, enrollment_id: id }]));
  return serializeEnrollment(rows[0]);
}

/**
 * Enrolls the contact an event concerns in every active automation that starts on its type, in one batch
 * (each insert guarded as above); answers the runs to start for those it enrolled.
 */
export async function enrollFromEvent(
  ctx: ServiceContext,
  event: Envelope,
  contactId: string,
  automations: { id: string; filter?: Record<string, unknown> }[],
): Promise<RunParams[]> {
  if (automations.length === 0) return [];
  const now = nowIso();
  const planned = automations.map((a) => enrollmentStatements(ctx, { automationId: a.id, contactId, filter: a.filter, event }, now));
  const results = await ctx.db.batch(planned.flatMap((p) => [p.insert, p.started]) as [Statement, ...Statement[]]);
  return planned.filter((_, i) => (results[2 * i] as unknown[]).length > 0).map((p) => ({ workspace_id: ctx.ws.id, enrollment_id: p.id }));
}

export async function listEnrollments(
  ctx: ServiceContext,
  automationId: string,
  query: { status?: string; contact_id?: string; limit?: string; offset?: string },
) {
  const paging = parsePaging(query, { limit: 25, cap: 100 });
  const status = query.status || undefined;
  if (status !== undefined && !ENROLLMENT_STATUSES.includes(status as EnrollmentStatus))
    throw AutomationErrors.invalidListFilter({ name: 'status', values: ENROLLMENT_STATUSES.join(', ') });
  const contactId = query.contact_id || undefined;
  if (contactId !== undefined && !isUuid(contactId)) throw SharedErrors.invalidUuidParam({ name: 'contact_id' });
  const where = sql`e.workspace_id = ${ctx.ws.id} AND e.automation_id = ${automationId}
    AND (${status ?? null} IS NULL OR e.status = ${status ?? null}) AND (${contactId?.toLowerCase() ?? null} IS NULL OR e.contact_id = ${contactId?.toLowerCase() ?? null})`;
  const [[automation], [{ total }], rows] = await ctx.db.batch([
    rawAll<{ id: string }>(ctx.db, sql`SELECT id FROM automations WHERE workspace_id = ${ctx.ws.id} AND id = ${automationId}`),
    rawAll<{ total: number }>(ctx.db, sql`SELECT count(*) AS total FROM automation_enrollments e WHERE ${where}`),
    rawAll<StoredEnrollment>(
      ctx.db,
      sql`SELECT ${ENROLLMENT_COLUMNS} FROM automation_enrollments e WHERE ${where} ORDER BY e.enrolled_at DESC, e.id DESC LIMIT ${paging.limit} OFFSET ${paging.offset}`,
    ),
  ]);
  if (!automation) throw AutomationErrors.notFound();
  return { data: rows.map(serializeEnrollment), total, limit: paging.limit, offset: paging.offset };
}

const stepRunOf = (r: StepRunRow & { result: unknown }) => ({
  step_id: r.step_id,
  type: r.type as StepType,
  status: r.status,
  started_at: r.started_at,
  finished_at: r.finished_at,
  reason: r.reason,
  result: typeof r.result === 'string' ? JSON.parse(r.result) : null,
});

/** GET /v1/automation-enrollments/{id}: the enrollment and its step history in the order run. */
export async function getEnrollment(ctx: ServiceContext, id: string) {
  const [rows, steps] = await ctx.db.batch([
    rawAll<StoredEnrollment>(
      ctx.db,
      sql`SELECT ${ENROLLMENT_COLUMNS} FROM automation_enrollments e WHERE e.workspace_id = ${ctx.ws.id} AND e.id = ${id}`,
    ),
    rawAll<StepRunRow>(ctx.db, sql`SELECT * FROM automation_step_runs WHERE workspace_id = ${ctx.ws.id} AND enrollment_id = ${id} ORDER BY seq`),
  ]);
  if (!rows[0]) throw AutomationErrors.enrollmentNotFound();
  return { ...serializeEnrollment(rows[0]), steps: steps.map(stepRunOf) };
}

/**
 * Ends an active enrollment (`completed`, `exited`, `cancelled` or `failed`) with its `ended` event, in one
 * guarded batch: of two racing ends (an exit event and a cancel) exactly one is written. True when this one was.
 */
export async function endEnrollment(
  ctx: ServiceContext,
  id: string,
  status: Exclude<EnrollmentStatus, 'active'>,
  exitReason: string | null,
): Promise<boolean> {
  const now = nowIso();
  const ended = ctx.events.emitFrom(ctx.db, ctx.ws.id, 'automation.enrollment.ended', ENROLLMENT_EVENT_DATA, { enrollment: id }, ENDED_HERE(id, now));
  const [update] = await ctx.db.batch([
    rawRun(
      ctx.db,
      sql`UPDATE automation_enrollments SET status = ${status}, exit_reason = ${exitReason}, ended_at = ${now}, updated_at = ${now},
        active_key = NULL, waiting_step_id = NULL, waiting_event_type = NULL
        WHERE workspace_id = ${ctx.ws.id} AND id = ${id} AND status = 'active'`,
    ),
    ended.statement,
  ]);
  if (!update.meta.changes) return false;
  ctx.events.committedAfter([ended.event]);
  return true;
}

/** The guard of an `ended` event: the enrollment's end is the one this batch wrote (its `ended_at` is this batch's). */
const ENDED_GUARD = sql`EXISTS (SELECT 1 FROM automation_enrollments WHERE id = ${sql.placeholder('ended')} AND ended_at = ${sql.placeholder('endedAt')})`;
const ENDED_HERE = (id: string, now: string) => ({ condition: ENDED_GUARD, values: { ended: id, endedAt: now } });

/** POST /v1/automation-enrollments/{id}/cancel. */
export async function cancelEnrollment(ctx: ServiceContext, env: Bindings, id: string) {
  const ended = await endEnrollment(ctx, id, 'cancelled', null);
  const enrollment = await getEnrollment(ctx, id);
  if (!ended && enrollment.status !== 'cancelled') throw AutomationErrors.enrollmentEnded({ status: enrollment.status });
  if (ended) await stopRuns(env, [id]);
  const { steps: _steps, ...rest } = enrollment;
  return rest;
}
