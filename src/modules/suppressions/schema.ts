import { sqliteTable, text, uniqueIndex, index } from 'drizzle-orm/sqlite-core';

export const SUPPRESSION_REASONS = ['unsubscribe', 'bounce', 'complaint', 'manual'] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];

/** Email addresses blocked at send time; the consent read composes it into `email.suppressed`. */
export const emailSuppressions = sqliteTable(
  'email_suppressions',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    email: text('email').notNull(),
    reason: text('reason', { enum: SUPPRESSION_REASONS }),
    /** Who added it: `api`, `provider` (a hard bounce or complaint the provider reported), ... */
    source: text('source').notNull().default('api'),
    note: text('note'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('email_suppressions_workspace_email').on(t.workspace_id, t.email),
    index('email_suppressions_workspace_created').on(t.workspace_id, t.created_at),
  ],
);

/**
 * The platform list as earlier releases kept it, a copy in every data database. The list
 * now lives in the control plane (./control-schema.ts); the shard's own checks still honour
 * the rows left here until the `global-suppressions` sweep has moved them there (./sweep.ts).
 */
export const globalEmailSuppressions = sqliteTable('global_email_suppressions', {
  email: text('email').primaryKey(),
  reason: text('reason').notNull(),
  created_at: text('created_at').notNull(),
});
