import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

export const EMAIL_CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sending', 'paused', 'sent', 'failed', 'cancelled'] as const;
export type EmailCampaignStatus = (typeof EMAIL_CAMPAIGN_STATUSES)[number];

export const emailCampaigns = sqliteTable(
  'email_campaigns',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    subject: text('subject'),
    preheader: text('preheader'),
    senderProfileId: text('sender_profile_id'),
    audienceId: text('audience_id'),
    audienceFilters: text('audience_filters', { mode: 'json' }).$type<Record<string, unknown>>(),
    externalReference: text('external_reference'),
    status: text('status', { enum: EMAIL_CAMPAIGN_STATUSES }).notNull(),
    scheduledAt: text('scheduled_at'),
    sentAt: text('sent_at'),
    cancelledAt: text('cancelled_at'),
    designJson: text('design_json', { mode: 'json' }).$type<Record<string, unknown>>(),
    compiledHtml: text('compiled_html'),
    compiledStyles: text('compiled_styles'),
    plainText: text('plain_text'),
    targeted: integer('targeted').notNull().default(0),
    sent: integer('sent').notNull().default(0),
    delivered: integer('delivered').notNull().default(0),
    opened: integer('opened').notNull().default(0),
    clicked: integer('clicked').notNull().default(0),
    bounced: integer('bounced').notNull().default(0),
    complained: integer('complained').notNull().default(0),
    unsubscribed: integer('unsubscribed').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    /** Set when the last recipient page was written: the campaign can finish once no recipient is queued or sending. */
    targetingDoneAt: text('targeting_done_at'),
    /** The origin of the links in its mail (unsubscribe, tracking), kept by the request that scheduled or sent it: sweeps have no request. */
    linkOrigin: text('link_origin'),
    /**
     * While `sending`: until when the fan-out holds the campaign. Every batch its page and chunk
     * messages write moves it on (src/platform/fanout); past it, the `campaign-schedules` sweep re-drives.
     */
    leaseUntil: text('lease_until'),
    /** Which chain of page messages holds the campaign: a re-drive moves it on, and a page of an older one stops. */
    drive: integer('drive').notNull().default(0),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('email_campaigns_workspace_reference').on(t.workspaceId, t.externalReference),
    index('email_campaigns_workspace_created').on(t.workspaceId, t.createdAt),
    index('email_campaigns_due').on(t.status, t.scheduledAt),
  ],
);

export type EmailCampaignRow = typeof emailCampaigns.$inferSelect;

export const RECIPIENT_STATUSES = ['queued', 'sending', 'sent', 'skipped', 'failed'] as const;

/** One row per (campaign, contact): a campaign reaches a contact at most once, however often a page or send message is delivered. */
export const emailCampaignRecipients = sqliteTable(
  'email_campaign_recipients',
  {
    campaignId: text('campaign_id').notNull(),
    contactId: text('contact_id').notNull(),
    workspaceId: text('workspace_id').notNull(),
    status: text('status', { enum: RECIPIENT_STATUSES }).notNull(),
    sendId: text('send_id'),
    /** The one-click unsubscribe token of this recipient's email (`{workspace}.c{random}`). */
    unsubscribeToken: text('unsubscribe_token').notNull(),
    unsubscribedAt: text('unsubscribed_at'),
    error: text('error'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.campaignId, t.contactId] }),
    uniqueIndex('email_campaign_recipients_token').on(t.unsubscribeToken),
    index('email_campaign_recipients_open').on(t.campaignId, t.status).where(sql`status IN ('queued', 'sending')`),
    index('email_campaign_recipients_workspace_contact').on(t.workspaceId, t.contactId),
  ],
);
