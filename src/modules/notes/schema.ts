import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const contactNotes = sqliteTable(
  'contact_notes',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    author_user_id: text('author_user_id'),
    source: text('source').notNull(),
    body: text('body').notNull(),
    pinned_at: text('pinned_at'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [index('contact_notes_contact').on(t.workspace_id, t.contact_id, t.created_at)],
);
