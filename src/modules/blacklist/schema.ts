import { sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const phoneBlacklist = sqliteTable(
  'phone_blacklist',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    phone: text('phone').notNull(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('phone_blacklist_workspace_phone').on(t.workspaceId, t.phone)],
);
