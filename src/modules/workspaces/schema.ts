import { index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export type WorkspaceCaps = { contacts?: number; deals?: number; orders?: number; newsletters?: number };
export type EmailSettings = { monthly_quota?: number; daily_warming_cap?: number; paused?: boolean };
export type RateLimits = { per_key_per_minute?: number; emails_per_minute?: number };

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
    vatMode: text('vat_mode', { enum: ['inclusive', 'exclusive'] }).notNull().default('exclusive'),
    vatRate: real('vat_rate').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('workspaces_whatsapp_phone_number_id').on(t.whatsappPhoneNumberId)],
);

export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    createdAt: text('created_at').notNull(),
    revokedAt: text('revoked_at'),
  },
  (t) => [uniqueIndex('api_keys_key_hash').on(t.keyHash), index('api_keys_workspace').on(t.workspaceId)],
);

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull().references(() => workspaces.id),
    name: text('name').notNull(),
    email: text('email').notNull(),
    role: text('role', { enum: ['admin', 'agent'] }).notNull(),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('users_workspace_email').on(t.workspaceId, t.email)],
);

export const requestLog = sqliteTable(
  'request_log',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    apiKeyId: text('api_key_id'),
    method: text('method').notNull(),
    path: text('path').notNull(),
    status: integer('status').notNull(),
    durationMs: integer('duration_ms').notNull(),
    ip: text('ip'),
    userAgent: text('user_agent'),
    createdAt: text('created_at').notNull(),
  },
  (t) => [index('request_log_workspace_id').on(t.workspaceId, t.id)],
);
