import { describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../support/harness';
import { queryParameters } from '../support/openapi';
import { placeholders, ROUTES } from '../support/routes';
import { PROTOTYPE_NAMES } from './fuzz-inputs';

/**
 * User-supplied names that are also properties of every JavaScript object: a
 * look-up of such a name in a table of known names must miss, so filters and
 * sorts on them answer 400 on every list route that takes them, and custom
 * field keys spelled like them are plain keys.
 */

const lists = ROUTES.filter((r) => r.method === 'GET' && placeholders(r.path).length === 0);
const q = (value: unknown) => encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value));

let ws: TestWorkspace;
const workspace = async () => (ws ??= await makeWorkspace({}, { bulk: true }));

describe('filter and sort fields named like object properties', () => {
  it.each(lists.map((r) => [r.path, r] as const))('GET %s refuses them with 400', async (_, route) => {
    const params = await queryParameters(route);
    const w = await workspace();
    for (const name of PROTOTYPE_NAMES) {
      const probes: string[] = [];
      if (params.includes('filter')) {
        probes.push(
          `filter=${q({ [name]: 'x' })}`,
          `filter=${q({ [name]: ['x'] })}`,
          `filter=${q({ [name]: { $gt: 1 } })}`,
          `filter=${q({ $where: { field: name, op: 'eq', value: 'x' } })}`,
          `filter=${q({ $where: { or: [{ field: name, op: 'is_null' }] } })}`,
          `filter=${q({ [`$${name}`]: 1 })}`,
        );
      }
      if (params.includes('sort')) probes.push(`sort=${q(name)}`, `sort=${q(`-${name}`)}`);
      for (const probe of probes) {
        const res = await w.api('GET', `${route.path}?${probe}`);
        expect(res.status, `${route.path}?${decodeURIComponent(probe)} -> ${JSON.stringify(res.body)}`).toBe(400);
      }
    }
  });
});

describe('custom field keys named like object properties', () => {
  it('are stored, read back, merged and removed as plain keys', async () => {
    const w = await workspace();
    const keys = Object.fromEntries(PROTOTYPE_NAMES.map((k, i) => [k, `v${i}`]));
    // Built by hand so `__proto__` travels as an ordinary key.
    const raw = `{"email":"${crypto.randomUUID()}@example.com","custom_fields":{${PROTOTYPE_NAMES.map((k, i) => `"${k}":"v${i}"`).join(',')}}}`;
    const created = await w.api('POST', '/v1/contacts', undefined, { rawBody: raw, headers: { 'content-type': 'application/json' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.custom_fields).toEqual(keys);
    const read = await w.api('GET', `/v1/contacts/${created.body.id}`);
    expect(Object.keys(read.body.custom_fields).sort()).toEqual(Object.keys(keys).sort());

    const patched = await w.api('PATCH', `/v1/contacts/${created.body.id}`, undefined, {
      rawBody: '{"custom_fields":{"__proto__":null,"toString":"changed"}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const { __proto__: _gone, ...rest } = keys as Record<string, string>;
    expect(patched.body.custom_fields).toEqual({ ...rest, toString: 'changed' });

    const filtered = await w.api('GET', `/v1/contacts?filter=${q({ 'custom_fields.constructor': 'v0' })}`);
    expect(filtered.status).toBe(200);
    expect(filtered.body.data.map((c: { id: string }) => c.id)).toEqual([created.body.id]);
  });

  it('clearing a key the contact does not hold changes nothing', async () => {
    const w = await workspace();
    const created = await w.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com`, custom_fields: { a: 1 } });
    for (const name of PROTOTYPE_NAMES) {
      const res = await w.api('PATCH', `/v1/contacts/${created.body.id}`, undefined, {
        rawBody: `{"custom_fields":{"${name}":null}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body.custom_fields, name).toEqual({ a: 1 });
      expect(res.body.updated_at, name).toBe(created.body.updated_at);
    }
  });
});
