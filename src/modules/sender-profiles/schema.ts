import { sql } from 'drizzle-orm';
import { integer, sqliteTable, text, uniqueIndex, index } from 'drizzle-orm/sqlite-core';

/**
 * A From identity of a workspace, on a sending domain. Created by the operator
 * (the application); `domain_verified` stands for the domain's DNS check, whose
 * DKIM/DNS material this service never stores or returns.
 */
export const senderProfiles = sqliteTable(
  'sender_profiles',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    from_name: text('from_name').notNull(),
    /** `from_email` is composed from these two. */
    local_part: text('local_part').notNull(),
    domain: text('domain').notNull(),
    reply_to: text('reply_to'),
    provider: text('provider').notNull(),
    is_default: integer('is_default', { mode: 'boolean' }).notNull(),
    domain_verified: integer('domain_verified', { mode: 'boolean' }).notNull(),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    index('sender_profiles_workspace_created').on(t.workspace_id, t.created_at),
    uniqueIndex('sender_profiles_one_default').on(t.workspace_id).where(sql`is_default = 1`),
  ],
);
