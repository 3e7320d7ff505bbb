import { sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** Email addresses blocked at send time; the consent read composes it into `email.suppressed`. */
export const emailSuppressions = sqliteTable(
  'email_suppressions',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    email: text('email').notNull(),
    reason: text('reason'),
    created_at: text('created_at').notNull(),
  },
  (t) => [uniqueIndex('email_suppressions_workspace_email').on(t.workspace_id, t.email)],
);
