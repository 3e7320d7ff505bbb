import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const TEMPLATE_CATEGORIES = ['marketing', 'utility', 'authentication'] as const;
export const TEMPLATE_STATUSES = ['approved', 'pending', 'rejected', 'paused', 'disabled'] as const;
export const MEDIA_TYPES = ['image', 'video', 'document'] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];
export const BUTTON_TYPES = ['quick_reply', 'url', 'phone_number', 'copy_code'] as const;

/** A template header: text (may hold placeholders) or a media slot filled at send time. */
export type TemplateHeader = { type: 'text'; text: string } | { type: MediaType };
export type TemplateButton = { type: (typeof BUTTON_TYPES)[number]; text: string; url?: string; phone_number?: string };

/** WhatsApp message templates: created in-app (operator API), read-only through /v1. */
export const whatsappTemplates = sqliteTable(
  'whatsapp_templates',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    language: text('language').notNull(),
    category: text('category', { enum: TEMPLATE_CATEGORIES }).notNull(),
    status: text('status', { enum: TEMPLATE_STATUSES }).notNull(),
    body: text('body').notNull(),
    header: text('header', { mode: 'json' }).$type<TemplateHeader>(),
    buttons: text('buttons', { mode: 'json' }).$type<TemplateButton[]>().notNull(),
    /** Placeholder names of the body in order of first appearance (`1`, `2`, ... or `first_name`, ...). */
    placeholders: text('placeholders', { mode: 'json' }).$type<string[]>().notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('whatsapp_templates_workspace_name_language').on(t.workspaceId, t.name, t.language),
    index('whatsapp_templates_workspace_created').on(t.workspaceId, t.createdAt),
  ],
);
export type TemplateRow = typeof whatsappTemplates.$inferSelect;

/** The inbox: one conversation per contact and channel. */
export const conversations = sqliteTable(
  'conversations',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    contact_id: text('contact_id').notNull(),
    channel: text('channel').notNull(),
    last_message_at: text('last_message_at').notNull(),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [uniqueIndex('conversations_workspace_contact_channel').on(t.workspace_id, t.contact_id, t.channel)],
);

export const MESSAGE_STATUSES = ['pending', 'sent', 'delivered', 'read', 'failed', 'received'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/**
 * Messages of the inbox. `wamid` (the provider message id) is unique per
 * workspace: an inbound message is stored, and announced, once however often
 * Meta delivers it.
 */
export const messages = sqliteTable(
  'messages',
  {
    id: text('id').primaryKey(),
    workspace_id: text('workspace_id').notNull(),
    conversation_id: text('conversation_id'),
    contact_id: text('contact_id'),
    channel: text('channel').notNull(),
    direction: text('direction', { enum: ['inbound', 'outbound'] }).notNull(),
    type: text('type').notNull(),
    status: text('status', { enum: MESSAGE_STATUSES }).notNull(),
    wamid: text('wamid'),
    template_id: text('template_id'),
    campaign_id: text('campaign_id'),
    text: text('text'),
    media: text('media', { mode: 'json' }).$type<{ mime_type: string; filename: string | null; bytes: number | null }>(),
    error: text('error'),
    provider_timestamp: text('provider_timestamp'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('messages_workspace_wamid').on(t.workspace_id, t.wamid),
    index('messages_conversation_created').on(t.conversation_id, t.created_at),
    index('messages_workspace_contact').on(t.workspace_id, t.contact_id),
  ],
);

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'completed', 'failed', 'cancelled'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const whatsappCampaigns = sqliteTable(
  'whatsapp_campaigns',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    templateId: text('template_id').notNull(),
    audienceId: text('audience_id'),
    audienceFilters: text('audience_filters', { mode: 'json' }).$type<Record<string, unknown>>(),
    variables: text('variables', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    status: text('status', { enum: CAMPAIGN_STATUSES }).notNull(),
    scheduledAt: text('scheduled_at'),
    startedAt: text('started_at'),
    completedAt: text('completed_at'),
    targeted: integer('targeted').notNull().default(0),
    sent: integer('sent').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    /** Set when the last recipient page was written: from then on the campaign completes when no recipient is pending. */
    targetingDoneAt: text('targeting_done_at'),
    /**
     * While `running`: until when the fan-out holds the campaign. Every batch its page and chunk
     * messages write moves it on (src/platform/fanout); past it, the `campaign-schedules` sweep re-drives.
     */
    leaseUntil: text('lease_until'),
    /** Which chain of page messages holds the campaign: a re-drive moves it on, and a page of an older one stops. */
    drive: integer('drive').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [index('whatsapp_campaigns_workspace_created').on(t.workspaceId, t.createdAt), index('whatsapp_campaigns_due').on(t.status, t.scheduledAt)],
);
export type CampaignRow = typeof whatsappCampaigns.$inferSelect;

export const RECIPIENT_STATUSES = ['queued', 'sending', 'sent', 'failed'] as const;

/** One row per (campaign, contact): the primary key is what makes a recipient receive a campaign at most once. */
export const whatsappCampaignRecipients = sqliteTable(
  'whatsapp_campaign_recipients',
  {
    campaign_id: text('campaign_id').notNull(),
    contact_id: text('contact_id').notNull(),
    workspace_id: text('workspace_id').notNull(),
    status: text('status', { enum: RECIPIENT_STATUSES }).notNull(),
    message_id: text('message_id'),
    error: text('error'),
    created_at: text('created_at').notNull(),
    updated_at: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('whatsapp_campaign_recipients_pk').on(t.campaign_id, t.contact_id),
    index('whatsapp_campaign_recipients_status').on(t.campaign_id, t.status),
    index('whatsapp_campaign_recipients_contact').on(t.workspace_id, t.contact_id),
  ],
);
