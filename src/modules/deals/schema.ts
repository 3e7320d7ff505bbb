import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const DEAL_STATUSES = ['open', 'won', 'lost'] as const;
export type DealStatus = (typeof DEAL_STATUSES)[number];

export const deals = sqliteTable(
  'deals',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    pipelineId: text('pipeline_id').notNull(),
    stageId: text('stage_id').notNull(),
    contactId: text('contact_id').notNull(),
    productId: text('product_id'),
    ownerUserId: text('owner_user_id'),
    title: text('title').notNull(),
    amountCents: integer('amount_cents').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: DEAL_STATUSES }).notNull(),
    lostReason: text('lost_reason'),
    expectedCloseAt: text('expected_close_at'),
    closedAt: text('closed_at'),
    stageEnteredAt: text('stage_entered_at').notNull(),
    /** The deal's slot in its stage column: consecutive integers from any start, top first (answers count from 0; see placement.ts). */
    position: integer('position').notNull(),
    note: text('note'),
    externalReference: text('external_reference'),
    source: text('source').notNull(),
    createdBy: text('created_by'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('deals_workspace_external_reference').on(t.workspaceId, t.externalReference),
    index('deals_workspace_stage_position').on(t.workspaceId, t.stageId, t.position),
    index('deals_workspace_created').on(t.workspaceId, t.createdAt),
    index('deals_workspace_contact').on(t.workspaceId, t.contactId),
  ],
);

export type DealRow = typeof deals.$inferSelect;

/** One row per stage change (not for reorders inside a column). */
export const dealStageHistory = sqliteTable(
  'deal_stage_history',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    dealId: text('deal_id').notNull(),
    fromPipelineId: text('from_pipeline_id'),
    fromStageId: text('from_stage_id'),
    toPipelineId: text('to_pipeline_id').notNull(),
    toStageId: text('to_stage_id').notNull(),
    changedBy: text('changed_by'),
    source: text('source').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('deal_stage_history_deal').on(t.workspaceId, t.dealId, t.createdAt)],
);
