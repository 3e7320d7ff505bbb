import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Tags and contact groups share one record shape; names are unique per workspace case-insensitively (`name_key`). */
const labelColumns = {
  id: text('id').primaryKey(),
  workspace_id: text('workspace_id').notNull(),
  name: text('name').notNull(),
  name_key: text('name_key').notNull(),
  color: text('color'),
  description: text('description'),
  created_at: text('created_at').notNull(),
  updated_at: text('updated_at').notNull(),
};

export const tags = sqliteTable('tags', labelColumns, (t) => [
  uniqueIndex('tags_workspace_name_key').on(t.workspace_id, t.name_key),
  index('tags_workspace_created').on(t.workspace_id, t.created_at),
]);

export const groups = sqliteTable('contact_groups', labelColumns, (t) => [
  uniqueIndex('contact_groups_workspace_name_key').on(t.workspace_id, t.name_key),
  index('contact_groups_workspace_created').on(t.workspace_id, t.created_at),
]);
