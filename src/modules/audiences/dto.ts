import { z } from '@hono/zod-openapi';
import { limitQuery, offsetQuery } from '../../platform/list';
import { uuidOut } from '../../platform/validation';
import { AUDIENCE_KINDS } from './schema';

export const Audience = z
  .object({
    id: uuidOut(),
    workspace_id: uuidOut(),
    name: z.string(),
    kind: z.enum(AUDIENCE_KINDS),
    last_count: z.number().int().nullable().openapi({ description: 'Advisory: eligible contacts when the audience was last resolved (null before)' }),
    last_counted_at: z.string().nullable().openapi({ format: 'date-time' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Audience');

export const AudienceList = z
  .object({ data: z.array(Audience), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('AudienceList');

export const AudienceListQuery = z.object({
  kind: z
    .string()
    .optional()
    .openapi({
      type: 'string',
      enum: [...AUDIENCE_KINDS],
      description: 'Another value answers 400 `Invalid kind: must be one of dynamic, static`; empty is ignored',
    }),
  limit: limitQuery({ limit: 25, cap: 100 }),
  offset: offsetQuery(),
});
