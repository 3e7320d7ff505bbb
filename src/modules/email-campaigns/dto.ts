import { z } from '@hono/zod-openapi';
import { enumQuery, limitQuery, offsetQuery } from '../../platform/list';
import { isoDateTime, uuid, uuidOut } from '../../platform/validation';
import { campaignAudienceFilters } from '../contacts';
import { headerText } from '../emails';
import { CompileResult, ContentInput, contentColumns } from '../content';
import { EMAIL_CAMPAIGN_STATUSES } from './schema';

const ts = () => z.string().openapi({ format: 'date-time' });

export const Counters = z
  .object({
    targeted: z.number().int().openapi({ description: 'Recipients chosen at launch (eligible at that moment)' }),
    sent: z.number().int().openapi({ description: 'Handed to the email provider' }),
    delivered: z.number().int(),
    opened: z.number().int().openapi({ description: 'Recipients with at least one open' }),
    clicked: z.number().int().openapi({ description: 'Recipients with at least one click' }),
    bounced: z.number().int(),
    complained: z.number().int(),
    unsubscribed: z.number().int().openapi({ description: "Recipients who used this campaign's unsubscribe link" }),
    failed: z.number().int().openapi({ description: 'Recipients the provider refused, or who stopped being eligible before their turn' }),
  })
  .openapi('EmailCampaignCounters');

export const EmailCampaignSummary = z
  .object({
    id: uuidOut(),
    workspace_id: uuidOut(),
    name: z.string(),
    subject: z.string().nullable().openapi({ description: 'May embed `[[tokens]]`, rendered per recipient' }),
    preheader: z.string().nullable(),
    sender_profile_id: uuidOut().nullable().openapi({ description: 'Null: the workspace default verified profile at send time' }),
    audience_id: uuidOut().nullable(),
    audience_filters: z.record(z.string(), z.unknown()).nullable(),
    external_reference: z.string().nullable(),
    status: z.enum(EMAIL_CAMPAIGN_STATUSES),
    scheduled_at: ts().nullable(),
    sent_at: ts().nullable().openapi({ description: 'When sending began (send, or the schedule sweep)' }),
    cancelled_at: ts().nullable().openapi({ description: 'When the campaign was cancelled in the application' }),
    counters: Counters,
    created_at: ts(),
    updated_at: ts(),
  })
  .openapi('EmailCampaignSummary');

export const EmailCampaign = EmailCampaignSummary.extend(contentColumns).openapi('EmailCampaign');
export const EmailCampaignWritten = EmailCampaign.extend({ compile: CompileResult }).openapi('EmailCampaignWritten');
export const EmailCampaignCreated = EmailCampaign.extend({
  duplicate: z.boolean().openapi({ description: 'True when `external_reference` matched an existing campaign' }),
  compile: CompileResult.optional().openapi({ description: 'Absent only on a replay of a launched campaign (returned verbatim)' }),
}).openapi('EmailCampaignCreated');

const name = z.string().trim().min(1).max(200);
const subject = headerText(z.string().min(1).max(400), 'subject').openapi({
  description: 'May embed `[[tokens]]`; one line: line breaks and other control characters answer 400',
});
const preheader = z.string().max(400);

export const EmailCampaignCreate = z
  .object({
    name,
    subject,
    preheader: preheader.nullable().optional(),
    sender_profile_id: uuid('sender_profile_id')
      .nullable()
      .optional()
      .openapi({ description: 'A sender profile of the workspace on a verified domain; omitted or null: the default at send time' }),
    audience_id: uuid('audience_id')
      .nullable()
      .optional()
      .openapi({ description: 'A saved audience of the workspace; narrows the eligible contacts' }),
    audience_filters: campaignAudienceFilters().optional(),
    content: ContentInput.optional(),
    external_reference: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .openapi({ description: 'One campaign per reference per workspace; a replay updates it like PATCH while editable' }),
  })
  .strict()
  .openapi('EmailCampaignCreate');
export type EmailCampaignCreateInput = z.infer<typeof EmailCampaignCreate>;

export const EmailCampaignPatch = z
  .object({
    name: name.optional(),
    subject: subject.optional(),
    preheader: preheader.nullable().optional().openapi({ description: 'null clears it' }),
    sender_profile_id: uuid('sender_profile_id').nullable().optional(),
    audience_id: uuid('audience_id').nullable().optional(),
    audience_filters: campaignAudienceFilters().optional(),
    content: ContentInput.optional().openapi({ description: 'Replaces the content and recompiles' }),
  })
  .strict()
  .openapi('EmailCampaignPatch');
export type EmailCampaignPatchInput = z.infer<typeof EmailCampaignPatch>;

export const EmailCampaignListQuery = z.object({
  status: enumQuery(
    EMAIL_CAMPAIGN_STATUSES,
    'Exact match; empty is absent; another value answers 400 `Invalid status: must be one of draft, scheduled, sending, paused, sent, failed, cancelled`',
  ),
  limit: limitQuery({ limit: 25, cap: 100 }),
  offset: offsetQuery(),
});
export const EmailCampaignList = z
  .object({ data: z.array(EmailCampaignSummary), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('EmailCampaignList');

export const Estimate = z
  .object({ count: z.number().int().openapi({ description: 'Contacts the campaign would reach if sent now' }) })
  .openapi('EmailCampaignEstimate');

export const ScheduleBody = z
  .object({ scheduled_at: isoDateTime('scheduled_at').openapi({ format: 'date-time', description: 'A future ISO 8601 instant' }) })
  .strict()
  .openapi('EmailCampaignSchedule');
export const NoBody = z.object({}).strict().openapi('EmailCampaignNoBody');
