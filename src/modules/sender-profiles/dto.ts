import { z } from '@hono/zod-openapi';
import { limitQuery, offsetQuery } from '../../platform/list';
import { uuidOut } from '../../platform/validation';

export const SenderProfile = z
  .object({
    id: uuidOut(),
    workspace_id: uuidOut(),
    from_name: z.string(),
    from_email: z.string().openapi({ format: 'email', description: 'Composed from the local part and the sending domain' }),
    reply_to: z.string().nullable(),
    provider: z.string().openapi({ description: 'Delivery provider (`sandbox`, `resend`; open set)' }),
    is_default: z.boolean(),
    sending_domain: z.string().openapi({ description: 'The sending domain this profile sends from' }),
    domain_status: z.enum(['verified', 'pending']).openapi({ description: "The sending domain's verification status" }),
    verified: z.boolean().openapi({ description: 'Send-readiness: prefer profiles with `verified: true`' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('SenderProfile');

export const SenderProfileList = z
  .object({ data: z.array(SenderProfile), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('SenderProfileList');

export const SenderProfileListQuery = z.object({ limit: limitQuery({ limit: 25, cap: 100 }), offset: offsetQuery() });
