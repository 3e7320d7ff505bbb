import { z } from '@hono/zod-openapi';

const name = z.string().trim().min(1).max(100);

export const LabelCreate = z
  .object({ name, color: z.string().max(32).nullable().optional(), description: z.string().max(500).nullable().optional() })
  .strict()
  .openapi('LabelWrite');

export const LabelPatch = LabelCreate.partial().strict().openapi('LabelPatch');

export const Label = z
  .object({
    id: z.string().uuid(),
    workspace_id: z.string().uuid(),
    name: z.string(),
    color: z.string().nullable(),
    description: z.string().nullable(),
    contact_count: z.number().int().openapi({ description: 'Contacts currently holding it (computed)' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Label', { description: 'A tag or a contact group' });

export const LabelPage = z
  .object({ data: z.array(Label), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('LabelPage');
