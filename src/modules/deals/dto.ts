import { z } from '@hono/zod-openapi';
import { knownValuesQuery, limitQuery, offsetQuery, searchQuery, textQuery, uuidQuery } from '../../platform/list';
import { isoDateTime, uuid } from '../../platform/validation';
import { DEAL_STATUSES } from './schema';

const amount = z.number().min(0).max(9999999999).openapi({ description: 'Rounded half-up to 2 decimals' });
const note = z.string().max(4000).nullable().openapi({ description: 'Trimmed; empty becomes null' });

export const DealCreate = z
  .object({
    contact_id: uuid('contact_id').optional().openapi({ description: 'Wins over phone/email' }),
    phone: z.string().max(32).optional(),
    email: z.string().trim().max(255).pipe(z.email()).optional().openapi({ format: 'email' }),
    name: z.string().max(200).optional().openapi({ description: 'Used only when a new contact is created' }),
    title: z.string().trim().max(200).optional().openapi({ description: 'Required unless a product is attached; ignored while one is' }),
    product_id: uuid('product_id').optional(),
    product_sku: z.string().max(120).optional(),
    product_external_id: z.string().max(255).optional(),
    amount: amount.optional().openapi({ description: 'Omitted: the product price when a product is attached, else 0' }),
    currency: z.string().trim().min(1).max(8).optional().openapi({ description: 'Uppercased; omitted: the workspace currency' }),
    pipeline_id: uuid('pipeline_id').optional(),
    stage_id: uuid('stage_id').optional(),
    owner_user_id: uuid('owner_user_id').nullable().optional().openapi({ description: 'An active workspace member (agent or admin)' }),
    expected_close_at: isoDateTime('expected_close_at').nullable().optional(),
    note: note.optional(),
    external_reference: z.string().min(1).max(255).optional().openapi({ description: 'Idempotency key, unique per workspace' }),
  })
  .strict()
  .openapi('DealCreate');

export const DealPatch = z
  .object({
    product_id: uuid('product_id')
      .nullable()
      .optional()
      .openapi({ description: 'Attaches or replaces (must be active unless already attached); null detaches and keeps the title text' }),
    title: z.string().trim().min(1).max(200).optional().openapi({ description: 'Ignored while a product is attached' }),
    amount: amount.optional(),
    currency: z.string().trim().min(1).max(8).optional(),
    contact_id: uuid('contact_id').optional(),
    owner_user_id: uuid('owner_user_id').nullable().optional(),
    expected_close_at: isoDateTime('expected_close_at').nullable().optional(),
    note: note.optional(),
  })
  .strict()
  .openapi('DealPatch');

export const DealStageMove = z
  .object({
    stage_id: uuid('stage_id'),
    index: z.number().int().min(0).max(100000).optional().openapi({ description: 'Position in the stage column; 0 (default) is the top' }),
  })
  .strict()
  .openapi('DealStageMove');

export const DealStatusChange = z
  .object({
    status: z.enum(DEAL_STATUSES),
    lost_reason: z.string().max(1000).optional().openapi({ description: 'Kept only when the new status is `lost`' }),
  })
  .strict()
  .openapi('DealStatusChange');

export type DealCreateInput = z.infer<typeof DealCreate>;
export type DealPatchInput = z.infer<typeof DealPatch>;

export const Deal = z
  .object({
    id: z.string().uuid(),
    workspace_id: z.string().uuid(),
    pipeline_id: z.string().uuid(),
    stage_id: z.string().uuid(),
    contact_id: z.string().uuid(),
    product_id: z.string().uuid().nullable(),
    owner_user_id: z.string().uuid().nullable(),
    title: z.string(),
    amount: z.number().openapi({ description: 'JSON number, 2 decimals' }),
    currency: z.string(),
    status: z.enum(DEAL_STATUSES),
    lost_reason: z.string().nullable(),
    expected_close_at: z.string().nullable(),
    closed_at: z.string().nullable(),
    stage_entered_at: z.string(),
    position: z.number().int().openapi({ description: 'Order inside the stage column; 0 is the top' }),
    note: z.string().nullable(),
    external_reference: z.string().nullable(),
    source: z.string(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Deal');

export const DealWithContact = Deal.extend({
  contact_name: z.string().nullable(),
  contact_phone: z.string().nullable(),
  contact_email: z.string().nullable(),
}).openapi('DealWithContact');

export const DealCreated = DealWithContact.extend({ duplicate: z.boolean() }).openapi('DealCreated');

export const DealList = z
  .object({ data: z.array(DealWithContact), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('DealList');

export const DealListQuery = z.object({
  pipeline_id: uuidQuery('pipeline_id'),
  stage_id: uuidQuery('stage_id'),
  contact_id: uuidQuery('contact_id'),
  owner_user_id: uuidQuery('owner_user_id'),
  status: knownValuesQuery(DEAL_STATUSES, 'Exact match'),
  external_reference: textQuery('Exact match'),
  search: searchQuery('search', 'Case-insensitive substring of the title or the contact name, phone or email'),
  limit: limitQuery({ limit: 25, cap: 100 }),
  offset: offsetQuery(),
});
