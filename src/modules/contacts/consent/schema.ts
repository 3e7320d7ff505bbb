import { index, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/** The consent-evidence ledger: one row per decision, re-assertion or complaint, never updated. */
export const consentLedger = sqliteTable(
  'consent_ledger',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    channel: text('channel', { enum: ['whatsapp', 'email'] }).notNull(),
    action: text('action').notNull(),
    state: text('state').notNull(),
    previous_state: text('previous_state'),
    source: text('source').notNull(),
    basis: text('basis'),
    evidence: text('evidence', { mode: 'json' }).$type<Record<string, unknown>>(),
    created_at: text('created_at').notNull(),
  },
  (t) => [index('consent_ledger_contact').on(t.workspace_id, t.contact_id, t.created_at)],
);
