import { and, eq, sql, type SQLWrapper } from 'drizzle-orm';
import { guarded, type Db, type Statement } from '../../platform/d1/db';
import { prepared } from '../../platform/d1/prepared';
import { deals } from './schema';

/**
 * A stage column's order is kept in `deals.position` as a run of consecutive
 * integers that may start anywhere (a "slot"); a deal's `position` in answers is
 * its slot minus the column's first slot (./read.ts), so it counts from 0 at the
 * top with no gaps. A new deal takes the slot above the top one, and a move
 * shifts only the shorter side of each column by one, so a write touches
 * min(index, n - index) other deals of a column, none for the top or the bottom.
 *
 * Every statement below derives slots from the rows as they are when the batch
 * runs (never from an earlier read), so concurrent moves and creates cannot leave
 * gaps or ties. The column ends are read through `deals_workspace_stage_position`
 * (one index probe each); their sub-selects name no outer column, so SQLite
 * evaluates each once, before the statement changes a row.
 */

const [ws, dealId, toStage, index] = ['ws', 'deal', 'toStage', 'index'].map((name) => sql.placeholder(name));

/** The first (`ASC`) or last (`DESC`) slot of a column, the deal itself left out. */
const end = (stage: SQLWrapper, direction: 'ASC' | 'DESC') =>
  sql`(SELECT position FROM deals WHERE workspace_id = ${ws} AND stage_id = ${stage} AND id <> ${dealId} ORDER BY position ${sql.raw(direction)} LIMIT 1)`;

const topSlot = prepared((db) =>
  db
    .update(deals)
    .set({ position: sql`coalesce(${end(toStage, 'ASC')}, 1) - 1` })
    .where(and(eq(deals.workspaceId, ws), eq(deals.id, dealId))),
);

/** A new deal (inserted at any slot) moves above the top of its column. */
export const openTopSlot = (db: Db, workspaceId: string, stageId: string, newDealId: string): Statement =>
  topSlot.in(db, { ws: workspaceId, toStage: stageId, deal: newDealId });

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

// The column the deal leaves: its slot and the column's ends, the deal included.
const own = (column: string) => sql`(SELECT ${sql.raw(column)} FROM deals WHERE id = ${dealId} AND workspace_id = ${ws})`;
const [slot, sourceStage] = [own('position'), own('stage_id')];
const sourceEnd = (direction: 'ASC' | 'DESC') =>
  sql`(SELECT position FROM deals WHERE workspace_id = ${ws} AND stage_id = ${sourceStage} ORDER BY position ${sql.raw(direction)} LIMIT 1)`;
/** Whether fewer (or as many) deals sit above the deal than below it. */
const aboveIsShorter = sql`${slot} - ${sourceEnd('ASC')} <= ${sourceEnd('DESC')} - ${slot}`;

/** Closes the deal's place in its column: the shorter side moves one slot towards it. */
const closeGap = prepared((db) =>
  db
    .update(deals)
    .set({ position: sql`${deals.position} + CASE WHEN ${aboveIsShorter} THEN 1 ELSE -1 END` })
    .where(
      and(
        eq(deals.workspaceId, ws),
        sql`${deals.stageId} = ${sourceStage}`,
        sql`${deals.id} <> ${dealId}`,
        sql`CASE WHEN ${aboveIsShorter} THEN ${deals.position} < ${slot} ELSE ${deals.position} > ${slot} END`,
      ),
    ),
);

// The target column without the deal: its first slot, its length and where the deal goes in it.
const base = end(toStage, 'ASC');
const length = sql`(${end(toStage, 'DESC')} - ${base} + 1)`;
const slotIndex = sql`min(${index}, ${length})`;
const raiseAbove = sql`${slotIndex} < ${length} - ${slotIndex}`;

/** Opens a slot at `index` of the target column (not at its top or bottom): the shorter side moves one slot away. */
const openSlot = prepared((db) =>
  db
    .update(deals)
    .set({ position: sql`${deals.position} + CASE WHEN ${raiseAbove} THEN -1 ELSE 1 END` })
    .where(
      and(
        eq(deals.workspaceId, ws),
        eq(deals.stageId, toStage),
        sql`${deals.id} <> ${dealId}`,
        sql`${slotIndex} > 0 AND ${slotIndex} < ${length}`,
        sql`CASE WHEN ${raiseAbove} THEN ${deals.position} < ${base} + ${slotIndex} ELSE ${deals.position} >= ${base} + ${slotIndex} END`,
      ),
    ),
);

/**
 * The free slot once the target column has made room: above its top for index
 * 0, below its bottom when the index reaches past the others (no slot was
 * opened: they still span exactly their count), else the one opened inside.
 */
const freeSlot = sql`CASE WHEN ${base} IS NULL THEN 0 WHEN ${index} = 0 THEN ${base} - 1
  WHEN ${index} >= ${length} THEN ${end(toStage, 'DESC')} + 1 ELSE ${base} + ${index} END`;

const moveInto = prepared((db) =>
  db
    .update(deals)
    .set({
      stageId: guarded(sql`${deals.stageId} = ${sql.placeholder('fromStage')}`, sql`${toStage}`),
      pipelineId: sql`${sql.placeholder('toPipeline')}`,
      position: freeSlot,
      // Kept unless the stage changes.
      stageEnteredAt: sql`coalesce(${sql.placeholder('enteredAt')}, ${deals.stageEnteredAt})`,
      updatedAt: sql`${sql.placeholder('at')}`,
    })
    .where(and(eq(deals.workspaceId, ws), eq(deals.id, dealId))),
);

/**
 * Moves a deal to `index` of a column (its own column for a reorder): closes
 * its place in the column it leaves, opens one at `index` in the target (an
 * index past the end lands at the bottom), then moves the deal into it.
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
