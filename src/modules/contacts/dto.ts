import { z } from '@hono/zod-openapi';
import { SCALAR_FIELDS } from './fields';
import { BLOCK_STATES } from './schema';

export { ContactWrite } from './fields';

const nullableScalars = Object.fromEntries(
  Object.entries(SCALAR_FIELDS).map(([k, d]) => [
    k,
    (d.kind === 'enum'
      ? z.enum(d.values as [string, ...string[]])
      : d.kind === 'number' || d.kind === 'integer'
        ? z.number()
        : z.string()
    ).nullable(),
  ]),
);

export const EventAttendance = z
  .object({ event_id: z.string().uuid(), status: z.string(), registered_at: z.string(), attended_at: z.string().nullable() })
  .openapi('ContactEventAttendance');

export const Contact = z
  .object({
    id: z.string().uuid(),
    workspace_id: z.string().uuid(),
    phone: z.string().nullable().openapi({ description: 'E.164' }),
    email: z.string().nullable().openapi({ description: 'Trimmed and lower-cased' }),
    ...nullableScalars,
    block_state: z.enum(BLOCK_STATES),
    custom_fields: z.record(z.string(), z.unknown()),
    tags: z.array(z.string().uuid()).openapi({ description: 'Tag IDS (writes take names)' }),
    groups: z.array(z.string().uuid()).openapi({ description: 'Group IDS (writes take names)' }),
    event_attendances: z.array(EventAttendance),
    whatsapp_subscribed: z.boolean(),
    email_subscribed: z.boolean(),
    whatsapp_deliverability: z.string(),
    email_deliverability: z.string(),
    score_band: z.enum(['cold', 'warm', 'hot']).nullable().openapi({ description: '`cold` < 30, `warm` 30..69, `hot` >= 70; null without a score' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Contact');

export const ContactUpsertResult = Contact.extend({ duplicate: z.boolean() }).openapi('ContactUpsertResult');

export const ContactPage = z
  .object({ data: z.array(Contact), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('ContactPage');

export type ContactBody = z.infer<typeof Contact>;
