import { z } from '@hono/zod-openapi';
import { FrameworkError, REQUEST_ID_ONLY } from './openapi';

/**
 * The routes outside /v1 (hosted pages, tracking links, provider webhooks) are
 * documented as what they are, under one tag and without the API key; these
 * are the shapes their entries share.
 */
export type PublicRegistry = { registerPath: (route: never) => void };

export const PUBLIC_TAG = 'Hosted pages and provider webhooks';
export const publicEntry = { tags: [PUBLIC_TAG], security: [] };

/** An answer with no body of its own to describe: a redirect, a provider's acknowledgement. Every answer carries `X-Request-Id`. */
export const answer = <T extends object>(description: string, rest?: T) => ({ description, headers: REQUEST_ID_ONLY, ...rest });
export const htmlPage = (description: string) => answer(description, { content: { 'text/html': { schema: z.string() } } });
export const frameworkError = (description: string) => answer(description, { content: { 'application/json': { schema: FrameworkError } } });
/** A refused form post of a hosted page: an HTML page for the page's form, the framework-shape JSON when JSON was sent. */
export const publicRefusal = (description: string) => ({
  description,
  headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' }, ...REQUEST_ID_ONLY },
  content: { 'text/html': { schema: z.string() }, 'application/json': { schema: FrameworkError } },
});
export const PUBLIC_POST_LIMIT =
  'More than 10 posts of this kind a minute from the source IP (`RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE`): nothing was done';
export const UNSUBSCRIBE_LIMIT =
  'More than 600 unsubscribes a minute from the source IP (`RATE_LIMIT_UNSUBSCRIBE_PER_IP_PER_MINUTE`): nothing was done';
export const pathParams = (params: Record<string, string>) =>
  z.object(
    Object.fromEntries(Object.entries(params).map(([name, description]) => [name, z.string().openapi({ param: { name, in: 'path' }, description })])),
  );
/** A provider's event, verified on its raw bytes before it is parsed. */
export const providerEventBody = (example: unknown) => ({
  required: true,
  content: {
    'application/json': { schema: z.object({}).passthrough().openapi({ description: "The provider's event, verified on the raw bytes" }), example },
  },
});
