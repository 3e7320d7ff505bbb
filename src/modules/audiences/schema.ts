import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

export const AUDIENCE_KINDS = ['dynamic', 'static'] as const;
export type AudienceKind = (typeof AUDIENCE_KINDS)[number];

/** `dynamic`: a contact filter tree; `static`: a list of contact ids. Never returned through the API. */
export type AudienceDefinition = { filters: Record<string, unknown> } | { contact_ids: string[] };

export const audiences = sqliteTable(
  'audiences',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    name: text('name').notNull(),
    kind: text('kind', { enum: AUDIENCE_KINDS }).notNull(),
    definition: text('definition', { mode: 'json' }).$type<AudienceDefinition>().notNull(),
    /** Advisory size cache, refreshed whenever the audience is resolved. */
    last_count: integer('last_count'),
    last_counted_at: text('last_counted_at'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [index('audiences_workspace_created').on(t.workspace_id, t.created_at)],
);
