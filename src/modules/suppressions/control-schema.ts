import { sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The platform list: addresses no workspace may mail, whatever its shard. It lives in the
 * control plane (`DB`), which every shard's requests already reach, so a shard added later
 * enforces every entry from its first send. Written only by the operator.
 */
export const platformSuppressions = sqliteTable('global_email_suppressions', {
  email: text('email').primaryKey(),
  reason: text('reason').notNull(),
  created_at: text('created_at').notNull(),
});
