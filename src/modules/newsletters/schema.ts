import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { sql } from 'drizzle-orm';

export const NEWSLETTER_STATUSES = ['active', 'paused', 'archived'] as const;
/** Where a new subscriber starts: only issues published after they subscribe, the latest issue, or every issue from the first. */
export const START_POLICIES = ['next_issue', 'latest_issue', 'first_issue'] as const;
/** When a subscriber who starts behind gets the first back-issue: on the next delivery sweep, or at the next cadence slot. */
export const FIRST_SEND_MODES = ['immediate', 'next_slot'] as const;
/** What the public archive shows: issue pages, or only the list of titles. */
export const ARCHIVE_MODES = ['full', 'list_only'] as const;
export const ISSUE_STATUSES = ['draft', 'scheduled', 'published'] as const;
export type IssueStatus = (typeof ISSUE_STATUSES)[number];
export const SUBSCRIPTION_STATUSES = ['active', 'unsubscribed'] as const;
export const DELIVERY_STATUSES = ['queued', 'sent', 'skipped', 'failed'] as const;

export const newsletters = sqliteTable(
  'newsletters',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    name: text('name').notNull(),
    /** Lower-cased name: the case-insensitive unique key. */
    nameKey: text('name_key').notNull(),
    description: text('description'),
    status: text('status', { enum: NEWSLETTER_STATUSES }).notNull().default('active'),
    senderProfileId: text('sender_profile_id'),
    startPolicy: text('start_policy', { enum: START_POLICIES }).notNull().default('next_issue'),
    startIssueNumber: integer('start_issue_number').notNull().default(1),
    firstSendMode: text('first_send_mode', { enum: FIRST_SEND_MODES }).notNull().default('immediate'),
    rememberWindowDays: integer('remember_window_days').notNull().default(30),
    catchupIntervalDays: integer('catchup_interval_days').notNull().default(1),
    catchupSendTime: text('catchup_send_time').notNull().default('09:00'),
    autoSubscribeTagId: text('auto_subscribe_tag_id'),
    headerSnippetId: text('header_snippet_id'),
    footerSnippetId: text('footer_snippet_id'),
    archiveEnabled: integer('archive_enabled', { mode: 'boolean' }).notNull().default(true),
    slug: text('slug').notNull(),
    archiveMode: text('archive_mode', { enum: ARCHIVE_MODES }).notNull().default('full'),
    /** The number the next published issue takes (starts at `start_issue_number`; advanced in the publish batch). */
    nextIssueNumber: integer('next_issue_number').notNull(),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('newsletters_workspace_name').on(t.workspaceId, t.nameKey),
    uniqueIndex('newsletters_workspace_slug').on(t.workspaceId, t.slug),
    index('newsletters_workspace_created').on(t.workspaceId, t.createdAt),
  ],
);

export const newsletterIssues = sqliteTable(
  'newsletter_issues',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    newsletterId: text('newsletter_id').notNull(),
    issueNumber: integer('issue_number'),
    subject: text('subject'),
    preheader: text('preheader'),
    status: text('status', { enum: ISSUE_STATUSES }).notNull(),
    designJson: text('design_json', { mode: 'json' }).$type<unknown>(),
    compiledHtml: text('compiled_html'),
    compiledStyles: text('compiled_styles'),
    plainText: text('plain_text'),
    scheduledAt: text('scheduled_at'),
    publishedAt: text('published_at'),
    includeInArchive: integer('include_in_archive', { mode: 'boolean' }).notNull().default(true),
    externalReference: text('external_reference'),
    /** The origin of the links in its mail (unsubscribe, tracking), kept by the request that published or scheduled it: deliveries run in sweeps. */
    linkOrigin: text('link_origin'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('newsletter_issues_number').on(t.newsletterId, t.issueNumber),
    uniqueIndex('newsletter_issues_workspace_reference').on(t.workspaceId, t.externalReference),
    index('newsletter_issues_newsletter_created').on(t.workspaceId, t.newsletterId, t.createdAt),
    index('newsletter_issues_due').on(t.status, t.scheduledAt),
  ],
);

/** A contact's subscription to a newsletter; `cursor` is the last issue number delivered (or skipped). */
export const newsletterSubscriptions = sqliteTable(
  'newsletter_subscriptions',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    newsletterId: text('newsletter_id').notNull(),
    contactId: text('contact_id').notNull(),
    status: text('status', { enum: SUBSCRIPTION_STATUSES }).notNull(),
    cursor: integer('cursor').notNull(),
    /** Null: caught up (each new issue goes out on the next sweep). Set: behind, the next back-issue is due then. */
    nextCatchupAt: text('next_catchup_at'),
    unsubscribeToken: text('unsubscribe_token').notNull(),
    source: text('source').notNull(),
    subscribedAt: text('subscribed_at').notNull(),
    unsubscribedAt: text('unsubscribed_at'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('newsletter_subscriptions_contact').on(t.newsletterId, t.contactId),
    uniqueIndex('newsletter_subscriptions_token').on(t.unsubscribeToken),
    index('newsletter_subscriptions_active').on(t.status, t.newsletterId).where(sql`status = 'active'`),
    index('newsletter_subscriptions_workspace_contact').on(t.workspaceId, t.contactId),
  ],
);

/** One row per (subscription, issue): an issue is never sent twice to one subscriber. */
export const newsletterDeliveries = sqliteTable(
  'newsletter_deliveries',
  {
    id: text('id').primaryKey(),
    workspaceId: text('workspace_id').notNull(),
    newsletterId: text('newsletter_id').notNull(),
    subscriptionId: text('subscription_id').notNull(),
    issueId: text('issue_id').notNull(),
    contactId: text('contact_id').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull(),
    sendId: text('send_id'),
    reason: text('reason'),
    createdAt: text('created_at').notNull(),
    updatedAt: text('updated_at').notNull(),
  },
  (t) => [
    uniqueIndex('newsletter_deliveries_once').on(t.subscriptionId, t.issueId),
    index('newsletter_deliveries_issue').on(t.workspaceId, t.issueId),
  ],
);
