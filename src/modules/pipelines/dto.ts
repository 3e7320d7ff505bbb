import { z } from '@hono/zod-openapi';

export const Stage = z
  .object({
    id: z.string().uuid(),
    pipeline_id: z.string().uuid(),
    name: z.string(),
    color: z.string(),
    position: z.number().int(),
    win_probability: z.number().int().min(0).max(100).nullable().openapi({ description: 'null behaves as 100' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Stage');

export const Pipeline = z
  .object({
    id: z.string().uuid(),
    workspace_id: z.string().uuid(),
    name: z.string(),
    description: z.string().nullable(),
    is_default: z.boolean(),
    position: z.number().int(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    stages: z.array(Stage),
  })
  .openapi('Pipeline');
