import { beforeAll, describe, expect, it } from 'vitest';
import { call, makeWorkspace, type TestWorkspace } from '../support/harness';
import { seedAll } from '../support/resources';
import { resourceKeys, ROUTES } from '../support/routes';

/**
 * Query parameters mean what the document says: a value its schema calls invalid is refused
 * (400), a value it calls valid is accepted, an example works as sent, an optional parameter
 * may be left out (and an empty value is the same as leaving it out), a required one may not.
 * Where a list accepts other values on purpose (unknown enum filters ignored, paging clamped),
 * the schema must not declare the bound it does not enforce.
 */
type Schema = { type?: string; enum?: string[]; minimum?: number; maximum?: number; format?: string };
type Parameter = { name: string; in: string; required?: boolean; schema?: Schema; example?: string };
type Doc = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };

let doc: Doc;
let ws: TestWorkspace;

beforeAll(async () => {
  doc = (await call<Doc>('GET', '/v1/openapi.json')).body;
  ws = await makeWorkspace({}, { bulk: true });
});

const lists = ROUTES.filter((r) => r.method === 'GET');

describe('query parameters conform to the OpenAPI document', () => {
  for (const route of lists) {
    it(`GET ${route.path}`, async () => {
      const parameters = (doc.paths[route.path]?.get?.parameters ?? []).filter((p) => p.in === 'query');
      if (parameters.length === 0) return;
      const keys = resourceKeys(route.path);
      const seeded = await seedAll(ws, Object.values(keys));
      const path = route.path.replace(/\{([^}]+)\}/g, (_, name: string) => route.params?.[name] ?? seeded.get(keys[name])!.id);
      const base = new URLSearchParams(route.query ?? '');
      const get = async (name: string, value: string | null) => {
        const query = new URLSearchParams(base);
        if (value === null) query.delete(name);
        else query.set(name, value);
        const res = await ws.api('GET', `${path}?${query}`);
        return { status: res.status, body: res.body, what: `GET ${path}?${query} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}` };
      };
      for (const p of parameters) {
        const schema = p.schema ?? {};
        if (p.required) {
          const absent = await get(p.name, null);
          expect(absent.status, `required but accepted when absent: ${absent.what}`).toBe(400);
          continue;
        }
        // An optional parameter may be left out; empty is the same as left out, except for a boolean
        // (documented: anything but `true` or `false` answers 400).
        expect((await get(p.name, null)).status, `optional ${p.name} left out`).toBe(200);
        const empty = await get(p.name, '');
        expect(empty.status, `${p.name} empty: ${empty.what}`).toBe(schema.type === 'boolean' ? 400 : 200);
        if (p.example !== undefined) {
          const res = await get(p.name, String(p.example));
          expect(res.status, `example of ${p.name}: ${res.what}`).toBe(200);
        }
        if (schema.type === 'integer') {
          const below = schema.minimum === undefined ? -1 : schema.minimum - 1;
          const res = await get(p.name, String(below));
          expect(
            res.status,
            `${p.name}=${below} ${schema.minimum === undefined ? 'has no documented minimum' : 'is below the documented minimum'}: ${res.what}`,
          ).toBe(schema.minimum === undefined ? 200 : 400);
          if (schema.maximum !== undefined) {
            expect((await get(p.name, String(schema.maximum))).status, `${p.name} at its maximum`).toBe(200);
            const above = await get(p.name, (BigInt(schema.maximum) + 1n).toString());
            expect(above.status, `${p.name} above its documented maximum: ${above.what}`).toBe(400);
          } else {
            const huge = await get(p.name, `1${'0'.repeat(20)}`);
            expect(huge.status, `${p.name} has no documented maximum: ${huge.what}`).toBe(200);
          }
        }
        if (schema.enum) {
          const res = await get(p.name, 'AAA');
          expect(res.status, `${p.name} is a documented enum: ${res.what}`).toBe(400);
        }
      }
    });
  }
});
