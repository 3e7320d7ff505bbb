import { and, asc, eq, or, sql, type SQLWrapper } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { prepared } from '../../platform/d1/prepared';
import { pipelines, stages } from './schema';

export type PipelineRow = typeof pipelines.$inferSelect;
export type StageRow = typeof stages.$inferSelect;
export type StageWithPipeline = { stage: StageRow; pipelineName: string };

const ws = sql.placeholder('ws');

// Batched reads come back keyed by column name, so joined names need their own alias.
const pipelineName = () => sql<string>`${pipelines.name}`.as('pipeline_name');

const stageRead = prepared((db) =>
  db
    .select({ stage: stages, pipelineName: pipelineName() })
    .from(stages)
    .innerJoin(pipelines, eq(pipelines.id, stages.pipelineId))
    .where(and(eq(stages.workspaceId, ws), eq(stages.id, sql.placeholder('id'))))
    .limit(1),
);

/** For a caller's batch: a stage of the workspace with its pipeline's name (`StageWithPipeline` rows). */
export const selectStage = (db: Db, workspaceId: string, stageId: string) => stageRead.in(db, { ws: workspaceId, id: stageId });

const pipelinesRead = prepared((db) => db.select().from(pipelines).where(eq(pipelines.workspaceId, ws)).orderBy(asc(pipelines.position)));

/** For a caller's batch: the workspace's pipelines in order (`PipelineRow` rows). */
export const selectPipelines = (db: Db, workspaceId: string) => pipelinesRead.in(db, { ws: workspaceId });

const defaultPipeline = sql`(SELECT id FROM ${pipelines} WHERE workspace_id = ${ws} ORDER BY is_default DESC, position LIMIT 1)`;
/** The given stage (first index: 1 when given), and the stages of the pipeline a record would enter without one (second index: 1 when a pipeline is given). */
const entryStagesRead = [false, true].map((byStage) =>
  [false, true].map((byPipeline) =>
    prepared((db) =>
      db
        .select()
        .from(stages)
        .where(
          and(
            eq(stages.workspaceId, ws),
            or(
              byStage ? eq(stages.id, sql.placeholder('stage')) : undefined,
              eq(stages.pipelineId, byPipeline ? sql.placeholder('pipeline') : defaultPipeline),
            ),
          ),
        )
        .orderBy(asc(stages.position)),
    ),
  ),
);

/** For a caller's batch: the given stage, and the stages of the given pipeline or else the default one, in order (`StageRow` rows). */
export const selectEntryStages = (db: Db, workspaceId: string, stageId: string | undefined, pipelineId: string | undefined) =>
  entryStagesRead[stageId ? 1 : 0][pipelineId ? 1 : 0].in(db, { ws: workspaceId, stage: stageId, pipeline: pipelineId });

/** SQL: the name of stage `stageId` (an expression, e.g. a column of the caller's table), NULL for none. */
export const stageNameOf = (stageId: SQLWrapper) => sql<string | null>`(SELECT s.name FROM ${stages} s WHERE s.id = ${stageId})`;

/** SQL: the name of pipeline `pipelineId` (pipelines are never deleted, so a stored id always names one). */
export const pipelineNameOf = (pipelineId: SQLWrapper) => sql<string>`(SELECT p.name FROM ${pipelines} p WHERE p.id = ${pipelineId})`;
