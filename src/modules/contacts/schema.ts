import { sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const contacts = sqliteTable('contacts', {
  id: text('id').primaryKey(),
  workspace_id: text('workspace_id').notNull(),
  phone: text('phone'),
  email: text('email'),
  name: text('name'),
});
