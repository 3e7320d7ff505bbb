import type { Feature } from '../../src/modules/workspaces/model';

/**
 * Every /v1 route, one row each. The shared convention tests (auth, feature
 * gate, unknown body property, non-UUID path id), the fuzz test and the
 * isolation sweep all walk this table: adding a route adds a row here.
 *
 * `path` uses `{id}`-style placeholders. A placeholder names a record by the
 * path segment before it: `/v1/contacts/{id}/notes` takes a contact
 * (`contacts/{id}`), `/v1/notes/{id}` a note (`notes/{id}`); the isolation
 * sweep finds the record factory under that key in `test/support/resources.ts`.
 * A placeholder that is not a record id (e.g. `{channel}`) gets its value from
 * `params`. `body` is a valid minimal body for routes that take one (it seeds
 * the unknown-property probe, the fuzz mutations and the isolation calls).
 */
export type RouteCase = {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  feature?: Feature;
  body?: Record<string, unknown>;
  /** The non-UUID id answer, when the spec makes an exception (webhook endpoint delete: 404). */
  nonUuidStatus?: number;
  /**
   * Body shape of the route's coded errors: `framework` `{statusCode, message, error}` (default) or
   * the `domain` envelope `{error: {code, message}}`. Request-shape 400s, 401, 403 and 429 are in the
   * framework shape on every route, so a `domain` route accepts both.
   */
  errorShape?: 'framework' | 'domain';
  /** Values for placeholders that are not record ids, e.g. `{ channel: 'email' }`. */
  params?: Record<string, string>;
  /** The answer to another workspace's id when it is not a plain 404 (code: `error.code` or `error_code`). */
  notFound?: { status?: number; code?: string };
};

export const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/pipelines', feature: 'deals' },
  { method: 'POST', path: '/v1/webhook-endpoints', body: { url: 'https://example.com/hooks' }, errorShape: 'domain' },
  { method: 'GET', path: '/v1/webhook-endpoints', errorShape: 'domain' },
  {
    method: 'DELETE',
    path: '/v1/webhook-endpoints/{id}',
    nonUuidStatus: 404,
    errorShape: 'domain',
    notFound: { code: 'endpoint_not_found' },
  },
];

/** The placeholders of a route path, e.g. `['id']` for `/v1/notes/{id}`. */
export const placeholders = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

/** The resource key of each placeholder: the segment before it plus the placeholder (`notes/{id}`). */
export const resourceKeys = (path: string): Record<string, string> =>
  Object.fromEntries([...path.matchAll(/([^/]+)\/\{([^}]+)\}/g)].map((m) => [m[2], `${m[1]}/{${m[2]}}`]));

export const takesBody = (r: RouteCase) => r.method === 'POST' || r.method === 'PATCH' || r.method === 'PUT';
