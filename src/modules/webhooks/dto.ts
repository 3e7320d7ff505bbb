import { z } from '@hono/zod-openapi';
import { enumQuery, limitQuery, offsetQuery, textQuery } from '../../platform/list';
import { DEFAULT_EVENT_TYPES, SUBSCRIBABLE_EVENT_TYPES } from '../../platform/event-catalog';
import { DELIVERY_STATUSES } from './delivery-log';

export const WebhookEndpoint = z
  .object({
    id: z.string().uuid(),
    url: z.string().openapi({ description: 'Normalized as the runtime parser reads it' }),
    events: z.array(z.enum(SUBSCRIBABLE_EVENT_TYPES)),
    is_active: z.boolean(),
    created_at: z.string(),
  })
  .openapi('WebhookEndpoint');

export const CreatedWebhookEndpoint = WebhookEndpoint.extend({
  secret: z.string().openapi({
    description: 'Standard Webhooks signing secret (`whsec_` + base64). Returned only here; it cannot be read again.',
  }),
}).openapi('CreatedWebhookEndpoint');

export const WebhookEndpointCreate = z
  .object({
    url: z.string().min(1).max(2048).openapi({
      description:
        'http or https; private, loopback, link-local, CGNAT, multicast and reserved targets (any spelling), `localhost` names and URLs with credentials give 400 `unsafe_url`, and so do spellings parsers read differently (whitespace or control characters, backslashes, `@`, a missing `//`). Stored and echoed normalized: the URL the runtime parser delivers to (lower-case scheme and host, punycode, default port dropped, dot segments resolved, percent-encoded), at most 2048 characters. Rechecked at every delivery attempt.',
      example: 'https://example.com/hooks',
    }),
    events: z
      .array(z.enum(SUBSCRIBABLE_EVENT_TYPES, { error: `must be a known event type (one of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')})` }))
      .min(1)
      .max(100)
      .optional()
      .openapi({
        description: `Event types to receive; when omitted: ${DEFAULT_EVENT_TYPES.join(', ')}. \`email.failed\` is accepted but never delivered.`,
      }),
  })
  .strict()
  .openapi('WebhookEndpointCreate');

export type WebhookEndpointInput = z.infer<typeof WebhookEndpointCreate>;

export const WebhookEndpointList = z.object({ data: z.array(WebhookEndpoint).max(3) }).openapi('WebhookEndpointList');

/** Any string: a malformed id is an unknown endpoint (404), not a validation error. */
export const EndpointIdParams = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });

const pagingQuery = { limit: limitQuery({ limit: 25, cap: 100 }), offset: offsetQuery() };

export const WebhookEvent = z
  .object({
    id: z.string().openapi({ description: 'The event id: the `webhook-id` of every delivery of it' }),
    type: z.string().openapi({ example: 'contact.created' }),
    created_at: z.string(),
    data: z.record(z.string(), z.unknown()).openapi({ description: 'As delivered: the payload of the event type (see the webhooks section)' }),
  })
  .openapi('WebhookEvent', { description: 'Exactly the webhook delivery envelope' });

export const WebhookEventList = z
  .object({ data: z.array(WebhookEvent), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('WebhookEventList');

export const WebhookEventListQuery = z.object({
  type: textQuery('Exact event type (`contact.created`); empty is absent'),
  ...pagingQuery,
});

export const EventIdParams = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' }, description: 'Any string: a malformed id is an unknown event (404)' }),
});

export const WebhookDeliveryLog = z
  .object({
    id: z.string().uuid(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES).openapi({
      description: '`pending` until an attempt ends; `delivered` after a 2xx; `retrying` between failed attempts; `dead` after the last',
    }),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable().openapi({
      description: "The endpoint's HTTP status at the last attempt; null when it gave none (timeout, refused URL) or before any attempt",
    }),
    last_error: z.string().nullable(),
    next_attempt_at: z.string().nullable(),
    delivered_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('WebhookDeliveryLog');

export const WebhookDeliveryLogList = z
  .object({ data: z.array(WebhookDeliveryLog), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('WebhookDeliveryLogList');

export const DeliveryLogQuery = z.object({
  status: enumQuery(
    DELIVERY_STATUSES,
    `Exact match; empty is absent; another value answers 400 \`Invalid status: must be one of ${DELIVERY_STATUSES.join(', ')}\``,
  ),
  ...pagingQuery,
});

export const DeliveryIdParams = z.object({
  id: z.string().openapi({ param: { name: 'id', in: 'path' } }),
  delivery_id: z.string().openapi({ param: { name: 'delivery_id', in: 'path' } }),
});

export const TestEventSent = z.object({ event_id: z.string() }).openapi('WebhookTestEventSent');

/** The redelivery and test routes take no fields: an empty body, or `{}`; any property is refused. */
export const WebhookNoBody = z.object({}).strict().openapi('WebhookNoBody');
