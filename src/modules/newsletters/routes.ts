import { serviceContext } from '../../platform/context';
import { publicBaseUrl } from '../../platform/public-base';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { createRouter, idParams } from '../../platform/validation';
import {
  Issue,
  IssueCreate,
  IssueCreated,
  IssueList,
  IssueNoBody,
  IssueListQuery,
  IssuePatch,
  IssueSchedule,
  IssueWritten,
  Newsletter,
  NewsletterCreate,
  NewsletterList,
  NewsletterListQuery,
  Success,
} from './dto';
import { createIssue, getIssue, listIssues, patchIssue } from './issues';
import { deleteIssue, publishIssue, scheduleIssue, unscheduleIssue } from './publishing';
import { createNewsletter, getNewsletter, listNewsletters } from './service';
import { ContentErrors } from '../content';
import { NewsletterErrors } from './errors';
import { EmailErrors } from '../emails';
import { SenderProfileErrors } from '../sender-profiles';

export const newsletterRoutes = createRouter();

const tags = ['Newsletters'];
const issueTags = ['Newsletter issues'];
const contentErrors = [ContentErrors.invalidContent.problems, ContentErrors.unknownSnippet];

newsletterRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/newsletters',
    operationId: 'listNewsletters',
    ignoredQuery: ['filter', 'sort', 'search'],
    tags,
    summary: 'List newsletters',
    description: 'Newest first; no filter, sort or search. Rows carry the summary; the single read adds the stored configuration.',
    security: bearer,
    request: { query: NewsletterListQuery },
    responses: { 200: jsonContent(NewsletterList, 'A page of newsletters') },
  }),
  async (c) => c.json(await listNewsletters(serviceContext(c), c.req.valid('query')), 200),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/newsletters',
    operationId: 'createNewsletter',
    tags,
    summary: 'Create a newsletter',
    description:
      '`name` is unique per workspace case-insensitively. Cadence, enrollment policy and archive settings take their in-app defaults ' +
      "(see the single read). The plan's newsletter cap answers 403 `PLAN_LIMIT_EXCEEDED` in the framework shape.",
    security: bearer,
    request: { body: jsonBody(NewsletterCreate, { name: 'Weekly digest', description: 'What happened this week' }) },
    responses: { 201: jsonContent(Newsletter, 'The newsletter, with `active_subscriber_count: 0`') },
    errors: [
      SenderProfileErrors.notFound.newsletter,
      SharedErrors.planLimitExceeded.newsletters,
      ContentErrors.duplicateName.newsletter,
      ContentErrors.duplicateName.newsletterSlug,
    ],
  }),
  async (c) => c.json(await createNewsletter(serviceContext(c), c.req.valid('json')), 201),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/newsletters/{id}',
    operationId: 'getNewsletter',
    tags,
    summary: 'Get a newsletter',
    description: 'The full stored configuration and the active subscriber count.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Newsletter, 'The newsletter') },
    errors: [NewsletterErrors.notFound],
  }),
  async (c) => c.json(await getNewsletter(serviceContext(c), c.req.valid('param').id), 200),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/newsletters/{id}/issues',
    operationId: 'listNewsletterIssues',
    tags: issueTags,
    summary: 'List issues of a newsletter',
    description: 'Newest first; rows omit the content columns.',
    security: bearer,
    request: { params: idParams, query: IssueListQuery },
    responses: { 200: jsonContent(IssueList, 'A page of issues') },
    errors: [NewsletterErrors.invalidStatusFilter, NewsletterErrors.notFound],
  }),
  async (c) => c.json(await listIssues(serviceContext(c), c.req.valid('param').id, c.req.valid('query')), 200),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/newsletters/{id}/issues',
    operationId: 'createNewsletterIssue',
    tags: issueTags,
    summary: 'Create a draft issue',
    description:
      'Every field is optional. An `external_reference` already held by an issue of this newsletter updates that issue (`duplicate: true`; ' +
      '`status`, `scheduled_at` and `issue_number` never change, so even a published issue can be refreshed); held by an issue of another ' +
      'newsletter it is refused. 201 both ways, with `compile`.',
    security: bearer,
    request: {
      params: idParams,
      body: jsonBody(IssueCreate, { subject: 'Issue of the week', content: { markdown: '# Hello [[first_name : there]]' } }),
    },
    responses: { 201: jsonContent(IssueCreated, 'The issue with `duplicate` and `compile`') },
    errors: [...contentErrors, NewsletterErrors.notFound, NewsletterErrors.externalReferenceInUse, SharedErrors.concurrentChange],
  }),
  async (c) => c.json(await createIssue(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 201),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/newsletter-issues/{id}',
    operationId: 'getNewsletterIssue',
    tags: issueTags,
    summary: 'Get an issue',
    description: 'The full issue including content; no `compile` envelope.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Issue, 'The issue') },
    errors: [NewsletterErrors.issueNotFound],
  }),
  async (c) => c.json(await getIssue(serviceContext(c), c.req.valid('param').id), 200),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/newsletter-issues/{id}',
    operationId: 'updateNewsletterIssue',
    tags: issueTags,
    summary: 'Update an issue',
    description:
      'Only present fields change. `subject` and `preheader` clear on null; `content` and `include_in_archive` refuse null. ' +
      'A content change recompiles (published issues too: later catch-up deliveries get the new content). ' +
      '`compile` is `ok: true` with empty arrays when content was not patched.',
    security: bearer,
    request: { params: idParams, body: jsonBody(IssuePatch, { subject: 'A better subject' }) },
    responses: { 200: jsonContent(IssueWritten, 'The issue with `compile`') },
    errors: [...contentErrors, NewsletterErrors.issueNotFound],
  }),
  async (c) => c.json(await patchIssue(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/newsletter-issues/{id}',
    operationId: 'deleteNewsletterIssue',
    tags: issueTags,
    summary: 'Delete a never-published issue',
    description: 'Drafts and scheduled issues only; a published issue stays (its number is never freed).',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Success, '`{success: true}`') },
    errors: [NewsletterErrors.issuePublished, NewsletterErrors.issueNotFound],
  }),
  async (c) => c.json(await deleteIssue(serviceContext(c), c.req.valid('param').id), 200),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/newsletter-issues/{id}/publish',
    operationId: 'publishNewsletterIssue',
    tags: issueTags,
    summary: 'Publish an issue now',
    description:
      'Assigns the next `issue_number` (from `start_issue_number`, never reused) and `published_at`; `scheduled_at` stays as a record. ' +
      'Caught-up subscribers get it on the next delivery sweep. Already published: 200 with the issue as is. It needs a subject and compiled content.',
    security: bearer,
    request: { params: idParams, body: jsonBody(IssueNoBody, {}) },
    responses: { 200: jsonContent(Issue, 'The published issue') },
    errors: [NewsletterErrors.issueNotFound, NewsletterErrors.missingContent],
  }),
  async (c) => c.json(await publishIssue(serviceContext(c), c.req.valid('param').id, publicBaseUrl(c.env, c.req.url)), 200),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/newsletter-issues/{id}/schedule',
    operationId: 'scheduleNewsletterIssue',
    tags: issueTags,
    summary: 'Schedule an issue',
    description:
      'Draft or scheduled (moves the time), to a future instant. Checked up front: subject and compiled content; a published issue is not scheduled again.',
    security: bearer,
    request: { params: idParams, body: jsonBody(IssueSchedule, { scheduled_at: '2030-01-01T09:00:00Z' }) },
    responses: { 200: jsonContent(Issue, 'The scheduled issue') },
    errors: [EmailErrors.invalidScheduledAt, NewsletterErrors.issueNotFound, NewsletterErrors.missingContent, NewsletterErrors.alreadyPublished],
  }),
  async (c) =>
    c.json(await scheduleIssue(serviceContext(c), c.req.valid('param').id, c.req.valid('json').scheduled_at, publicBaseUrl(c.env, c.req.url)), 200),
);

newsletterRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/newsletter-issues/{id}/unschedule',
    operationId: 'unscheduleNewsletterIssue',
    tags: issueTags,
    summary: 'Unschedule an issue',
    description: 'Back to draft, `scheduled_at` cleared; only a scheduled issue.',
    security: bearer,
    request: { params: idParams, body: jsonBody(IssueNoBody, {}) },
    responses: { 200: jsonContent(Issue, 'The draft issue') },
    errors: [NewsletterErrors.issueNotFound, NewsletterErrors.notScheduled.published, NewsletterErrors.notScheduled.unscheduled],
  }),
  async (c) => c.json(await unscheduleIssue(serviceContext(c), c.req.valid('param').id), 200),
);
