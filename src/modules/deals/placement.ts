import { and, eq, ne, sql, type SQL } from 'drizzle-orm';
import { failedGuard as failedGuardOn, guarded, type Db, type Statement } from '../../platform/db';
import { deals } from './schema';

/**
 * Stage columns keep a dense order 0..n-1. Every statement below derives
 * positions from the rows as they are when the batch runs (never from an
 * earlier read), so concurrent moves and creates cannot leave gaps or ties.
 */

/** Renumbers a column densely, without `dealId`, leaving a free slot at `openAt`. */
function renumberColumn(db: Db, workspaceId: string, stage: SQL, dealId: string, openAt: number): Statement {
  const ranked = db.$with('ranked').as(
    db
      .select({ id: sql<string>`${deals.id}`.as('ranked_id'), r: sql<number>`row_number() OVER (ORDER BY ${deals.position}, ${deals.id}) - 1`.as('r') })
      .from(deals)
      .where(and(eq(deals.workspaceId, workspaceId), sql`${deals.stageId} = ${stage}`, ne(deals.id, dealId))),
  );
  return db
    .with(ranked)
    .update(deals)
    .set({ position: sql`CASE WHEN ${ranked.r} < ${openAt} THEN ${ranked.r} ELSE ${ranked.r} + 1 END` })
    .from(ranked)
    .where(eq(deals.id, ranked.id));
}

const NO_SLOT = 2_000_000_000;

/**
 * A new deal's column: everything moves down one, the new deal is inserted at 0.
 * A column is dense before (every position write is one of these statements),
 * so shifting each row by one keeps it dense, without ranking the column.
 */
export const openTopSlot = (db: Db, workspaceId: string, stageId: string, newDealId: string): Statement =>
  db
    .update(deals)
    .set({ position: sql`${deals.position} + 1` })
    .where(and(eq(deals.workspaceId, workspaceId), eq(deals.stageId, stageId), ne(deals.id, newDealId)));

export type Placement = {
  workspaceId: string;
  dealId: string;
  /** The stage the deal was read in; the move aborts the batch if it changed meanwhile. */
  fromStageId: string;
  toStageId: string;
  toPipelineId: string;
  index: number;
  /** Set when the stage changes. */
  stageEnteredAt: string | null;
  updatedAt: string;
};

/**
 * Moves a deal to `index` of a column (its own column for a reorder). Closes
 * the gap in the column it leaves, opens the slot in the target, then moves
 * the deal; an index past the end lands at the bottom.
 */
export function placeDeal(db: Db, p: Placement): Statement[] {
  const currentStage = sql`(SELECT stage_id FROM deals WHERE id = ${p.dealId} AND workspace_id = ${p.workspaceId})`;
  const others = sql`(SELECT count(*) FROM deals WHERE workspace_id = ${p.workspaceId} AND stage_id = ${p.toStageId} AND id <> ${p.dealId})`;
  return [
    renumberColumn(db, p.workspaceId, currentStage, p.dealId, NO_SLOT),
    renumberColumn(db, p.workspaceId, sql`${p.toStageId}`, p.dealId, p.index),
    db
      .update(deals)
      .set({
        stageId: guarded(sql`${deals.stageId} = ${p.fromStageId}`, sql`${p.toStageId}`),
        pipelineId: p.toPipelineId,
        position: sql`min(${p.index}, ${others})`,
        ...(p.stageEnteredAt ? { stageEnteredAt: p.stageEnteredAt } : {}),
        updatedAt: p.updatedAt,
      })
      .where(and(eq(deals.workspaceId, p.workspaceId), eq(deals.id, p.dealId))),
  ];
}

/** Whether a batch failed on the guard of a deals column. */
export const failedGuard = (err: unknown, column: string) => failedGuardOn(err, `deals.${column}`);
