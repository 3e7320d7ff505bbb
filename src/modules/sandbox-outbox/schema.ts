import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const OUTBOX_CHANNELS = ['email', 'whatsapp'] as const;
export type OutboxChannel = (typeof OUTBOX_CHANNELS)[number];

/** A file an email carries, as the provider interface hands it over. */
export type OutboxAttachment = { filename: string; content_type: string; content_base64: string };

/**
 * What the sandbox providers accepted (the operator outbox route lists it); nothing leaves the machine.
 * Like a real provider, a repeated email idempotency key is accepted once; WhatsApp sends carry no key.
 */
export const sandboxOutbox = sqliteTable(
  'sandbox_outbox',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    channel: text('channel', { enum: OUTBOX_CHANNELS }).notNull(),
    idempotency_key: text('idempotency_key'),
    to: text('to').notNull(),
    from: text('from'),
    subject: text('subject'),
    html: text('html'),
    text: text('text'),
    headers: text('headers', { mode: 'json' }).$type<Record<string, string>>(),
    body: text('body', { mode: 'json' }).$type<Record<string, unknown>>(),
    /** An email's files, `[{filename, content_type, content_base64}]`; null when it has none. */
    attachments: text('attachments', { mode: 'json' }).$type<OutboxAttachment[]>(),
    created_at: text('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('sandbox_outbox_key').on(t.workspace_id, t.channel, t.idempotency_key),
    index('sandbox_outbox_workspace_created').on(t.workspace_id, t.created_at),
  ],
);
