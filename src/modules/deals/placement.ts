import { and, eq, ne, sql } from 'drizzle-orm';
import { failedGuard as failedGuardOn, guarded, type Db, type Statement } from '../../platform/db';
import { prepared } from '../../platform/prepared';
import { deals } from './schema';

/**
 * Stage columns keep a dense order 0..n-1. Every statement below derives
 * positions from the rows as they are when the batch runs (never from an
 * earlier read), so concurrent moves and creates cannot leave gaps or ties.
 * Each one shifts a dense column by one around a slot, so the column stays
 * dense and only the deals after the slot are written (no ranking of the column).
 */

const topSlot = prepared((db) =>
  db
    .update(deals)
    .set({ position: sql`${deals.position} + 1` })
    .where(and(eq(deals.workspaceId, sql.placeholder('ws')), eq(deals.stageId, sql.placeholder('stage')), ne(deals.id, sql.placeholder('deal')))),
);

/** A new deal's column: everything moves down one, the new deal is inserted at 0. */
export const openTopSlot = (db: Db, workspaceId: string, stageId: string, newDealId: string): Statement =>
  topSlot.in(db, { ws: workspaceId, stage: stageId, deal: newDealId });

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

const [ws, dealId, toStage, index] = ['ws', 'deal', 'toStage', 'index'].map((name) => sql.placeholder(name));
const currentStage = sql`(SELECT stage_id FROM deals WHERE id = ${dealId} AND workspace_id = ${ws})`;
const currentPosition = sql`(SELECT position FROM deals WHERE id = ${dealId} AND workspace_id = ${ws})`;
const others = sql`(SELECT count(*) FROM deals WHERE workspace_id = ${ws} AND stage_id = ${toStage} AND id <> ${dealId})`;

const closeGap = prepared((db) =>
  db
    .update(deals)
    .set({ position: sql`${deals.position} - 1` })
    .where(and(eq(deals.workspaceId, ws), sql`${deals.stageId} = ${currentStage}`, sql`${deals.position} > ${currentPosition}`)),
);
const openSlot = prepared((db) =>
  db
    .update(deals)
    .set({ position: sql`${deals.position} + 1` })
    .where(and(eq(deals.workspaceId, ws), eq(deals.stageId, toStage), ne(deals.id, dealId), sql`${deals.position} >= ${index}`)),
);
const moveInto = prepared((db) =>
  db
    .update(deals)
    .set({
      stageId: guarded(sql`${deals.stageId} = ${sql.placeholder('fromStage')}`, sql`${toStage}`) as unknown as string,
      pipelineId: sql`${sql.placeholder('toPipeline')}`,
      position: sql`min(${index}, ${others})`,
      // Kept unless the stage changes.
      stageEnteredAt: sql`coalesce(${sql.placeholder('enteredAt')}, ${deals.stageEnteredAt})`,
      updatedAt: sql`${sql.placeholder('at')}`,
    })
    .where(and(eq(deals.workspaceId, ws), eq(deals.id, dealId))),
);

/**
 * Moves a deal to `index` of a column (its own column for a reorder). Closes
 * the gap in the column it leaves (the deals below it move up one), opens the
 * slot in the target (the others at `index` or below move down one), then
 * moves the deal; an index past the end lands at the bottom.
 */
export function placeDeal(db: Db, p: Placement): Statement[] {
  const values = {
    ws: p.workspaceId,
    deal: p.dealId,
    toStage: p.toStageId,
    index: p.index,
    fromStage: p.fromStageId,
    toPipeline: p.toPipelineId,
    enteredAt: p.stageEnteredAt,
    at: p.updatedAt,
  };
  return [closeGap.in(db, values), openSlot.in(db, values), moveInto.in(db, values)];
}

/** Whether a batch failed on the guard of a deals column. */
export const failedGuard = (err: unknown, column: string) => failedGuardOn(err, `deals.${column}`);
