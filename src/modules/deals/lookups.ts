import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { prepared } from '../../platform/d1/prepared';
import { pipelines, stages } from '../pipelines/schema';
import { users } from '../workspaces/schema';
import { dealColumns } from './read';
import { deals } from './schema';

// Batched reads come back keyed by column name, so joined names need their own alias.
const pipelineName = () => sql<string>`${pipelines.name}`.as('pipeline_name');

const stageRead = prepared((db) =>
  db
    .select({ stage: stages, pipelineName: pipelineName() })
    .from(stages)
    .innerJoin(pipelines, eq(pipelines.id, stages.pipelineId))
    .where(and(eq(stages.workspaceId, sql.placeholder('ws')), eq(stages.id, sql.placeholder('id'))))
    .limit(1),
);

/** A stage of the workspace with its pipeline's name. */
export const selectStage = (ctx: ServiceContext, stageId: string) => stageRead.in(ctx.db, { ws: ctx.ws.id, id: stageId });

const dealWithStageRead = (key: typeof deals.id | typeof deals.externalReference) =>
  prepared((db) =>
    db
      .select({ deal: dealColumns, stageName: sql<string | null>`${stages.name}`.as('current_stage_name'), pipelineName: pipelineName() })
      .from(deals)
      .leftJoin(stages, eq(stages.id, deals.stageId))
      .leftJoin(pipelines, eq(pipelines.id, deals.pipelineId))
      .where(and(eq(deals.workspaceId, sql.placeholder('ws')), eq(key, sql.placeholder('key'))))
      .limit(1),
  );
const dealWithStageReads = { id: dealWithStageRead(deals.id), externalReference: dealWithStageRead(deals.externalReference) };
export type StageWithPipeline = { stage: typeof stages.$inferSelect; pipelineName: string };
export type DealWithStage = { deal: typeof deals.$inferSelect; stageName: string | null; pipelineName: string };

/** A deal, by id or by external reference, with the names of its current stage and pipeline (for event data); its result: the rows. */
export const selectDealWithStage = (ctx: ServiceContext, by: keyof typeof dealWithStageReads, value: string) =>
  dealWithStageReads[by].in(ctx.db, { ws: ctx.ws.id, key: value });

/** The same, read on its own. */
export const readDealWithStage = async (ctx: ServiceContext, id: string): Promise<DealWithStage | undefined> =>
  (await dealWithStageReads.id.all(ctx.db, { ws: ctx.ws.id, key: id }))[0];

const ownerRead = prepared((db) =>
  db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.workspaceId, sql.placeholder('ws')), eq(users.id, sql.placeholder('id')), eq(users.active, true), sql`${users.role} IN ('agent', 'admin')`))
    .limit(1),
);

/** Owners are active members of the workspace; both roles work deals. */
export const selectOwner = (ctx: ServiceContext, userId: string) => ownerRead.in(ctx.db, { ws: ctx.ws.id, id: userId });
