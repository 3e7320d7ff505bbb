import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** What the sandbox providers accepted (docs/operator-api.md "Sandbox providers"): nothing leaves the machine. */
export const sandboxOutbox = sqliteTable(
  'sandbox_outbox',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    channel: text('channel', { enum: ['email', 'whatsapp'] }).notNull(),
    to: text('to').notNull(),
    from: text('from'),
    subject: text('subject'),
    html: text('html'),
    text: text('text'),
    headers: text('headers', { mode: 'json' }).$type<Record<string, string>>(),
    body: text('body', { mode: 'json' }).$type<Record<string, unknown>>(),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('sandbox_outbox_workspace_channel').on(t.workspaceId, t.channel, t.createdAt)],
);

export type OutboxRow = typeof sandboxOutbox.$inferSelect;
