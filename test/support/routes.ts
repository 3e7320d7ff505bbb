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
};

export const ROUTES: RouteCase[] = [
  { method: 'GET', path: '/v1/pipelines', feature: 'deals' },
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
