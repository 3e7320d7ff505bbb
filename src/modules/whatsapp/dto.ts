import { z } from '@hono/zod-openapi';
import { campaignAudienceFilters } from '../contacts';
import { ownKeyRecord } from '../../platform/json-bounds';
import { listQuery } from '../../platform/list';
import { isoDateTime, uuid, uuidOut } from '../../platform/validation';
import { CAMPAIGN_STATUSES, MEDIA_TYPES, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from './schema';
import { TEMPLATE_SORTS } from './templates';

const time = () => z.string().openapi({ format: 'date-time' });

const TemplateHeader = z
  .union([
    z
      .object({ type: z.literal('text'), text: z.string() })
      .openapi({ description: 'Text header; may hold placeholders filled by `header_config.variables`' }),
    z.object({ type: z.enum(MEDIA_TYPES) }).openapi({ description: 'Media header; the media is given at send time (`header_config`)' }),
  ])
  .openapi('WhatsAppTemplateHeader');

const TemplateButton = z
  .object({
    type: z.enum(['quick_reply', 'url', 'phone_number', 'copy_code']),
    text: z.string(),
    url: z.string().optional().openapi({ description: 'URL buttons; a `{{1}}` suffix makes it dynamic' }),
    phone_number: z.string().optional(),
  })
  .openapi('WhatsAppTemplateButton');

export const Template = z
  .object({
    id: uuidOut(),
    workspace_id: uuidOut(),
    name: z.string(),
    language: z.string().openapi({ example: 'en_US' }),
    category: z.enum(TEMPLATE_CATEGORIES),
    status: z.enum(TEMPLATE_STATUSES).openapi({ description: 'Only `approved` templates can be sent' }),
    body: z.string().openapi({ description: 'Text with positional `{{1}}` or named `{{first_name}}` placeholders' }),
    header: TemplateHeader.nullable(),
    buttons: z.array(TemplateButton),
    placeholders: z
      .array(z.string())
      .openapi({ description: 'Placeholder names of the body in order of first appearance (`["1","2"]` or `["first_name"]`)' }),
    created_at: time(),
    updated_at: time(),
  })
  .openapi('WhatsAppTemplate', { description: 'A WhatsApp message template (managed in-app; read-only here)' });

export const TemplatePage = z
  .object({ data: z.array(Template), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('WhatsAppTemplatePage');

export const TEMPLATE_LIST_QUERY = listQuery({
  sorts: TEMPLATE_SORTS,
  paging: { limit: 50, cap: 500 },
  search: 'Case-insensitive substring of the name or body',
  filterExample: { name: 'order_update' },
});

const httpsUrl = z
  .string()
  .max(2000)
  .refine(
    (v) => {
      try {
        return new URL(v).protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'media_link must be an https URL' },
  )
  .openapi({ format: 'uri', description: 'An https URL the provider downloads the media from' });

export const BodyVariable = z
  .object({
    type: z.enum(['text']),
    text: z.string().min(1).max(1024),
    param_name: z
      .string()
      .regex(/^[a-z0-9_]{1,64}$/, { message: 'param_name must be lower-case letters, digits and underscores' })
      .optional()
      .openapi({ description: 'Targets the named placeholder `{{param_name}}`; without it values apply by position' }),
  })
  .strict()
  .openapi('WhatsAppBodyVariable');

export const HeaderConfig = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('text'), variables: z.array(z.string().min(1).max(60)).max(10) }).strict(),
    z.object({ type: z.literal('media'), media_type: z.enum(MEDIA_TYPES), media_link: httpsUrl }).strict(),
  ])
  .openapi('WhatsAppHeaderConfig');

export const ButtonConfig = z
  .object({
    type: z.string().min(1).max(40).openapi({ description: 'The button sub-type, e.g. `url`, `quick_reply`, `copy_code`' }),
    index: z.number().int().min(0).max(9).optional().openapi({ description: 'The template button this fills; default: the entry position' }),
    parameters: z
      .array(
        z
          .object({
            type: z.string().min(1).max(40).openapi({ description: '`text`, `payload`, `coupon_code`, ...' }),
            text: z.string().max(2000).optional(),
            payload: z.string().max(1000).optional(),
            coupon_code: z.string().max(100).optional(),
          })
          .strict(),
      )
      .max(10)
      .openapi({ description: 'Required; an empty array when the button has no dynamic part' }),
  })
  .strict()
  .openapi('WhatsAppButtonConfig');

