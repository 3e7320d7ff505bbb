import { beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, SHARDS, type ApiResponse, type TestWorkspace } from '../support/harness';
import { RESOURCES, seedAll, type Seeded } from '../support/resources';
import { placeholders, resourceKeys, ROUTES, takesBody, type RouteCase } from '../support/routes';

/**
 * Workspace A's key against workspace B's records, over every route of the
 * route table: foreign ids answer like unknown ones, nothing of B shows up in
 * A's answers, and B's records stay as they were. Run twice: A and B on
 * different shards, and on the same shard.
 */
const PLACEMENTS = [
  { name: 'A and B on different shards', a: SHARDS[0], b: SHARDS[1] },
  { name: 'A and B on one shard', a: SHARDS[1], b: SHARDS[1] },
];

describe.each(PLACEMENTS)('$name', (placement) => {
  let a: TestWorkspace;
  let b: TestWorkspace;
  let ofA: Map<string, Seeded>;
  let ofB: Map<string, Seeded>;

  beforeAll(async () => {
    [a, b] = await Promise.all([makeWorkspace({ shard: placement.a }, { bulk: true }), makeWorkspace({ shard: placement.b }, { bulk: true })]);
    [ofA, ofB] = await Promise.all([seedAll(a), seedAll(b)]);
  });

  /** Everything of B that A must never see. */
  const secretsOfB = () => [...ofB.values()].flatMap((s) => [s.id, ...s.marks]);

  function pathWith(route: RouteCase, records: Map<string, Seeded>): { path: string; ids: string[] } {
    const keys = resourceKeys(route.path);
    const ids: string[] = [];
    const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (route.params?.[name] !== undefined) return route.params[name];
      const record = records.get(keys[name]);
      if (!record) throw new Error(`${route.method} ${route.path}: no record factory for ${keys[name]} in test/support/resources.ts`);
      ids.push(record.id);
      return record.id;
    });
    return { path, ids };
  }

  /** The error message may echo the id the caller sent (`contacts with ID <id> not found`); nothing else may carry B's data. */
  function assertNoLeak(res: ApiResponse, sentIds: string[]) {
    const body = res.body && typeof res.body === 'object' ? res.body : { text: res.body };
    const { message, ...rest } = body as { message?: unknown };
    const nested = (rest as { error?: { message?: unknown } }).error;
    const messages = JSON.stringify([message, nested?.message ?? null]);
    const others = JSON.stringify({ ...rest, error: nested && typeof nested === 'object' ? { ...nested, message: null } : nested });
    for (const secret of secretsOfB()) {
      expect(others, 'response carries data of another workspace').not.toContain(secret);
      if (!sentIds.includes(secret)) expect(messages, 'error message carries data of another workspace').not.toContain(secret);
    }
  }

  const idRoutes = ROUTES.filter((r) => placeholders(r.path).some((p) => r.params?.[p] === undefined));
  const listRoutes = ROUTES.filter((r) => r.method === 'GET' && placeholders(r.path).length === 0);

  describe("another workspace's ids", () => {
    it.each(idRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s answers like an unknown id and changes nothing', async (_, route) => {
      const { path, ids } = pathWith(route, ofB);
      const touched = [...new Set(Object.values(resourceKeys(route.path)))].filter((k) => ofB.has(k)).map((k) => ofB.get(k)!);
      const before = await Promise.all(touched.map((s) => s.read()));
      expect(
        before.every((r) => r !== null),
        'B can read its own records',
      ).toBe(true);

      const res = await a.api(route.method, path, takesBody(route) ? (route.body ?? {}) : undefined);

      expect(res.status, JSON.stringify(res.body)).toBe(route.notFound?.status ?? 404);
      if (route.notFound?.code) expect(res.body.error?.code ?? res.body.error_code).toBe(route.notFound.code);
      assertNoLeak(res, ids);
      expect(await Promise.all(touched.map((s) => s.read()))).toEqual(before);
    });
  });

  describe('lists', () => {
    it.each(listRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))("%s never shows another workspace's records", async (_, route) => {
      const res = await a.api(route.method, route.path);
      expect(res.status).toBe(200);
      assertNoLeak(res, []);
      for (const [key, factory] of Object.entries(RESOURCES)) {
        if (factory.list !== route.path) continue;
        // The list does show records: A's own one is there.
        expect(JSON.stringify(res.body), `${key} of the caller's workspace`).toContain(ofA.get(key)!.id);
      }
    });
  });

  describe('the sweep itself', () => {
    it('has a record factory for every record placeholder of the route table', () => {
      for (const route of idRoutes) expect(() => pathWith(route, ofB), `${route.method} ${route.path}`).not.toThrow();
    });
  });
});
