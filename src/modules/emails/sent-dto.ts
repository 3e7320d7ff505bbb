import { z } from '@hono/zod-openapi';
import { enumQuery, limitQuery, offsetQuery, textQuery } from '../../platform/list';
import { uuidOut } from '../../platform/validation';
import { SEND_STATUSES } from './schema';

/** `GET /v1/emails`: the paging of the other 25/100 lists (README "Lists"). */
export const SENT_PAGING = { limit: 25, cap: 100 } as const;

export const FACT_TYPES = ['delivered', 'bounced', 'complained', 'opened', 'clicked'] as const;
export type FactType = (typeof FACT_TYPES)[number];

const EmailFact = z
  .object({
    type: z.enum(FACT_TYPES),
    at: z.string().openapi({ format: 'date-time', description: 'When the first fact of this type was recorded' }),
    bounce_type: z.string().nullable().optional().openapi({ description: '`bounced` only: `hard` or `soft` as the provider reported it' }),
    machine: z.boolean().optional().openapi({ description: '`opened` only: the open came from a mail client prefetching images' }),
    url: z.string().optional().openapi({ description: '`clicked` only: the link followed' }),
  })
  .openapi('EmailFact');

export const EmailSent = z
  .object({
    id: uuidOut().openapi({ description: 'The send id (`data.send_id` in email events)' }),
    status: z.enum(SEND_STATUSES).openapi({
      description: '`sending` while the provider hand-off is under way (a send left there by a crash is completed by the retry with its key)',
    }),
    to: z.string(),
    from: z.string().nullable().openapi({ description: "The sender profile's address the send went out from" }),
    subject: z.string(),
    sender_profile_id: uuidOut().nullable(),
    idempotency_key: z.string(),
    provider_message_id: z.string().nullable().openapi({ description: "The provider's id of the message; null when suppressed" }),
    reason: z.enum(['suppressed']).nullable(),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    tracking: z.object({ opens: z.boolean(), clicks: z.boolean() }),
    last_event: z.enum([...SEND_STATUSES, ...FACT_TYPES]).openapi({
      description: 'The type of the latest entry of `events`; the `status` while there is none',
    }),
    events: z.array(EmailFact).openapi({
      description: 'The first delivery, bounce, complaint, open and click recorded for the send, oldest first (repeats are not kept)',
    }),
    created_at: z.string().openapi({ format: 'date-time', description: 'When the send was accepted' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('EmailSent');

export const EmailSentList = z
  .object({ data: z.array(EmailSent), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('EmailSentList');

const instant = (name: string, description: string) =>
  z
    .string()
    .optional()
    .openapi({
      type: 'string',
      format: 'date-time',
      description: `${description}; ISO 8601 with \`Z\` or an offset; empty is ignored; anything else answers 400 \`Invalid ${name}: must be an ISO 8601 date-time with a time zone\``,
    });

export const EmailSentListQuery = z.object({
  to: textQuery('The recipient: exact, any case (addresses are stored lower-cased)'),
  status: enumQuery(SEND_STATUSES, `Exact match; another value answers 400 \`Invalid status: must be one of ${SEND_STATUSES.join(', ')}\``),
  since: instant('since', '`created_at >= since`'),
  until: instant('until', '`created_at < until`'),
  idempotency_key: textQuery('Exact match: the send made with this key'),
  limit: limitQuery(SENT_PAGING),
  offset: offsetQuery(),
});
export type EmailSentListInput = z.infer<typeof EmailSentListQuery>;
