import { sql } from 'drizzle-orm';
import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/**
 * The control plane: workspaces (with the shard each lives on) and API keys.
 * These tables live in the `DB` database; everything else lives in the
 * workspace's data database (see ./schema.ts and src/platform/d1/shards.ts).
 */

export type WorkspaceCaps = { contacts?: number; deals?: number; orders?: number; newsletters?: number };
export type EmailSettings = { monthly_quota?: number; daily_warming_cap?: number; paused?: boolean };
export type RateLimits = { per_key_per_minute?: number; emails_per_minute?: number; bookings_per_hour?: number };

export const workspaces = sqliteTable(
  'workspaces',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    timezone: text('timezone').notNull().default('UTC'),
    defaultCountry: text('default_country').notNull().default('US'),
    currency: text('currency').notNull().default('USD'),
    apiAccess: integer('api_access', { mode: 'boolean' }).notNull().default(true),
    features: text('features', { mode: 'json' }).$type<string[]>().notNull(),
    caps: text('caps', { mode: 'json' }).$type<WorkspaceCaps>().notNull(),
    leadScoring: integer('lead_scoring', { mode: 'boolean' }).notNull().default(false),
    email: text('email', { mode: 'json' }).$type<EmailSettings>().notNull(),
    rateLimits: text('rate_limits', { mode: 'json' }).$type<RateLimits>().notNull(),
    whatsappPhoneNumberId: text('whatsapp_phone_number_id').notNull(),
    vatMode: text('vat_mode', { enum: ['inclusive', 'exclusive'] })
      .notNull()
      .default('exclusive'),
    vatRate: real('vat_rate').notNull().default(0),
    /** The data database (a D1 binding name) holding everything of this workspace; fixed at creation. */
    shard: text('shard').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('workspaces_shard').on(t.shard), uniqueIndex('workspaces_whatsapp_phone_number_id').on(t.whatsappPhoneNumberId)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id')
      .notNull()
      .references(() => workspaces.id),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    createdAt: text('created_at').notNull(),
    revokedAt: text('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_key_hash').on(t.keyHash), index('api_keys_workspace').on(t.workspaceId)],
);

export const SHARD_STATES = ['open', 'closed'] as const;

/**
 * What the operator set on a data database, and its size as D1 last reported it (each shard's
 * minute sweep records it). A bound shard without a row is open and not yet measured.
 */
export const shards = sqliteTable('shards', {
  binding: text('binding').primaryKey(),
  state: text('state', { enum: SHARD_STATES }).notNull().default('open'),
  sizeBytes: integer('size_bytes'),
  /** The newest data migration applied to it, as its last sweep read it. */
  schema: text('schema'),
  measuredAt: text('measured_at'),
  updatedAt: text('updated_at').notNull(),
});

export const MOVE_STATUSES = ['copying', 'switching', 'done', 'failed'] as const;
/** Where a move's machinery is: its status as the operator reads it, and the clean-up that follows `done` or `failed`. */
export const MOVE_PHASES = ['copying', 'catching_up', 'switching', 'draining', 'clearing', 'unwinding', 'finished'] as const;

/**
 * Workspace moves between shards (src/platform/d1/workspace-moves/): the state machine lives here, so a
 * crash anywhere resumes from the last recorded step. One unfinished move per workspace is held
 * by a unique index, so two parallel starts give one move.
 */
export const moves = sqliteTable(
  'moves',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    fromShard: text('from_shard').notNull(),
    toShard: text('to_shard').notNull(),
    status: text('status', { enum: MOVE_STATUSES }).notNull(),
    phase: text('phase', { enum: MOVE_PHASES }).notNull(),
    /** The copy's position: the table being copied and the last rowid written from it. */
    cursorTable: text('cursor_table'),
    cursorRowid: integer('cursor_rowid').notNull().default(0),
    copiedRows: integer('copied_rows').notNull().default(0),
    /** Catch-up passes over the change log so far (the switch comes after a few at most). */
    rounds: integer('rounds').notNull().default(0),
    /** Failed steps in a row; past a few the move fails. */
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    /** One step runs at a time: a step holds the move until then. */
    leaseUntil: text('lease_until'),
    /** The old copy is cleared from this time on (every stale route has caught up by then). */
    clearAfter: text('clear_after'),
    startedAt: text('started_at').notNull(),
    finishedAt: text('finished_at'),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('moves_one_running').on(t.workspaceId).where(sql`phase <> 'finished'`),
    index('moves_workspace_started').on(t.workspaceId, t.startedAt),
    index('moves_unfinished').on(t.phase, t.updatedAt),
  ],
);
