import type { Feature } from '../../src/modules/workspaces/model';

/**
 * Every /v1 route, one row each. The shared convention tests (auth, feature
 * gate, unknown body property, non-UUID path id), the fuzz test and the
 * isolation sweep all walk this table: adding a route adds a row here.
 *
 * `path` uses `{id}`-style placeholders for UUID path params. `body` is a valid
 * minimal body for routes that take one (used to probe unknown properties).
 */
export type RouteCase = {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  feature?: Feature;
  body?: Record<string, unknown>;
  /** The non-UUID id answer, when the spec makes an exception (webhook endpoint delete: 404). */
  nonUuidStatus?: number;
  /** Values for path placeholders that are not ids (e.g. `{channel}`). */
  pathValues?: Record<string, string>;
};

export const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/pipelines', feature: 'deals' },
  { method: 'POST', path: '/v1/webhook-endpoints', body: { url: 'https://example.com/hooks' } },
  { method: 'GET', path: '/v1/webhook-endpoints' },
  { method: 'DELETE', path: '/v1/webhook-endpoints/{id}', nonUuidStatus: 404 },
  { method: 'GET', path: '/v1/contacts' },
  { method: 'POST', path: '/v1/contacts', body: { email: 'route@example.com' } },
  { method: 'GET', path: '/v1/contacts/{id}' },
  { method: 'PATCH', path: '/v1/contacts/{id}', body: { city: 'Oslo' } },
  { method: 'GET', path: '/v1/contacts/{id}/consent' },
  { method: 'PUT', path: '/v1/contacts/{id}/consent/{channel}', pathValues: { channel: 'email' }, body: { state: 'subscribed' } },
  { method: 'GET', path: '/v1/contacts/{id}/notes' },
  { method: 'POST', path: '/v1/contacts/{id}/notes', body: { body: 'A note' } },
  { method: 'PATCH', path: '/v1/notes/{id}', body: { body: 'Edited' } },
  { method: 'DELETE', path: '/v1/notes/{id}' },
  { method: 'GET', path: '/v1/tags' },
  { method: 'POST', path: '/v1/tags', body: { name: 'Route tag' } },
  { method: 'GET', path: '/v1/tags/{id}' },
  { method: 'PATCH', path: '/v1/tags/{id}', body: { name: 'Renamed tag' } },
  { method: 'GET', path: '/v1/contact-groups' },
  { method: 'POST', path: '/v1/contact-groups', body: { name: 'Route group' } },
  { method: 'GET', path: '/v1/contact-groups/{id}' },
  { method: 'PATCH', path: '/v1/contact-groups/{id}', body: { name: 'Renamed group' } },
  { method: 'GET', path: '/v1/products' },
  { method: 'GET', path: '/v1/products/{id}' },
  { method: 'POST', path: '/v1/products', body: { name: 'Widget' } },
  { method: 'PATCH', path: '/v1/products/{id}', body: { name: 'Widget' } },
  { method: 'GET', path: '/v1/deals', feature: 'deals' },
  { method: 'GET', path: '/v1/deals/{id}', feature: 'deals' },
  { method: 'POST', path: '/v1/deals', feature: 'deals', body: { title: 'Deal', email: 'deal@example.com' } },
  { method: 'PATCH', path: '/v1/deals/{id}', feature: 'deals', body: { title: 'Deal' } },
  { method: 'POST', path: '/v1/deals/{id}/stage', feature: 'deals', body: { stage_id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c' } },
  { method: 'POST', path: '/v1/deals/{id}/status', feature: 'deals', body: { status: 'won' } },
];

/** The route's path with `id` for every id placeholder and the row's fixed values for the others. */
export const concretePath = (route: RouteCase, id: string) =>
  route.path.replace(/\{([^}]+)\}/g, (_, name: string) => route.pathValues?.[name] ?? id);
