import { z } from '@hono/zod-openapi';
import { DEFAULT_EVENT_TYPES, EVENT_TYPES } from '../events/catalog';

export const WebhookEndpoint = z
  .object({
    id: z.string().uuid(),
    url: z.string().openapi({ description: 'Normalized as the runtime parser reads it' }),
    events: z.array(z.enum(EVENT_TYPES)),
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
      .array(z.enum(EVENT_TYPES, { error: `must be a known event type (one of ${EVENT_TYPES.join(', ')})` }))
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: `Event types to receive; when omitted: ${DEFAULT_EVENT_TYPES.join(', ')}. \`email.failed\` is accepted but never delivered.` }),
  })
  .strict()
  .openapi('WebhookEndpointCreate');

export type WebhookEndpointInput = z.infer<typeof WebhookEndpointCreate>;

export const WebhookEndpointList = z.object({ data: z.array(WebhookEndpoint).max(3) }).openapi('WebhookEndpointList');

/** Any string: a malformed id is an unknown endpoint (404), not a validation error. */
export const EndpointIdParams = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' } }) });
