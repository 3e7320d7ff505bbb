import { z } from '@hono/zod-openapi';
import { limitQuery, offsetQuery, textQuery } from '../../platform/list';
import { uuidOut } from '../../platform/validation';
import { SUPPRESSION_REASONS } from './schema';

export const Suppression = z
  .object({
    id: uuidOut(),
    email: z.string().openapi({ format: 'email' }),
    reason: z.enum(SUPPRESSION_REASONS).nullable(),
    source: z
      .string()
      .openapi({ description: 'Who added it: `api`, or `provider` for a hard bounce or complaint the email provider reported (open set)' }),
    note: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Suppression');

export const SuppressionCreated = Suppression.extend({
  duplicate: z.boolean().openapi({ description: 'true when the address was already on the list (the existing row, unchanged)' }),
}).openapi('SuppressionCreated');

export const SuppressionList = z
  .object({ data: z.array(Suppression), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('SuppressionList');

export const SuppressionListQuery = z.object({
  email: textQuery('Exact address, case-insensitive'),
  limit: limitQuery({ limit: 50, cap: 500 }),
  offset: offsetQuery(),
});

export const SuppressionCreate = z
  .object({
    email: z.string().trim().max(255).pipe(z.email()).openapi({ format: 'email', maxLength: 255 }),
    reason: z.enum(SUPPRESSION_REASONS).optional().openapi({ description: 'Default `manual`' }),
    note: z.string().max(500).optional(),
  })
  .strict()
  .openapi('SuppressionCreate');

export const SuppressionDeleted = z.object({ success: z.literal(true) }).openapi('SuppressionDeleted');
