import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const IMPORT_STATUSES = ['queued', 'processing', 'completed', 'failed'] as const;

/**
 * A CSV import: the file waits in R2 (`file_key`) while the queue works through it in chunks of rows
 * (`chunk_offsets`: the byte offset where each chunk's first row starts, then the file's end).
 * `processed_rows` is the cursor: each chunk's writes and its advance commit in one batch, guarded on
 * the cursor it started from, so a replayed chunk writes nothing.
 */
export const contactImports = sqliteTable(
  'contact_imports',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    status: text('status', { enum: IMPORT_STATUSES }).notNull(),
    file_key: text('file_key'),
    delimiter: text('delimiter').notNull(),
    columns: text('columns', { mode: 'json' }).$type<string[]>().notNull(),
    chunk_offsets: text('chunk_offsets', { mode: 'json' }).$type<number[]>().notNull(),
    total_rows: integer('total_rows').notNull(),
    processed_rows: integer('processed_rows').notNull(),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
    failed: integer('failed').notNull(),
    errors: text('errors', { mode: 'json' }).$type<{ row: number; message: string }[]>().notNull(),
    failure: text('failure'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
    completed_at: text('completed_at'),
  },
  (t) => [
    index('contact_imports_workspace_created').on(t.workspace_id, t.created_at, t.id),
    index('contact_imports_status').on(t.status, t.updated_at),
  ],
);
