import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const pipelines = sqliteTable(
  'pipelines',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    isDefault: integer('is_default', { mode: 'boolean' }).notNull().default(false),
    position: integer('position').notNull(),
    createdBy: text('created_by'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('pipelines_workspace_position').on(t.workspaceId, t.position)],
);

export const stages = sqliteTable(
  'stages',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    pipelineId: text('pipeline_id')
      .notNull()
      .references(() => pipelines.id),
    name: text('name').notNull(),
    color: text('color').notNull(),
    position: integer('position').notNull(),
    winProbability: integer('win_probability'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('stages_pipeline_position').on(t.pipelineId, t.position), uniqueIndex('stages_workspace_id').on(t.workspaceId, t.id)],
);
