import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { prepared } from '../../platform/d1/prepared';
import { pipelineNameOf, selectStage as selectPipelineStage, stageNameOf } from '../pipelines';
import { selectActiveMember } from '../workspaces';
import { dealColumns } from './read';
import { deals } from './schema';

/** A stage of the workspace with its pipeline's name. */
export const selectStage = (ctx: ServiceContext, stageId: string) => selectPipelineStage(ctx.db, ctx.ws.id, stageId);

const dealWithStageRead = (key: typeof deals.id | typeof deals.externalReference) =>
  prepared((db) =>
    db
      // Batched reads come back keyed by column name, so the names need their own alias.
      .select({
        deal: dealColumns,
        stageName: stageNameOf(deals.stageId).as('current_stage_name'),
        pipelineName: pipelineNameOf(deals.pipelineId).as('pipeline_name'),
      })
      .from(deals)
      .where(and(eq(deals.workspaceId, sql.placeholder('ws')), eq(key, sql.placeholder('key'))))
      .limit(1),
  );
const dealWithStageReads = { id: dealWithStageRead(deals.id), externalReference: dealWithStageRead(deals.externalReference) };
export type DealWithStage = { deal: typeof deals.$inferSelect; stageName: string | null; pipelineName: string };

/** A deal, by id or by external reference, with the names of its current stage and pipeline (for event data); its result: the rows. */
export const selectDealWithStage = (ctx: ServiceContext, by: keyof typeof dealWithStageReads, value: string) =>
  dealWithStageReads[by].in(ctx.db, { ws: ctx.ws.id, key: value });

/** The same, read on its own. */
export const readDealWithStage = async (ctx: ServiceContext, id: string): Promise<DealWithStage | undefined> =>
  (await dealWithStageReads.id.all(ctx.db, { ws: ctx.ws.id, key: id }))[0];

/** Owners are active members of the workspace; both roles work deals. */
export const selectOwner = (ctx: ServiceContext, userId: string) => selectActiveMember(ctx.db, ctx.ws.id, userId);
