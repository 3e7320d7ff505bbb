import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { codedError, notFound } from '../../platform/errors';
import { pipelines, stages } from '../pipelines/schema';
import { users } from '../workspaces/schema';
import { deals } from './schema';

export const dealNotFound = () => notFound('Deal not found');
export const stageNotFound = () => notFound('Stage not found');

// Batched reads come back keyed by column name, so joined names need their own alias.
const pipelineName = () => sql<string>`${pipelines.name}`.as('pipeline_name');

/** A stage of the workspace with its pipeline's name. */
export const selectStage = (ctx: ServiceContext, stageId: string) =>
  ctx.db
    .select({ stage: stages, pipelineName: pipelineName() })
    .from(stages)
    .innerJoin(pipelines, eq(pipelines.id, stages.pipelineId))
    .where(and(eq(stages.workspaceId, ctx.ws.id), eq(stages.id, stageId)))
    .limit(1);

/** A deal with the names of its current stage and pipeline (for event data). */
export const selectDealWithStage = (ctx: ServiceContext, where: SQL) =>
  ctx.db
    .select({ deal: deals, stageName: sql<string | null>`${stages.name}`.as('current_stage_name'), pipelineName: pipelineName() })
    .from(deals)
    .leftJoin(stages, eq(stages.id, deals.stageId))
    .leftJoin(pipelines, eq(pipelines.id, deals.pipelineId))
    .where(and(eq(deals.workspaceId, ctx.ws.id), where))
    .limit(1);

/** Owners are active members of the workspace; both roles work deals. */
export const selectOwner = (ctx: ServiceContext, userId: string) =>
  ctx.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.workspaceId, ctx.ws.id), eq(users.id, userId), eq(users.active, true), sql`${users.role} IN ('agent', 'admin')`))
    .limit(1);

export const invalidOwner = () => codedError(400, 'INVALID_DEAL_OWNER', 'owner_user_id must be an active agent of this workspace');
