import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * A workspace's scoring configuration, on its shard so that a signal's own batch can test `enabled`.
 * `enabled` copies the workspace's `lead_scoring` flag (the switch, on the control plane), written by the
 * same calls. A rescoring pass walks the contacts by id: `rescore_generation` names the current pass and
 * `rescore_after` its cursor (null: no pass under way, '' : not started).
 */
export const scoringConfigs = sqliteTable('scoring_configs', {
  workspace_id: text('workspace_id').primaryKey(),
  enabled: integer('enabled', { mode: 'boolean' }).notNull(),
  rules: text('rules', { mode: 'json' }).$type<unknown[]>().notNull(),
  half_life_days: integer('half_life_days'),
  rescore_generation: integer('rescore_generation').notNull().default(0),
  rescore_after: text('rescore_after'),
  rescore_touched_at: text('rescore_touched_at'),
  updated_at: text('updated_at').notNull(),
});

/** One signal that happened to a contact; `pending` until a scoring pass has counted it. */
export const scoreSignals = sqliteTable(
  'score_signals',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    signal: text('signal').notNull(),
    occurred_at: text('occurred_at').notNull(),
    pending: integer('pending').notNull().default(1),
  },
  (t) => [
    index('score_signals_contact').on(t.workspace_id, t.contact_id, t.occurred_at),
    index('score_signals_pending').on(t.workspace_id, t.contact_id).where(sql`pending = 1`),
  ],
);

/** When the engine last scored a contact, and when its signals' decay next needs applying (null: nothing decays). */
export const contactScores = sqliteTable(
  'contact_scores',
  {
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    computed_at: text('computed_at').notNull(),
    decay_due_at: text('decay_due_at'),
  },
  (t) => [
    primaryKey({ columns: [t.workspace_id, t.contact_id] }),
    index('contact_scores_decay_due').on(t.decay_due_at).where(sql`decay_due_at IS NOT NULL`),
  ],
);
