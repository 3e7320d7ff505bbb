import { describe, expect, it } from 'vitest';
import { FEATURES } from '../../src/platform/workspace';
import { call, freshIp, makeWorkspace, shardFor, type TestWorkspace } from '../support/harness';
import { concretePath, ROUTES, takesBody, type RouteCase } from '../support/routes';

const SOME_ID = '00000000-0000-7000-8000-000000000000';
const concrete = (route: RouteCase, id = SOME_ID) => concretePath(route, id);
/** Request-shape 400s come in the framework shape, or the domain envelope on routes that answer every error in it. */
const errorText = (body: any) => JSON.stringify(body?.statusCode === 400 ? body.message : body?.error?.message);
const label = (r: RouteCase) => `${r.method} ${r.path}`;

/** The checks every /v1 route shares, walked over the one route table (workspaces on each shard in turn). */
describe.each(ROUTES)('$method $path', (route) => {
  const shard = shardFor(ROUTES.indexOf(route));
  let ws: TestWorkspace;
  const workspace = async () => (ws ??= await makeWorkspace({ shard }));

  it('answers 401 without an API key and with an unknown one', async () => {
    const missing = await call(route.method, concrete(route), { body: takesBody(route) ? (route.body ?? {}) : undefined });
    expect(missing.status, label(route)).toBe(401);
    expect(missing.body.message).toBe('Missing API key');
    // From an IP of its own: the walk sends more unknown keys than one IP's failed attempts a minute.
    const unknown = await call(route.method, concrete(route), { key: `wsk_${'x'.repeat(43)}`, ip: freshIp() });
    expect(unknown.body.message).toBe('Invalid API key');
  });

  if (route.feature) {
    it(`is gated by ${route.feature}`, async () => {
      const without = await makeWorkspace({ features: FEATURES.filter((f) => f !== route.feature), shard });
      const res = await without.api(route.method, concrete(route), takesBody(route) ? (route.body ?? {}) : undefined);
      expect(res.status).toBe(403);
      expect(res.body.error_code).toBe('FEATURE_NOT_INCLUDED_IN_PLAN');
    });
  }

  if (takesBody(route)) {
    it('rejects an unknown body property with 400', async () => {
      const res = await (await workspace()).api(route.method, concrete(route), { ...(route.body ?? {}), not_a_field: 1 });
      expect(res.status).toBe(400);
      expect(errorText(res.body)).toContain('not_a_field');
    });
  }

  it('refuses a query parameter it does not declare with 400 naming it', async () => {
    const path = `${concrete(route)}${concrete(route).includes('?') ? '&' : '?'}not_a_parameter=1`;
    const res = await (await workspace()).api(route.method, path, takesBody(route) ? (route.body ?? {}) : undefined);
    expect(res.status, label(route)).toBe(400);
    expect(errorText(res.body)).toContain('query parameter not_a_parameter is not accepted here');
  });

  if (route.path.includes('{')) {
    it('rejects a non-UUID path id', async () => {
      const res = await (await workspace()).api(route.method, concrete(route, 'not-a-uuid'), takesBody(route) ? (route.body ?? {}) : undefined);
      expect(res.status).toBe(route.nonUuidStatus ?? 400);
    });
  }

  it('is documented in the OpenAPI document with its error responses', async () => {
    const doc = await call('GET', '/v1/openapi.json');
    const op = doc.body.paths?.[route.path]?.[route.method.toLowerCase()];
    expect(op, label(route)).toBeDefined();
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['400', '401', '403', '429']));
  });
});
