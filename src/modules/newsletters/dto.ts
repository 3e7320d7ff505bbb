import { z } from '@hono/zod-openapi';
import { enumQuery, limitQuery, offsetQuery } from '../../platform/list';
import { isoDateTime, uuid, uuidOut } from '../../platform/validation';
import { CompileResult, ContentInput, contentColumns } from '../content';
import { headerText } from '../emails';
import { ARCHIVE_MODES, FIRST_SEND_MODES, ISSUE_STATUSES, NEWSLETTER_STATUSES, START_POLICIES } from './schema';

const ts = () => z.string().openapi({ format: 'date-time' });

export const NewsletterSummary = z
  .object({
    id: uuidOut(),
    name: z.string(),
    description: z.string().nullable(),
    status: z.enum(NEWSLETTER_STATUSES),
    sender_profile_id: uuidOut().nullable().openapi({ description: 'Null: the workspace default profile at send time' }),
    active_subscriber_count: z.number().int().openapi({ description: 'Subscriptions currently active' }),
    created_at: ts(),
    updated_at: ts(),
  })
  .openapi('NewsletterSummary');

export const Newsletter = NewsletterSummary.extend({
  start_policy: z.enum(START_POLICIES).openapi({
    description:
      'Where a new subscriber starts: `next_issue` (default; only issues published later), `latest_issue` (the newest published issue first), `first_issue` (every back-issue at the catch-up cadence)',
  }),
  start_issue_number: z.number().int().openapi({ description: 'The number of the first published issue (default 1)' }),
  first_send_mode: z.enum(FIRST_SEND_MODES).openapi({
    description:
      'When a subscriber who starts behind gets the first back-issue: `immediate` (default; next delivery sweep) or `next_slot` (the next `catchup_send_time`)',
  }),
  remember_window_days: z
    .number()
    .int()
    .openapi({ description: 'A contact who re-subscribes within this many days resumes where they left off (default 30)' }),
  catchup_interval_days: z.number().int().openapi({ description: 'Days between back-issues for a subscriber who is behind (default 1)' }),
  catchup_send_time: z
    .string()
    .openapi({ description: 'Local time `HH:MM` in the workspace timezone at which back-issues go out (default `09:00`)' }),
  auto_subscribe_tag_id: uuidOut().nullable().openapi({ description: 'Adding this tag to a contact subscribes them (null: off)' }),
  header_snippet_id: uuidOut().nullable(),
  footer_snippet_id: uuidOut().nullable(),
  archive_enabled: z.boolean().openapi({ description: 'Whether the public archive page is served (default true)' }),
  slug: z.string().openapi({ description: 'Archive address: `/n/{workspace_id}/{slug}`' }),
  archive_mode: z.enum(ARCHIVE_MODES).openapi({ description: '`full` (default; each issue readable) or `list_only` (titles only)' }),
}).openapi('Newsletter');

export const NewsletterCreate = z
  .object({
    name: z.string().trim().min(1).max(120),
    description: z.string().max(2000).nullable().optional(),
    sender_profile_id: uuid('sender_profile_id')
      .nullable()
      .optional()
      .openapi({ description: 'A sender profile of the workspace; omitted or null: the default at send time' }),
  })
  .strict()
  .openapi('NewsletterCreate');
export type NewsletterCreateInput = z.infer<typeof NewsletterCreate>;

const paging = { limit: limitQuery({ limit: 25, cap: 100 }), offset: offsetQuery() };
export const NewsletterListQuery = z.object(paging);
export const NewsletterList = z
  .object({ data: z.array(NewsletterSummary), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('NewsletterList');

export const IssueSummary = z
  .object({
    id: uuidOut(),
    newsletter_id: uuidOut(),
    issue_number: z.number().int().nullable().openapi({ description: 'Assigned at publish, per newsletter and monotonic; null before' }),
    subject: z.string().nullable(),
    preheader: z.string().nullable(),
    status: z.enum(ISSUE_STATUSES),
    scheduled_at: ts().nullable(),
    published_at: ts().nullable(),
    include_in_archive: z.boolean(),
    external_reference: z.string().nullable(),
    created_at: ts(),
    updated_at: ts(),
  })
  .openapi('NewsletterIssueSummary');

export const Issue = IssueSummary.extend(contentColumns).openapi('NewsletterIssue');

export const IssueWritten = Issue.extend({ compile: CompileResult }).openapi('NewsletterIssueWritten');
export const IssueCreated = IssueWritten.extend({ duplicate: z.boolean() }).openapi('NewsletterIssueCreated');

const subject = headerText(z.string().max(400), 'subject').openapi({ description: 'One line: line breaks and other control characters answer 400' });
const preheader = z.string().max(400);
export const IssueCreate = z
  .object({
    subject: subject.nullable().optional(),
    preheader: preheader.nullable().optional(),
    include_in_archive: z.boolean().optional(),
    external_reference: z.string().min(1).max(255).optional(),
    content: ContentInput.optional(),
  })
  .strict()
  .openapi('NewsletterIssueCreate');
export type IssueCreateInput = z.infer<typeof IssueCreate>;

export const IssuePatch = z
  .object({
    subject: subject.nullable().optional().openapi({ description: 'null clears it; one line: line breaks and other control characters answer 400' }),
    preheader: preheader.nullable().optional().openapi({ description: 'null clears it' }),
    include_in_archive: z.boolean().optional().openapi({ description: 'null is refused' }),
    content: ContentInput.optional().openapi({ description: 'Replaces the content and recompiles; null is refused' }),
  })
  .strict()
  .openapi('NewsletterIssuePatch');
export type IssuePatchInput = z.infer<typeof IssuePatch>;

export const IssueSchedule = z
  .object({ scheduled_at: isoDateTime('scheduled_at').openapi({ format: 'date-time', description: 'A future ISO 8601 instant' }) })
  .strict()
  .openapi('NewsletterIssueSchedule');

export const IssueListQuery = z.object({
  status: enumQuery(
    ISSUE_STATUSES,
    'Exact match; empty is absent; another value answers 400 `Invalid status: must be draft, scheduled or published`',
  ),
  ...paging,
});
export const IssueList = z
  .object({ data: z.array(IssueSummary), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('NewsletterIssueList');

export const Success = z.object({ success: z.literal(true) }).openapi('NewsletterSuccess');

/** Publish and unschedule take no fields (an empty or absent body). */
export const IssueNoBody = z.object({}).strict().openapi('NewsletterIssueNoBody');
