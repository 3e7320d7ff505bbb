import { describe, expect, it } from 'vitest';
import { call, makeWorkspace } from '../support/harness';
import { ROUTES } from '../support/routes';

const mine = ROUTES.filter((r) => r.path.startsWith('/v1/deals') || r.path.startsWith('/v1/products') || r.path === '/v1/pipelines');
const concrete = (path: string) => path.replace('{id}', crypto.randomUUID());

describe('deal, product and pipeline routes', () => {
  it.each(mine)('$method $path: key, feature gate, unknown property, non-UUID id', async (route) => {
    expect((await call(route.method, concrete(route.path), { body: route.body })).status).toBe(401);
    if (route.feature) {
      const ungated = await makeWorkspace({ features: [] });
      const res = await ungated.api(route.method, concrete(route.path), route.body);
      expect(res.status).toBe(403);
      expect(res.body.error_code).toBe('FEATURE_NOT_INCLUDED_IN_PLAN');
    }
    const ws = await makeWorkspace();
    if (route.body) {
      const res = await ws.api(route.method, concrete(route.path), { ...route.body, unknown_prop: 1 });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain('property unknown_prop should not exist');
    }
    if (route.path.includes('{id}')) {
      expect((await ws.api(route.method, route.path.replace('{id}', 'not-a-uuid'), route.body)).status).toBe(400);
    }
  });

  it('documents every route in the OpenAPI document', async () => {
    const doc = (await call('GET', '/v1/openapi.json')).body;
    for (const route of mine) {
      expect(doc.paths[route.path.replace(/^\/v1/, '/v1')]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
  });
});
