import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const EXPORT_STATUSES = ['queued', 'processing', 'completed', 'failed', 'expired'] as const;

/**
 * A CSV export of the contacts a filter selects: the queue writes it as R2 parts (`parts` of them,
 * each a page of rows; the download streams them in order), walking the contacts by creation time
 * and id after `cursor`. Each page's part is written before the row advances, guarded on the part
 * count it started from, so a replayed page rewrites the same part and counts nothing twice.
 */
export const contactExports = sqliteTable(
  'contact_exports',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    status: text('status', { enum: EXPORT_STATUSES }).notNull(),
    filter: text('filter', { mode: 'json' }).$type<Record<string, unknown> | null>(),
    columns: text('columns', { mode: 'json' }).$type<string[]>(),
    cursor: text('cursor', { mode: 'json' }).$type<{ created_at: string; id: string } | null>(),
    parts: integer('parts').notNull(),
    row_count: integer('row_count').notNull(),
    failure: text('failure'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
    completed_at: text('completed_at'),
    expires_at: text('expires_at'),
  },
  (t) => [
    index('contact_exports_workspace_created').on(t.workspace_id, t.created_at, t.id),
    index('contact_exports_expiry').on(t.status, t.expires_at),
  ],
);
