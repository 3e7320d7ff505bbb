import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const SEND_STATUSES = ['sending', 'sent', 'suppressed'] as const;
export type SendStatus = (typeof SEND_STATUSES)[number];

/**
 * One email handed to the send path. `sending` while the provider hand-off is
 * under way (a crash there leaves it for the recovering retry), then `sent` or
 * `suppressed`. The idempotency key is unique per workspace (null for internal
 * sends without one). `source` says who sent it: only `api` sends fire `email.*` events.
 */
export const emailSends = sqliteTable(
  'email_sends',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    idempotency_key: text('idempotency_key'),
    source: text('source').notNull(),
    status: text('status', { enum: SEND_STATUSES }).notNull(),
    to: text('to').notNull(),
    from: text('from'),
    sender_profile_id: text('sender_profile_id'),
    subject: text('subject').notNull(),
    provider: text('provider'),
    provider_message_id: text('provider_message_id'),
    track_opens: integer('track_opens', { mode: 'boolean' }).notNull(),
    track_clicks: integer('track_clicks', { mode: 'boolean' }).notNull(),
    metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown>>(),
    /** Counted against the monthly quota and the daily warming cap (released again when the provider refuses). */
    counted_month: text('counted_month'),
    counted_day: text('counted_day'),
    delivered_at: text('delivered_at'),
    bounced_at: text('bounced_at'),
    bounce_type: text('bounce_type'),
    complained_at: text('complained_at'),
    opened_at: text('opened_at'),
    machine_open: integer('machine_open', { mode: 'boolean' }),
    clicked_at: text('clicked_at'),
    clicked_url: text('clicked_url'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('email_sends_workspace_key').on(t.workspace_id, t.idempotency_key),
    // A person's sends, by the addresses they were reached at (their data export).
    index('email_sends_workspace_to').on(t.workspace_id, t.to),
    index('email_sends_provider_message').on(t.provider_message_id),
    // `GET /v1/emails` newest first, by send time or status: partial, so campaign and newsletter sends pay no index write.
    index('email_sends_api_created').on(t.workspace_id, t.created_at, t.id).where(sql`source = 'api'`),
    index('email_sends_api_status').on(t.workspace_id, t.status, t.created_at, t.id).where(sql`source = 'api'`),
  ],
);

/** Sends counted per workspace and calendar month (UTC): the monthly quota. */
export const emailQuotaUsage = sqliteTable(
  'email_quota_usage',
  { workspace_id: text('workspace_id').notNull(), month: text('month').notNull(), sends: integer('sends').notNull() },
  (t) => [primaryKey({ columns: [t.workspace_id, t.month] })],
);

/** Sends counted per workspace and UTC day: the domain-warming cap. */
export const emailWarmingUsage = sqliteTable(
  'email_warming_usage',
  { workspace_id: text('workspace_id').notNull(), day: text('day').notNull(), sends: integer('sends').notNull() },
  (t) => [primaryKey({ columns: [t.workspace_id, t.day] })],
);
