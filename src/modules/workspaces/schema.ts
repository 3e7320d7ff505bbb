import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// Workspace members live beside the workspace's other records, in its data database.
export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    role: text('role', { enum: ['admin', 'agent'] }).notNull(),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('users_workspace_email').on(t.workspaceId, t.email)],
);
