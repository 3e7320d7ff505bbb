/**
 * A typed client for the Workspace API: `openapi-fetch` over the types that
 * `openapi-typescript` generates from the OpenAPI document (schema.ts), plus
 * Standard Webhooks verification for the deliveries the API sends.
 *
 * Copy this folder into your project (its dependencies are in package.json),
 * or regenerate schema.ts from a running service:
 *   npx openapi-typescript http://127.0.0.1:8787/v1/openapi.json -o schema.ts
 */
import createClient, { type Client } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { components, paths } from './schema.ts';

export type { components, paths };
/** Every schema of the document by name: `Schemas['Contact']`, `Schemas['DealCreate']`, ... */
export type Schemas = components['schemas'];
export type WorkspaceClient = Client<paths>;

export interface ClientOptions {
  /** The service origin, e.g. `http://127.0.0.1:8787` under `npm start`. */
  baseUrl: string;
  /** A workspace API key, `wsk_...`. */
  apiKey: string;
  /** A fetch implementation (defaults to the global one). */
  fetch?: typeof globalThis.fetch;
}

/**
 * `client.GET('/v1/contacts', { params: { query: { filter } } })` and so on:
 * paths, parameters, bodies and answers are all typed. Every call resolves to
 * `{ data, error, response }`: `data` on a 2xx, `error` (either error shape) otherwise.
 */
export function createWorkspaceClient({ baseUrl, apiKey, fetch }: ClientOptions): WorkspaceClient {
  return createClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${apiKey}` },
    ...(fetch ? { fetch } : {}),
  });
}

/** The body of every webhook delivery (docs/webhooks.md). */
export interface WebhookEvent<Data = Record<string, unknown>> {
  /** The event id: stable across retries and endpoints; deduplicate on it. */
  id: string;
  /** The event type, e.g. `contact.created`. */
  type: string;
  /** When the event occurred (ISO 8601). */
  created_at: string;
  data: Data;
}

/**
 * Verifies a delivery with the endpoint's `whsec_...` secret (shown once, when the
 * endpoint is created) and returns the parsed event; throws when the signature
 * does not match or the timestamp is more than 5 minutes away from now.
 * `body` must be the raw request body, exactly as received.
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  secret: string,
  body: string,
  headers: Headers | Record<string, string | string[] | undefined>,
): WebhookEvent<Data> {
  const get = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return (Array.isArray(value) ? value[0] : value) ?? '';
  };
  const signed = {
    'webhook-id': get('webhook-id'),
    'webhook-timestamp': get('webhook-timestamp'),
    'webhook-signature': get('webhook-signature'),
  };
  return new Webhook(secret).verify(body, signed) as WebhookEvent<Data>;
}
