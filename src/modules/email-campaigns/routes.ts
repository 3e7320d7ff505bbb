import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { publicBaseUrl } from '../../platform/public-base';
import { createRouter, idParams } from '../../platform/validation';
import {
  EmailCampaign,
  EmailCampaignCreate,
  EmailCampaignCreated,
  EmailCampaignList,
  EmailCampaignListQuery,
  EmailCampaignPatch,
  EmailCampaignWritten,
  Estimate,
  NoBody,
  ScheduleBody,
} from './dto';
import { scheduleCampaign, sendCampaign, unscheduleCampaign } from './launch';
import { createCampaign, estimateCampaign, getCampaign, listCampaigns, patchCampaign } from './service';
import { ContentErrors } from '../content';
import { EmailCampaignErrors } from './errors';
import { EmailErrors } from '../emails';
import { SenderProfileErrors } from '../sender-profiles';

export const emailCampaignRoutes = createRouter();

const tags = ['Email campaigns'];
/** What a create and a PATCH check: the content, the sender, the audience and its filters. */
const writeErrors = [
  ContentErrors.invalidContent.problems,
  ContentErrors.unknownSnippet,
  SenderProfileErrors.notFound.emailCampaign,
  EmailCampaignErrors.audienceNotFound,
  EmailCampaignErrors.invalidAudienceFilters,
];
/** A launch needs an editable campaign with a subject, compiled content and a verified sender. */
const launchErrors = [EmailCampaignErrors.notFound.emailCampaign, EmailCampaignErrors.notEditable.emailCampaign, EmailCampaignErrors.incomplete];

emailCampaignRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/email-campaigns',
    operationId: 'listEmailCampaigns',
    tags,
    summary: 'List email campaigns',
    description: 'Newest first; rows omit the content columns. No filter, sort or search.',
    security: bearer,
    request: { query: EmailCampaignListQuery },
    responses: { 200: jsonContent(EmailCampaignList, 'A page of campaigns') },
  }),
  async (c) => c.json(await listCampaigns(serviceContext(c), c.req.valid('query')), 200),
);

emailCampaignRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/email-campaigns',
    operationId: 'createEmailCampaign',
    tags,
    summary: 'Create a draft email campaign',
    description:
      'Creates a draft; nothing is sent until `send` or `schedule`. `content` compiles to the block document stored as `design_json` ' +
      '(replaying it reproduces the same HTML) plus email HTML and plain text. An `external_reference` the workspace already holds replays: ' +
      'while the campaign is editable the body updates it like PATCH (never `status` or `scheduled_at`); after launch it is returned ' +
      'verbatim without `compile`. Both answer 201 with `duplicate`.',
    security: bearer,
    request: {
      body: jsonBody(EmailCampaignCreate, {
        name: 'Spring sale',
        subject: 'Hi [[first_name : there]], spring is here',
        preheader: 'Twenty percent off this week',
        audience_filters: { $where: { field: 'country', op: 'eq', value: 'DE' } },
        content: { markdown: '# Spring sale\n\nHello [[first_name : there]]!\n\n::button[Shop now](https://shop.example.com)' },
        external_reference: 'spring-2026',
      }),
    },
    responses: { 201: jsonContent(EmailCampaignCreated, 'The campaign, with `duplicate` and (unless a launched campaign was replayed) `compile`') },
    errors: [...writeErrors, SharedErrors.concurrentChange],
  }),
  async (c) => c.json(await createCampaign(serviceContext(c), c.req.valid('json')), 201),
);

emailCampaignRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/email-campaigns/{id}',
    operationId: 'getEmailCampaign',
    tags,
    summary: 'Get an email campaign',
    description: 'The campaign with its content columns and counters.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(EmailCampaign, 'The campaign') },
    errors: [EmailCampaignErrors.notFound.emailCampaign],
  }),
  async (c) => c.json(await getCampaign(serviceContext(c), c.req.valid('param').id), 200),
);

emailCampaignRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/email-campaigns/{id}',
    operationId: 'updateEmailCampaign',
    tags,
    summary: 'Update a draft or scheduled email campaign',
    description: 'Present fields change; `content` recompiles. Only while `draft` or `scheduled`.',
    security: bearer,
    request: { params: idParams, body: jsonBody(EmailCampaignPatch, { subject: 'Last days of the spring sale' }) },
    responses: { 200: jsonContent(EmailCampaignWritten, 'The campaign with `compile`') },
    errors: [...writeErrors, EmailCampaignErrors.notFound.emailCampaign, EmailCampaignErrors.notEditable.emailCampaign],
  }),
  async (c) => c.json(await patchCampaign(serviceContext(c), c.req.valid('param').id, c.req.valid('json')), 200),
);

emailCampaignRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/email-campaigns/{id}/estimate',
    operationId: 'estimateEmailCampaign',
    tags,
    summary: 'Estimate the audience of an email campaign',
    description:
      'The contacts a send would reach now, through the resolver the send path uses: ' +
      'email consent `subscribed`, not suppressed, not blacklisted, not blocked, narrowed (never widened) by `audience_id` and `audience_filters`.',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Estimate, '`{count}`') },
    errors: [EmailCampaignErrors.notFound.emailCampaign],
  }),
  async (c) => c.json(await estimateCampaign(c.env, serviceContext(c), c.req.valid('param').id), 200),
);

emailCampaignRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/email-campaigns/{id}/send',
    operationId: 'sendEmailCampaign',
    tags,
    summary: 'Send an email campaign now',
    description:
      'Draft or scheduled -> `sending` (of parallel launches exactly one wins). Recipients are chosen page by page on the send queue, ' +
      'one row per (campaign, contact), so nobody gets it twice; the campaign becomes `sent` when every recipient was handed to the provider, ' +
      '`failed` when none could be. Each email carries a one-click unsubscribe link and `List-Unsubscribe` headers.',
    security: bearer,
    request: { params: idParams, body: jsonBody(NoBody, {}) },
    responses: { 201: jsonContent(EmailCampaign, 'The campaign, `sending`') },
    errors: launchErrors,
  }),
  async (c) => c.json(await sendCampaign(c.env, serviceContext(c), c.req.valid('param').id, publicBaseUrl(c.env, c.req.url)), 201),
);

emailCampaignRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/email-campaigns/{id}/schedule',
    operationId: 'scheduleEmailCampaign',
    tags,
    summary: 'Schedule an email campaign',
    description: 'Draft or scheduled (moves the time) -> `scheduled`; the `campaign-schedules` sweep (every minute) launches it when due.',
    security: bearer,
    request: { params: idParams, body: jsonBody(ScheduleBody, { scheduled_at: '2030-01-01T09:00:00Z' }) },
    responses: { 201: jsonContent(EmailCampaign, 'The campaign, `scheduled`') },
    errors: [EmailErrors.invalidScheduledAt, ...launchErrors],
  }),
  async (c) =>
    c.json(
      await scheduleCampaign(serviceContext(c), c.req.valid('param').id, c.req.valid('json').scheduled_at, publicBaseUrl(c.env, c.req.url)),
      201,
    ),
);

emailCampaignRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/email-campaigns/{id}/unschedule',
    operationId: 'unscheduleEmailCampaign',
    tags,
    summary: 'Unschedule an email campaign',
    description: 'Scheduled -> `draft`, `scheduled_at` cleared; any other state is not editable.',
    security: bearer,
    request: { params: idParams, body: jsonBody(NoBody, {}) },
    responses: { 201: jsonContent(EmailCampaign, 'The campaign, `draft`') },
    errors: [EmailCampaignErrors.notFound.emailCampaign, EmailCampaignErrors.notEditable.emailCampaign],
  }),
  async (c) => c.json(await unscheduleCampaign(serviceContext(c), c.req.valid('param').id), 201),
);