export const TemplateSend = z
  .object({
    to: z
      .string()
      .min(1)
      .max(32)
      .openapi({ description: 'Recipient phone, international format; a local number is read in the workspace default country' }),
    body_variables: z.array(BodyVariable).max(100).optional(),
    header_config: HeaderConfig.optional(),
    button_configs: z.array(ButtonConfig).max(10).optional(),
  })
  .strict()
  .openapi('WhatsAppTemplateSend');

export type TemplateSendInput = z.infer<typeof TemplateSend>;

export const TemplateSendResult = z
  .object({ success: z.boolean(), wamid: z.string(), message_id: uuidOut(), conversation_id: uuidOut() })
  .openapi('WhatsAppTemplateSendResult');

/* Campaigns */

const variables = ownKeyRecord(
  z.string().regex(/^[a-z0-9_]{1,64}$/, { message: 'variable names are placeholder names: lower-case letters, digits and underscores' }),
  z.string().min(1).max(1024),
)
  .refine((v) => Object.keys(v).length <= 50, { message: 'at most 50 variables' })
  .openapi({
    type: 'object',
    additionalProperties: { type: 'string', minLength: 1, maxLength: 1024 },
    // JSON Schema 2020-12 keywords the metadata type (OpenAPI 3.0's) does not list; the 3.1 document carries them.
    ...({ propertyNames: { pattern: '^[a-z0-9_]{1,64}$' } } as object),
    maxProperties: 50,
    description:
      'One value per body placeholder of the template, keyed by the placeholder name (`"1"`, `"first_name"`). A value may reference contact fields: `{{contact.first_name}}`, `{{contact.custom_fields.plan}}`, with a fallback for empty fields: `{{contact.first_name|there}}`.',
    example: { '1': '{{contact.first_name|there}}', '2': 'SPRING20' },
  });

export const CampaignCreate = z
  .object({
    name: z.string().trim().min(1).max(200),
    template_id: uuid('template_id'),
    audience_id: uuid('audience_id').nullable().optional(),
    audience_filters: campaignAudienceFilters().optional(),
    variables: variables.optional(),
    scheduled_at: isoDateTime('scheduled_at')
      .nullable()
      .optional()
      .openapi({ format: 'date-time', description: 'A future instant: the campaign starts `scheduled` and runs when due' }),
  })
  .strict()
  .openapi('WhatsAppCampaignCreate');

export const CampaignPatch = CampaignCreate.partial().strict().openapi('WhatsAppCampaignPatch');

export type CampaignCreateInput = z.infer<typeof CampaignCreate>;
export type CampaignPatchInput = z.infer<typeof CampaignPatch>;

export const Campaign = z
  .object({
    id: uuidOut(),
    workspace_id: uuidOut(),
    name: z.string(),
    template_id: uuidOut(),
    audience_id: uuidOut().nullable(),
    audience_filters: z.record(z.string(), z.unknown()).nullable(),
    variables: z.record(z.string(), z.string()),
    status: z.enum(CAMPAIGN_STATUSES),
    scheduled_at: time().nullable(),
    started_at: time().nullable(),
    completed_at: time().nullable(),
    stats: z.object({ targeted: z.number().int(), sent: z.number().int(), failed: z.number().int() }),
    created_at: time(),
    updated_at: time(),
  })
  .openapi('WhatsAppCampaign');

export const CampaignPage = z
  .object({ data: z.array(Campaign), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('WhatsAppCampaignPage');

export const CAMPAIGN_SORTS = ['created_at', 'updated_at', 'name', 'scheduled_at', 'status'] as const;
export const CAMPAIGN_LIST_QUERY = listQuery({
  sorts: CAMPAIGN_SORTS,
  paging: { limit: 50, cap: 500 },
  search: 'Case-insensitive substring of the name',
  filterExample: { status: 'draft' },
});

/** Execute takes no fields (an empty body or `{}`). */
export const CampaignExecute = z.object({}).strict().openapi('WhatsAppCampaignExecute');
