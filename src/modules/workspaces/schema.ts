import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

// Workspace members and the request log live beside the workspace's other records, in its data database.
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

export const requestLog = sqliteTable(
  'request_log',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    apiKeyId: text('api_key_id'),
    /** The answer's `X-Request-Id`; null on rows written before it was kept. */
    requestId: text('request_id'),
    method: text('method').notNull(),
    path: text('path').notNull(),
    status: integer('status').notNull(),
    durationMs: integer('duration_ms').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('request_log_workspace_id').on(t.workspaceId, t.id)],
);
