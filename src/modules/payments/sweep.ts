import { and, asc, eq, isNotNull, lte, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { inJsonList } from '../../platform/d1/bound-parameters';
import { nowIso, runBatch, type Db } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { rawAll } from '../../platform/d1/raw-query';
import { wroteFor } from '../../platform/d1/floors';
import { controlDb } from '../../platform/d1/shards';
import type { SweepResult } from '../../platform/manifest';
import { workspaces } from '../../platform/control-schema';
import { localDate } from '../../platform/calendar';
import { payments } from './schema';
import { nextCycle } from './recurring-cycles';
import { settledHere } from '../../platform/d1/workspace-moves/settled';

/** Plans handled per shard and run: a backlog is worked off over several runs, each one bounded. */
export const RECURRING_SWEEP_CHUNK = 500;

/**
 * Records the due cycle of every auto-generating active plan (at most
 * `chunk` plans, oldest due first), advances `recurring_next_due_at` by the
 * interval counted from the purchase date (month ends clamped), and completes
 * plans whose end conditions allow no further cycle. A plan with several
 * overdue cycles records one per run and stays due.
 *
 * One batch: the entries' INSERT, set-based over a JSON list of the chunk (a
 * unique index on payment + cycle drops a cycle that is already recorded),
 * and one UPDATE per plan, which only advances a plan still at the cycle
 * count that was read. Running twice, or two overlapping
 * runs, therefore never records a cycle twice.
 */
export async function sweepRecurringPayments(env: Bindings, db: Db, opts: { chunk?: number; now?: string } = {}): Promise<SweepResult> {
  const now = opts.now ?? nowIso();
  const due = await db
    .select()
    .from(payments)
    .where(
      and(
        eq(payments.recurringAutoGenerate, true),
        eq(payments.arrangementStatus, 'active'),
        eq(payments.type, 'recurring'),
        isNotNull(payments.recurringNextDueAt),
        lte(payments.recurringNextDueAt, now),
        settledHere(payments.workspaceId),
      ),
    )
    .orderBy(asc(payments.recurringNextDueAt), asc(payments.id))
    .limit(opts.chunk ?? RECURRING_SWEEP_CHUNK);
  if (due.length === 0) return { recurring_cycles_recorded: 0, recurring_plans_completed: 0 };

  const workspaceIds = [...new Set(due.map((p) => p.workspaceId))];
  const zones = new Map(
    (
      await controlDb(env)
        .select({ id: workspaces.id, timezone: workspaces.timezone })
        .from(workspaces)
        .where(inJsonList(workspaces.id, workspaceIds))
    ).map((w) => [w.id, w.timezone]),
  );
  const cycles = due.map((p) => {
    const zone = zones.get(p.workspaceId) ?? 'UTC';
    const cycle = p.recurringCycles + 1;
    const dueAt = p.recurringNextDueAt!;
    const next = nextCycle({ ...p, recurringCycles: cycle }, zone);
    return {
      entry_id: uuidv7(),
      payment_id: p.id,
      cycle,
      due_at: dueAt,
      due_date: localDate(dueAt, zone),
      next_due_at: next?.dueAt ?? null,
      status: next ? 'active' : 'completed',
    };
  });
  const list = JSON.stringify(cycles);
  const field = (name: string) => sql.raw(`json_extract(j.value, '$.${name}')`);
  // The inserted rows are counted from what the insert returns: D1's `changes` also counts the rows its triggers write.
  const [inserted, ...updated] = (await runBatch(db, [
    rawAll<{ id: string }>(
      db,
      sql`INSERT INTO payment_entries (id, payment_id, workspace_id, contact_id, sequence, cycle, amount_cents, currency, status, due_date, paid_at,
            recognized_cents, recognized_at, refunded_cents, kind, created_at, updated_at)
          SELECT ${field('entry_id')}, p.id, p.workspace_id, p.contact_id,
            (SELECT coalesce(max(e.sequence), 0) + 1 FROM payment_entries e WHERE e.payment_id = p.id),
            ${field('cycle')}, p.total_cents, p.currency, 'completed', ${field('due_date')}, ${field('due_at')},
            p.total_cents, ${now}, 0, 'charge', ${now}, ${now}
          FROM json_each(${list}) AS j CROSS JOIN payments p ON p.id = ${field('payment_id')}
          WHERE p.arrangement_status = 'active' AND p.recurring_auto_generate = 1
          ON CONFLICT DO NOTHING
          RETURNING id`,
    ),
    // One update by primary key per plan, applied only while the plan is still at the cycle count that was read.
    ...cycles.map((c) =>
      db
        .update(payments)
        .set({ recurringCycles: c.cycle, recurringNextDueAt: c.next_due_at, arrangementStatus: c.status as 'active' | 'completed', updatedAt: now })
        .where(
          and(
            eq(payments.id, c.payment_id),
            eq(payments.recurringCycles, c.cycle - 1),
            eq(payments.arrangementStatus, 'active'),
            eq(payments.recurringAutoGenerate, true),
          ),
        ),
    ),
  ])) as [unknown[], ...{ meta: { changes: number } }[]];
  wroteFor(db, workspaceIds);
  return {
    recurring_cycles_recorded: inserted.length,
    recurring_plans_completed: cycles.filter((c, i) => c.status === 'completed' && updated[i].meta.changes > 0).length,
  };
}
