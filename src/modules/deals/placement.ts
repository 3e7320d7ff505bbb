import { and, eq, ne, sql } from 'drizzle-orm';
import { failedGuard as failedGuardOn, guarded, type Db, type Statement } from '../../platform/db';
import { deals } from './schema';

/**
 * Stage columns keep a dense order 0..n-1. Every statement below derives
 * positions from the rows as they are when the batch runs (never from an
 * earlier read), so concurrent moves and creates cannot leave gaps or ties.
 * Each one shifts a dense column by one around a slot, so the column stays
 * dense and only the deals after the slot are written (no ranking of the column).
 */

/** A new deal's column: everything moves down one, the new deal is inserted at 0. */
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
 * the gap in the column it leaves (the deals below it move up one), opens the
 * slot in the target (the others at `index` or below move down one), then
 * moves the deal; an index past the end lands at the bottom.
 */
export function placeDeal(db: Db, p: Placement): Statement[] {
  const currentStage = sql`(SELECT stage_id FROM deals WHERE id = ${p.dealId} AND workspace_id = ${p.workspaceId})`;
  const currentPosition = sql`(SELECT position FROM deals WHERE id = ${p.dealId} AND workspace_id = ${p.workspaceId})`;
  const others = sql`(SELECT count(*) FROM deals WHERE workspace_id = ${p.workspaceId} AND stage_id = ${p.toStageId} AND id <> ${p.dealId})`;
  return [
    db
      .update(deals)
      .set({ position: sql`${deals.position} - 1` })
      .where(and(eq(deals.workspaceId, p.workspaceId), sql`${deals.stageId} = ${currentStage}`, sql`${deals.position} > ${currentPosition}`)),
    db
      .update(deals)
      .set({ position: sql`${deals.position} + 1` })
      .where(and(eq(deals.workspaceId, p.workspaceId), eq(deals.stageId, p.toStageId), ne(deals.id, p.dealId), sql`${deals.position} >= ${p.index}`)),
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
