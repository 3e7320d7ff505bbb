import { describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../support/harness';

/**
 * Free-form `custom_fields` are bounded at the write (README "Contact custom
 * fields"): whatever is accepted reads back through the list and the get.
 */
const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < levels; i++) value = { n: value };
  return value;
};
const keys = (n: number, prefix = 'k') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));

let ws: TestWorkspace;
const workspace = async () => (ws ??= await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } }));
const email = () => `${crypto.randomUUID()}@example.com`;

async function expectReadsBack(w: TestWorkspace, id: string, customFields: unknown) {
  const one = await w.api('GET', `/v1/contacts/${id}`);
  expect(one.status).toBe(200);
  expect(one.body.custom_fields).toEqual(customFields);
  const page = await w.api('GET', '/v1/contacts?limit=500');
  expect(page.status).toBe(200);
  expect(page.body.data.find((c: { id: string }) => c.id === id).custom_fields).toEqual(customFields);
}

describe('custom_fields bounds', () => {
  it.each([
    ['5 levels of nesting', { deep: nested(4) }],
    ['100 keys in all', keys(100)],
    ['nested keys counting towards the 100', { a: keys(49), b: keys(49) }],
    ['16384 bytes serialized', { blob: 'x'.repeat(16_384 - '{"blob":""}'.length) }],
    ['a 100-character key', { ['k'.repeat(100)]: 1 }],
  ])('accepts %s and reads it back', async (_, customFields) => {
    const w = await workspace();
    const res = await w.api('POST', '/v1/contacts', { email: email(), custom_fields: customFields });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    await expectReadsBack(w, res.body.id, customFields);
  });

  it.each([
    ['6 levels of nesting', { deep: nested(5) }, 'custom_fields: must nest at most 5 levels of objects and arrays'],
    ['arrays counting as levels', { deep: [[[[[1]]]]] }, 'custom_fields: must nest at most 5 levels of objects and arrays'],
    ['3000 levels of nesting', { deep: nested(3000) }, 'custom_fields: must nest at most 5 levels of objects and arrays'],
    ['101 keys', keys(101), 'custom_fields: must hold at most 100 keys (nested keys included)'],
    ['5000 keys', keys(5000), 'custom_fields: must hold at most 100 keys (nested keys included)'],
    ['nested keys beyond 100', { a: keys(50), b: keys(50) }, 'custom_fields: must hold at most 100 keys (nested keys included)'],
    ['16385 bytes serialized', { blob: 'x'.repeat(16_385 - '{"blob":""}'.length) }, 'custom_fields: must be at most 16384 bytes serialized'],
    ['a 101-character key', { ['k'.repeat(101)]: 1 }, 'custom_fields: keys must be 1 to 100 characters'],
    ['an empty key', { '': 1 }, 'custom_fields: keys must be 1 to 100 characters'],
    ['an array', [1, 2], 'custom_fields: must be an object'],
  ])('refuses %s with 400', async (_, customFields, message) => {
    const w = await workspace();
    const res = await w.api('POST', '/v1/contacts', { email: email(), custom_fields: customFields });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: [message] });
  });

  it('bounds the stored object after a merge, not only the sent one', async () => {
    const w = await workspace();
    const created = await w.api('POST', '/v1/contacts', { email: email(), custom_fields: keys(60, 'a') });
    const patch = await w.api('PATCH', `/v1/contacts/${created.body.id}`, { custom_fields: keys(41, 'b') });
    expect(patch.status).toBe(400);
    expect(patch.body.message).toEqual(['custom_fields: after merging, must hold at most 100 keys (nested keys included)']);
    const upsert = await w.api('POST', '/v1/contacts', { email: created.body.email, custom_fields: keys(41, 'b') });
    expect(upsert.status).toBe(400);
    // Removing keys in the same write makes room.
    const swap = await w.api('PATCH', `/v1/contacts/${created.body.id}`, { custom_fields: { ...keys(40, 'b'), a0: null } });
    expect(swap.status, JSON.stringify(swap.body)).toBe(200);
    expect(Object.keys(swap.body.custom_fields)).toHaveLength(99);
    await expectReadsBack(w, created.body.id, swap.body.custom_fields);
  });
});
