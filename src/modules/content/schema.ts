import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * Snippets: reusable content created in the application (operator API),
 * referenced from content by name (case-insensitive) or id through
 * `::snippet[...]` and `snippet` blocks.
 */
export const snippets = sqliteTable(
  'snippets',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    /** Lower-cased name: one snippet per name per workspace. */
    nameKey: text('name_key').notNull(),
    markdown: text('markdown'),
    html: text('html'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('snippets_workspace_name').on(t.workspaceId, t.nameKey), index('snippets_workspace_created').on(t.workspaceId, t.createdAt)],
);
