import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const formSubmissions = sqliteTable(
  'form_submissions',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    form_id: text('form_id').notNull(),
    form_name: text('form_name').notNull(),
    origin: text('origin').notNull(),
    fields: text('fields', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    contact_id: text('contact_id'),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    index('form_submissions_form').on(t.workspace_id, t.form_id, t.created_at),
    index('form_submissions_contact').on(t.workspace_id, t.contact_id),
  ],
);
