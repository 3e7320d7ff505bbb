import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { publishCommitted } from '../../platform/outbox';
import { workspaceContext } from '../workspaces';
import type { Definition } from './definition';
import type { StepRunStatus } from './schema';

/**
 * What an enrollment runs, read once at its start and kept by the engine: the version it keeps to its end and
 * ids. The trigger event's data stays in D1 (`triggerDataOf`), where an erasure reaches it.
 */
export type RunPlan = {
  definition: Definition;
  contactId: string;
  triggerEventId: string | null;
  triggerEventType: string | null;
  timezone: string;
  /** The origin of links in its emails (`keptLinkOrigin`). */
  linkOrigin: string | null;
};

/** The workspace's context as each step finds it: resolved again every time, so a workspace moved meanwhile is found on its new shard. */
export const runContext = (env: Bindings, workspaceId: string): Promise<ServiceContext> => workspaceContext(env, workspaceId);

/** Events a step's batches committed leave once it is done (the outbox sweep re-sends them should this fail). */
export async function publishStepEvents(env: Bindings, ctx: ServiceContext): Promise<void> {
  if (ctx.events.committed.length) await publishCommitted(env, ctx.db, ctx.events.committed);
}

/** Marks the enrollment started and reads its plan; null when it is no longer active (cancelled before its first step). */
export async function startPlan(ctx: ServiceContext, enrollmentId: string): Promise<RunPlan | null> {
  const now = nowIso();
  const [, rows] = await ctx.db.batch([
    rawRun(
      ctx.db,
      sql`UPDATE automation_enrollments SET started_at = coalesce(started_at, ${now}) WHERE workspace_id = ${ctx.ws.id} AND id = ${enrollmentId}`,
    ),
    rawAll<{
      status: string;
      contact_id: string;
      trigger_data: string | null;
      trigger_event_id: string | null;
      trigger_event_type: string | null;
      definition: string;
      link_origin: string | null;
    }>(
      ctx.db,
      sql`SELECT e.status, e.contact_id, e.trigger_data, e.trigger_event_id, e.trigger_event_type, v.definition, a.link_origin
        FROM automation_enrollments e JOIN automation_versions v ON v.automation_id = e.automation_id AND v.version = e.automation_version
        JOIN automations a ON a.id = e.automation_id
        WHERE e.workspace_id = ${ctx.ws.id} AND e.id = ${enrollmentId}`,
    ),
  ]);
  const row = rows[0];
  if (row?.status !== 'active') return null;
  return {
    definition: JSON.parse(row.definition),
    contactId: row.contact_id,
    triggerEventId: row.trigger_event_id,
    triggerEventType: row.trigger_event_type,
    timezone: ctx.ws.timezone,
    linkOrigin: row.link_origin,
  };
}

/** The data of the event that started the enrollment (null for a manual one or once erased). */
export async function triggerDataOf(ctx: ServiceContext, enrollmentId: string): Promise<Record<string, unknown> | null> {
  const [row] = await rawAll<{ trigger_data: string | null }>(
    ctx.db,
    sql`SELECT trigger_data FROM automation_enrollments WHERE workspace_id = ${ctx.ws.id} AND id = ${enrollmentId}`,
  );
  return row?.trigger_data ? JSON.parse(row.trigger_data) : null;
}

/** True while the enrollment runs: a cancel, an exit or an erasure stops it before its next step. */
export const stillActive = (ctx: ServiceContext, enrollmentId: string) =>
  rawAll<{ found: number }>(
    ctx.db,
    sql`SELECT 1 AS found FROM automation_enrollments WHERE workspace_id = ${ctx.ws.id} AND id = ${enrollmentId} AND status = 'active'`,
  );

/** The guard of a step's own writes: the enrollment still runs as the batch does. */
export const activeCondition = (ctx: ServiceContext, enrollmentId: string) =>
  sql`EXISTS (SELECT 1 FROM automation_enrollments WHERE workspace_id = ${ctx.ws.id} AND id = ${enrollmentId} AND status = 'active')`;

export type StepOutcome = { status: StepRunStatus; reason?: string | null; result?: Record<string, unknown> | null };

/**
 * The step's row in the history: written when the step begins (a wait) or ends; a row already finished stays
 * as it is, so a replayed step never rewrites what it did. The enrollment's `current_step_id` moves with it.
 * RETURNING tells whether this call wrote the row: what a step does once rides on that.
 */
export function stepRecord(
  ctx: ServiceContext,
  enrollmentId: string,
  step: { id: string; type: string },
  outcome: StepOutcome,
  waiting: { event?: string } = {},
): Statement[] {
  const now = nowIso();
  const finished = outcome.status === 'waiting' ? null : now;
  const result = outcome.result ? JSON.stringify(outcome.result) : null;
  return [
    rawAll<{ step_id: string }>(
      ctx.db,
      sql`INSERT INTO automation_step_runs (enrollment_id, step_id, workspace_id, type, status, seq, started_at, finished_at, reason, result)
        SELECT ${enrollmentId}, ${step.id}, ${ctx.ws.id}, ${step.type}, ${outcome.status},
          (SELECT coalesce(max(seq), 0) + 1 FROM automation_step_runs WHERE enrollment_id = ${enrollmentId}), ${now}, ${finished}, ${outcome.reason ?? null}, ${result}
        WHERE ${activeCondition(ctx, enrollmentId)}
        ON CONFLICT (enrollment_id, step_id) DO UPDATE SET status = excluded.status, finished_at = excluded.finished_at, reason = excluded.reason,
          result = excluded.result WHERE automation_step_runs.status = 'waiting' AND excluded.status != 'waiting'
        RETURNING step_id`,
    ),
    rawRun(
      ctx.db,
      sql`UPDATE automation_enrollments SET current_step_id = ${step.id}, updated_at = ${now},
          waiting_step_id = ${waiting.event ? step.id : null}, waiting_event_type = ${waiting.event ?? null}
        WHERE workspace_id = ${ctx.ws.id} AND id = ${enrollmentId} AND status = 'active'`,
    ),
  ];
}

/** Records the outcome alone (steps whose work is a read, or done elsewhere with its own once-only key). */
export async function recordStep(
  ctx: ServiceContext,
  enrollmentId: string,
  step: { id: string; type: string },
  outcome: StepOutcome,
  waiting?: { event?: string },
) {
  await ctx.db.batch(stepRecord(ctx, enrollmentId, step, outcome, waiting) as [Statement, ...Statement[]]);
}

/** A step's row as recorded: what a replayed step reads back instead of doing its work again. */
export const recordedStep = (ctx: ServiceContext, enrollmentId: string, stepId: string) =>
  rawAll<{ status: StepRunStatus; reason: string | null; result: string | null }>(
    ctx.db,
    sql`SELECT status, reason, result FROM automation_step_runs WHERE workspace_id = ${ctx.ws.id} AND enrollment_id = ${enrollmentId} AND step_id = ${stepId}`,
  );
