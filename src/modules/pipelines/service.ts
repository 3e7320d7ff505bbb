import { and, asc, eq, sql } from 'drizzle-orm';
import { insertGroups } from '../../platform/d1/bound-parameters';
import type { ServiceContext } from '../../platform/context';
import type { Db } from '../../platform/d1/db';
import { nowIso } from '../../platform/d1/db';
import { runOperation } from '../../platform/d1/operation';
import { uuidv7 } from '../../platform/ids';
import { childRowsJson } from '../../platform/d1/child-rows';
import { prepared } from '../../platform/d1/prepared';
import { pipelines, stages } from './schema';

export type PipelineInput = {
  name: string;
  is_default?: boolean;
  description?: string | null;
  stages: { name: string; color?: string; win_probability?: number | null }[];
};

const STAGE_COLORS = ['#64748b', '#3b82f6', '#8b5cf6', '#f59e0b', '#10b981', '#ef4444'];

type PipelineRow = typeof pipelines.$inferSelect;
type StageRow = typeof stages.$inferSelect;

export function serializeStage(s: StageRow) {
  return {
    id: s.id,
    pipeline_id: s.pipelineId,
    name: s.name,
    color: s.color,
    position: s.position,
    win_probability: s.winProbability,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

export function serializePipeline(p: PipelineRow, pipelineStages: StageRow[]) {
  return {
    id: p.id,
    workspace_id: p.workspaceId,
    name: p.name,
    description: p.description,
    is_default: p.isDefault,
    position: p.position,
    created_by: p.createdBy,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    stages: pipelineStages.map(serializeStage),
  };
}

/**
 * Creates a pipeline with its ordered stages in one batch (one round trip).
 * Exactly one pipeline per workspace is the default: the first one always is,
 * and a new default clears the flag on the others in the same batch.
 */
export function createPipeline(ctx: ServiceContext, input: PipelineInput) {
  const { db } = ctx;
  const workspaceId = ctx.ws.id;
  const now = nowIso();
  const isDefault = input.is_default === true;
  const pipeline: PipelineRow = {
    id: uuidv7(),
    workspaceId,
    name: input.name,
    description: input.description ?? null,
    isDefault,
    position: 0,
    createdBy: null,
    createdAt: now,
    updatedAt: now,
  };
  const stageRows: StageRow[] = input.stages.map((s, i) => ({
    id: uuidv7(),
    workspaceId,
    pipelineId: pipeline.id,
    name: s.name,
    color: s.color ?? STAGE_COLORS[i % STAGE_COLORS.length],
    position: i,
    winProbability: s.win_probability ?? null,
    createdAt: now,
    updatedAt: now,
  }));
  return runOperation(ctx, {
    reads: {},
    decide: (_, batch) => {
      if (isDefault) {
        batch.write(
          db
            .update(pipelines)
            .set({ isDefault: false, updatedAt: now })
            .where(and(eq(pipelines.workspaceId, workspaceId), eq(pipelines.isDefault, true))),
        );
      }
      // Position and the first-pipeline default are decided inside the batch, so parallel creates stay consistent.
      batch.write(
        db.insert(pipelines).values({
          ...pipeline,
          position: sql`(SELECT coalesce(max(position) + 1, 0) FROM pipelines WHERE workspace_id = ${workspaceId})`,
          isDefault: isDefault || sql`NOT EXISTS (SELECT 1 FROM pipelines WHERE workspace_id = ${workspaceId} AND is_default = 1)`,
        }),
      );
      for (const group of insertGroups(stages, stageRows)) batch.write(db.insert(stages).values(group));
      return batch.answer(db.select().from(pipelines).where(eq(pipelines.id, pipeline.id)), ([saved]) => serializePipeline(saved, stageRows));
    },
  });
}

/** A pipeline's stages by position (through the stage index), one column of the pipeline's row. */
const stagesJson = childRowsJson(
  stages,
  sql`${stages.pipelineId} = ${pipelines.id} AND ${stages.workspaceId} = ${pipelines.workspaceId}`,
  sql`${stages.position}`,
);

const pipelinesWithStages = prepared((db) =>
  db
    .select({ pipeline: pipelines, stages: stagesJson.column })
    .from(pipelines)
    .where(eq(pipelines.workspaceId, sql.placeholder('ws')))
    .orderBy(asc(pipelines.position), asc(pipelines.createdAt)),
);

/** All pipelines of a workspace by position, each with its ordered stages (through the stage index): one statement. */
export async function listPipelines(db: Db, workspaceId: string) {
  const rows = await pipelinesWithStages.all(db, { ws: workspaceId });
  return rows.map((r) => serializePipeline(r.pipeline, stagesJson.parse(r.stages)));
}
