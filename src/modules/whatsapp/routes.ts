import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { createRouter, idParams } from '../../platform/validation';
import { whatsappProvider } from '../../providers/whatsapp';
import { createCampaign, executeCampaign, getCampaign, listCampaigns, patchCampaign } from './campaigns';
import {
  Campaign,
  CAMPAIGN_LIST_QUERY,
  CampaignCreate,
  CampaignExecute,
  CampaignPage,
  CampaignPatch,
  Template,
  TEMPLATE_LIST_QUERY,
  TemplatePage,
  TemplateSend,
  TemplateSendResult,
} from './dto';
import { sendTemplate } from './send';
import { getTemplate, listTemplates, TEMPLATE_FILTER_FIELDS } from './templates';
import { ContactErrors } from '../contacts';
import { WhatsAppErrors } from './errors';
import { EmailCampaignErrors } from '../email-campaigns';

export const whatsappRoutes = createRouter();
const templateTags = ['WhatsApp templates'];
const campaignTags = ['WhatsApp campaigns'];
const EXAMPLE_TEMPLATE = '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c';

whatsappRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/templates',
    operationId: 'listTemplates',
    tags: templateTags,
    summary: 'List WhatsApp templates',
    description: `Shared list conventions; \`search\` matches the name and body; filterable fields: ${TEMPLATE_FILTER_FIELDS.join(', ')}.`,
    security: bearer,
    request: { query: TEMPLATE_LIST_QUERY },
    responses: { 200: jsonContent(TemplatePage, 'A page of templates') },
  }),
  async (c) => c.json(await listTemplates(c.var.db, c.var.workspace.id, c.req.valid('query')), 200),
);

whatsappRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/templates/{id}',
    operationId: 'getTemplate',
    tags: templateTags,
    summary: 'Get a WhatsApp template',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Template, 'The template') },
    errors: [WhatsAppErrors.templateNotFound],
  }),
  async (c) => c.json(await getTemplate(c.var.db, c.var.workspace.id, c.req.valid('param').id.toLowerCase()), 200),
);

whatsappRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/templates/{id}/send',
    operationId: 'sendTemplate',
    tags: templateTags,
    summary: 'Send one template message',
    description:
      'The recipient contact is matched by the normalized phone (`to`, read in the workspace default country when local) and created ' +
      'when absent. `body_variables` fill the body placeholders: entries with `param_name` the named ones, the others by position; ' +
      'a missing or unknown placeholder answers 400 naming it. A media header needs `header_config` `{type: media, media_type, media_link}` ' +
      "with an https link; `button_configs` entries require `parameters`. The message is recorded in the contact's inbox conversation. " +
      'A blacklisted number, a blocked contact and WhatsApp consent `unsubscribed` are refused: no template of any category is sent.',
    security: bearer,
    request: {
      params: idParams,
      body: jsonBody(TemplateSend, {
        to: '+4915112345678',
        body_variables: [
          { type: 'text', text: 'Ada' },
          { type: 'text', text: 'SPRING20' },
        ],
      }),
    },
    responses: { 201: jsonContent(TemplateSendResult, 'Handed to the provider and recorded in the inbox') },
    errors: [
      WhatsAppErrors.invalidRecipient,
      WhatsAppErrors.messageProblems,
      ContactErrors.phoneBlacklisted,
      ContactErrors.limitReached,
      WhatsAppErrors.recipientBlocked,
      WhatsAppErrors.recipientUnsubscribed,
      WhatsAppErrors.templateNotFound,
      WhatsAppErrors.templateNotApproved,
      ContactErrors.mergeRequired.onCreate,
      SharedErrors.concurrentChange,
      WhatsAppErrors.providerError,
    ],
  }),
  async (c) => {
    const provider = whatsappProvider(c.env, c.var.db, c.var.workspace);
    return c.json(await sendTemplate(serviceContext(c), provider, c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 201);
  },
);

whatsappRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/campaigns',
    operationId: 'listCampaigns',
    tags: campaignTags,
    summary: 'List WhatsApp campaigns',
    description:
      'Shared list conventions; `search` matches the name; filterable fields: id, name, template_id, audience_id, status, scheduled_at, started_at, completed_at, created_at, updated_at.',
    security: bearer,
    request: { query: CAMPAIGN_LIST_QUERY },
    responses: { 200: jsonContent(CampaignPage, 'A page of campaigns') },
  }),
  async (c) => c.json(await listCampaigns(c.var.db, c.var.workspace.id, c.req.valid('query')), 200),
);

whatsappRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/campaigns/{id}',
    operationId: 'getCampaign',
    tags: campaignTags,
    summary: 'Get a WhatsApp campaign',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Campaign, 'The campaign with its stats') },
    errors: [WhatsAppErrors.campaignNotFound],
  }),
  async (c) => c.json(await getCampaign(c.var.db, c.var.workspace.id, c.req.valid('param').id.toLowerCase()), 200),
);

/** What a create and a PATCH check: the template, its variables, the audience and its filters, the schedule. */
const campaignWriteErrors = [
  WhatsAppErrors.campaignTemplateNotFound,
  WhatsAppErrors.campaignProblems,
  WhatsAppErrors.audienceNotFound,
  SharedErrors.invalidFilter,
  SharedErrors.filterValueNot,
  SharedErrors.filterValueRule,
  WhatsAppErrors.scheduledInPast,
];
const campaignProblemsDoc =
  'A template with parameters outside its body (`template_id: campaigns send templates whose only parameters are body placeholders ...`), ' +
  'a placeholder without a value (`variables: missing a value for placeholder {{n}}`) and an unknown contact field ' +
  '(`variables.<name>: unknown contact field "<field>"`) answer 400 listing each.';

whatsappRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/campaigns',
    operationId: 'createCampaign',
    tags: campaignTags,
    summary: 'Create a WhatsApp campaign',
    description: `Starts \`draft\`, or \`scheduled\` with a future \`scheduled_at\` (the \`campaign-schedules\` sweep executes it when due). ${campaignProblemsDoc}`,
    security: bearer,
    request: {
      body: jsonBody(CampaignCreate, {
        name: 'Spring sale',
        template_id: EXAMPLE_TEMPLATE,
        audience_filters: { $where: { field: 'city', op: 'eq', value: 'Oslo' } },
        variables: { '1': '{{contact.first_name|there}}', '2': 'SPRING20' },
      }),
    },
    responses: { 201: jsonContent(Campaign, 'The created campaign') },
    errors: campaignWriteErrors,
  }),
  async (c) => c.json(await createCampaign(serviceContext(c), c.req.valid('json')), 201),
);

whatsappRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/campaigns/{id}',
    operationId: 'updateCampaign',
    tags: campaignTags,
    summary: 'Update a WhatsApp campaign',
    description: `Only while \`draft\` or \`scheduled\`. Setting a future \`scheduled_at\` makes it \`scheduled\`, \`null\` makes it \`draft\`. ${campaignProblemsDoc}`,
    security: bearer,
    request: { params: idParams, body: jsonBody(CampaignPatch, { name: 'Spring sale (final)' }) },
    responses: { 200: jsonContent(Campaign, 'The updated campaign') },
    errors: [...campaignWriteErrors, WhatsAppErrors.campaignNotFound, EmailCampaignErrors.notEditable.whatsappCampaign],
  }),
  async (c) => c.json(await patchCampaign(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('json')), 200),
);

whatsappRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/campaigns/{id}/execute',
    operationId: 'executeCampaign',
    tags: campaignTags,
    summary: 'Execute a WhatsApp campaign now',
    description:
      'From `draft` or `scheduled`: the campaign turns `running` and its recipients (WhatsApp consent `subscribed`, not blocked, ' +
      'not blacklisted, narrowed by the audience and `audience_filters`) are fanned out through the queue; each contact receives it ' +
      'at most once. It ends `completed`, or `failed` when nothing could be sent. Its own errors answer the domain envelope.',
    security: bearer,
    request: { params: idParams, body: jsonBody(CampaignExecute, {}) },
    responses: { 201: jsonContent(Campaign, 'The campaign, now `running`') },
    errors: [
      EmailCampaignErrors.notFound.whatsappExecution,
      WhatsAppErrors.notExecutable.byStatus,
      WhatsAppErrors.notExecutable.startedConcurrently,
      WhatsAppErrors.campaignTemplateNotApproved,
    ],
  }),
  async (c) => c.json(await executeCampaign(c.env, serviceContext(c), c.req.valid('param').id.toLowerCase()), 201),
);
