import { and, asc, isNull, lt, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { Db } from '../../platform/d1/db';
import { settledHere } from '../../platform/d1/workspace-moves/settled';
import { startRuns } from './runs';
import { automationEnrollments } from './schema';

/** How long an enrollment is left to the write that made it to start its instance, before the sweep does. */
export const START_GRACE_MS = 60_000;
const START_BATCH = 200;

/**
 * Starts the instances of a shard's enrollments that never started (the engine was unreachable when they
 * were written, or the writer crashed right after its commit). Creating an instance that exists is refused
 * by the engine, so a sweep meeting an enrollment whose start did succeed (it has not run its first step
 * yet) changes nothing.
 */
export async function startStalledEnrollments(env: Bindings, db: Db, now = Date.now()) {
  const cutoff = new Date(now - START_GRACE_MS).toISOString();
  const rows = await db
    .select({ id: automationEnrollments.id, workspaceId: automationEnrollments.workspace_id })
    .from(automationEnrollments)
    .where(
      and(
        isNull(automationEnrollments.started_at),
        // A literal, so the planner sees the partial index's own condition.
        sql`${automationEnrollments.status} = 'active'`,
        lt(automationEnrollments.enrolled_at, cutoff),
        settledHere(automationEnrollments.workspace_id),
      ),
    )
    .orderBy(asc(automationEnrollments.enrolled_at))
    .limit(START_BATCH);
  await startRuns(
    env,
    rows.map((r) => ({ workspace_id: r.workspaceId, enrollment_id: r.id })),
  );
  return { enrollments_started: rows.length };
}
