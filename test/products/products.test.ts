import { describe, expect, it } from 'vitest';
import { makeWorkspace, uuidRe, type TestWorkspace } from '../support/harness';

const create = (ws: TestWorkspace, body: Record<string, unknown>) => ws.api('POST', '/v1/products', body);
const ok = async (ws: TestWorkspace, body: Record<string, unknown>) => {
  const res = await create(ws, body);
  expect(res.status).toBe(201);
  return res.body;
};
const expectDomain = (res: { status: number; body: any }, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
};
const expectShape400 = (res: { status: number; body: any }) => {
  expect(res.status).toBe(400);
  expect(res.body.statusCode).toBe(400);
  expect(Array.isArray(res.body.message) || typeof res.body.message === 'string').toBe(true);
};

describe('POST /v1/products', () => {
  it('creates with defaults and stores price as cents', async () => {
    const ws = await makeWorkspace();
    const res = await create(ws, { name: 'Widget', price: 12.345 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Widget',
      workspace_id: ws.id,
      sku: null,
      external_id: null,
      description: null,
      price: 12.35,
      vat_mode: null,
      vat_rate: null,
      is_active: true,
      created_by: null,
      duplicate: false,
    });
    expect(res.body.id).toMatch(uuidRe);
    expect((await ws.api('GET', `/v1/products/${res.body.id}`)).body.price).toBe(12.35);
  });

  it('accepts a null price (dynamic pricing) and rejects a negative one', async () => {
    const ws = await makeWorkspace();
    expect((await ok(ws, { name: 'Dyn', price: null })).price).toBeNull();
    expectShape400(await create(ws, { name: 'Neg', price: -0.01 }));
    expect((await ok(ws, { name: 'Free', price: 0 })).price).toBe(0);
  });

  it('validates name, sku, external_id and description bounds', async () => {
    const ws = await makeWorkspace();
    expectShape400(await create(ws, {}));
    expectShape400(await create(ws, { name: '' }));
    expectShape400(await create(ws, { name: 'x'.repeat(201) }));
    expect((await ok(ws, { name: 'x'.repeat(200) })).name).toHaveLength(200);
    expectShape400(await create(ws, { name: 'a', sku: 's'.repeat(101) }));
    expectShape400(await create(ws, { name: 'a', external_id: 'e'.repeat(201) }));
    expectShape400(await create(ws, { name: 'a', description: 'd'.repeat(2001) }));
    await ok(ws, { name: 'a', sku: 's'.repeat(100), external_id: 'e'.repeat(200), description: 'd'.repeat(2000) });
  });

  it('rejects unknown properties in the framework shape', async () => {
    const ws = await makeWorkspace();
    const res = await create(ws, { name: 'a', colour: 'red' });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(['property colour should not exist']);
  });

  it('takes the VAT pair both-or-neither', async () => {
    const ws = await makeWorkspace();
    expectShape400(await create(ws, { name: 'a', vat_mode: 'inclusive' }));
    expectShape400(await create(ws, { name: 'a', vat_rate: 17 }));
    expectShape400(await create(ws, { name: 'a', vat_mode: 'inclusive', vat_rate: null }));
    const p = await ok(ws, { name: 'a', vat_mode: 'inclusive', vat_rate: 17.5 });
    expect(p).toMatchObject({ vat_mode: 'inclusive', vat_rate: 17.5 });
    expect(await ok(ws, { name: 'b', vat_mode: null, vat_rate: null })).toMatchObject({ vat_mode: null, vat_rate: null });
  });

  it('bounds vat_rate to 0..100 with at most 2 decimals', async () => {
    const ws = await makeWorkspace();
    expectShape400(await create(ws, { name: 'a', vat_mode: 'exclusive', vat_rate: 100.01 }));
    expectShape400(await create(ws, { name: 'a', vat_mode: 'exclusive', vat_rate: -1 }));
    expectShape400(await create(ws, { name: 'a', vat_mode: 'exclusive', vat_rate: 7.125 }));
    expect((await ok(ws, { name: 'a', vat_mode: 'exclusive', vat_rate: 7.25 })).vat_rate).toBe(7.25);
    expect((await ok(ws, { name: 'b', vat_mode: 'exclusive', vat_rate: 100 })).vat_rate).toBe(100);
  });

  it('upserts by external_id: 201 both ways, only sent fields change', async () => {
    const ws = await makeWorkspace();
    const first = await ok(ws, { name: 'Plan', external_id: 'ext-1', sku: 'P1', price: 10, description: 'keep me' });
    expect(first.duplicate).toBe(false);
    const second = await create(ws, { name: 'Plan v2', external_id: 'ext-1', price: 20 });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ id: first.id, duplicate: true, name: 'Plan v2', price: 20, sku: 'P1', description: 'keep me' });
    const list = await ws.api('GET', '/v1/products');
    expect(list.body.total).toBe(1);
  });

  it('parallel creates with one external_id give one product', async () => {
    const ws = await makeWorkspace();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => create(ws, { name: `P${i}`, external_id: 'same' })));
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(results.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    expect((await ws.api('GET', '/v1/products?external_id=same')).body.total).toBe(1);
  });

  it('answers 409 product_conflict on a sku or external_id clash, also under parallel creates', async () => {
    const ws = await makeWorkspace();
    const a = await ok(ws, { name: 'A', sku: 'SKU-1', external_id: 'ea' });
    await ok(ws, { name: 'B', sku: 'SKU-2', external_id: 'eb' });
    expectDomain(await create(ws, { name: 'C', sku: 'SKU-1' }), 409, 'product_conflict');
    // the upsert target matches, but the new sku belongs to another product
    expectDomain(await create(ws, { name: 'A', external_id: 'ea', sku: 'SKU-2' }), 409, 'product_conflict');
    expectDomain(await ws.api('PATCH', `/v1/products/${a.id}`, { external_id: 'eb' }), 409, 'product_conflict');
    expectDomain(await ws.api('PATCH', `/v1/products/${a.id}`, { sku: 'SKU-2' }), 409, 'product_conflict');

    const racing = await Promise.all(Array.from({ length: 5 }, (_, i) => create(ws, { name: `R${i}`, sku: 'RACE' })));
    expect(racing.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of racing.filter((r) => r.status !== 201)) expectDomain(r, 409, 'product_conflict');
  });

  it('keeps sku and external_id unique per workspace only', async () => {
    const one = await makeWorkspace();
    const two = await makeWorkspace();
    const a = await ok(one, { name: 'A', sku: 'S', external_id: 'E' });
    const b = await ok(two, { name: 'B', sku: 'S', external_id: 'E' });
    expect(b.duplicate).toBe(false);
    expect(b.id).not.toBe(a.id);
  });
});

describe('PATCH /v1/products/{id}', () => {
  it('changes only present fields and clears the VAT pair with both null', async () => {
    const ws = await makeWorkspace();
    const p = await ok(ws, { name: 'A', sku: 'S', price: 5, vat_mode: 'inclusive', vat_rate: 10, description: 'd' });
    const res = await ws.api('PATCH', `/v1/products/${p.id}`, { price: 7.5 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'A', sku: 'S', price: 7.5, vat_mode: 'inclusive', vat_rate: 10, description: 'd', is_active: true });
    expect(res.body).not.toHaveProperty('duplicate');
    const cleared = await ws.api('PATCH', `/v1/products/${p.id}`, { vat_mode: null, vat_rate: null, is_active: false, price: null });
    expect(cleared.body).toMatchObject({ vat_mode: null, vat_rate: null, is_active: false, price: null });
    expectShape400(await ws.api('PATCH', `/v1/products/${p.id}`, { vat_rate: 5 }));
    expectShape400(await ws.api('PATCH', `/v1/products/${p.id}`, { name: '' }));
    expectShape400(await ws.api('PATCH', `/v1/products/${p.id}`, { nope: 1 }));
    expect((await ws.api('GET', `/v1/products/${p.id}`)).body).toMatchObject({ is_active: false, name: 'A' });
  });

  it('answers 404 product_not_found for unknown and foreign ids, 400 for a non-UUID', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const foreign = await ok(other, { name: 'theirs' });
    expectDomain(await ws.api('PATCH', `/v1/products/${foreign.id}`, { name: 'mine' }), 404, 'product_not_found');
    expectDomain(await ws.api('GET', `/v1/products/${foreign.id}`), 404, 'product_not_found');
    expectDomain(await ws.api('GET', `/v1/products/${crypto.randomUUID()}`), 404, 'product_not_found');
    expect((await ws.api('GET', '/v1/products/nope')).status).toBe(400);
    expect((await other.api('GET', `/v1/products/${foreign.id}`)).body.name).toBe('theirs');
  });

  it('has no DELETE route', async () => {
    const ws = await makeWorkspace();
    const p = await ok(ws, { name: 'A' });
    expect((await ws.api('DELETE', `/v1/products/${p.id}`)).status).toBe(404);
    expect((await ws.api('GET', `/v1/products/${p.id}`)).status).toBe(200);
  });
});

describe('GET /v1/products', () => {
  it('lists newest first in the list envelope, scoped to the workspace', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    await ok(other, { name: 'foreign' });
    const names: string[] = [];
    for (const name of ['first', 'second', 'third']) {
      await ok(ws, { name });
      names.unshift(name);
      await new Promise((r) => setTimeout(r, 3));
    }
    const res = await ws.api('GET', '/v1/products');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(res.body.data.map((p: any) => p.name)).toEqual(names);
    const page = await ws.api('GET', '/v1/products?limit=1&offset=1');
    expect(page.body).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.body.data.map((p: any) => p.name)).toEqual(['second']);
    expect((await ws.api('GET', '/v1/products?limit=0')).body).toMatchObject({ data: [], total: 3, limit: 0 });
    expect((await ws.api('GET', '/v1/products?limit=9999')).body.limit).toBe(500);
  });

  it('rejects malformed paging', async () => {
    const ws = await makeWorkspace();
    for (const q of ['limit=-1', 'limit=abc', 'offset=-2', 'offset=1.5']) {
      const res = await ws.api('GET', `/v1/products?${q}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^Invalid (limit|offset): must be a non-negative integer$/);
    }
  });

  it('filters by q literally and case-insensitively over name and description', async () => {
    const ws = await makeWorkspace();
    await ok(ws, { name: 'Blue Widget' });
    await ok(ws, { name: 'Gadget', description: 'pairs with any WIDGET' });
    await ok(ws, { name: '100% cotton' });
    await ok(ws, { name: 'snake_case' });
    await ok(ws, { name: 'snakeXcase 1000 cotton' });
    const q = async (term: string) => (await ws.api('GET', `/v1/products?q=${encodeURIComponent(term)}`)).body.data.map((p: any) => p.name).sort();
    expect(await q('widget')).toEqual(['Blue Widget', 'Gadget']);
    expect(await q('0% c')).toEqual(['100% cotton']);
    expect(await q('%')).toEqual(['100% cotton']);
    expect(await q('e_c')).toEqual(['snake_case']);
    expect(await q('_')).toEqual(['snake_case']);
    await ok(ws, { name: 'Ärger CAFÉ' });
    expect(await q('Ärger CAFÉ')).toEqual(['Ärger CAFÉ']);
    expect(await q('cafÉ')).toEqual(['Ärger CAFÉ']);
  });

  it('filters by sku, external_id and is_active, combined with AND', async () => {
    const ws = await makeWorkspace();
    await ok(ws, { name: 'A', sku: 'SA', external_id: 'EA' });
    const b = await ok(ws, { name: 'B', sku: 'SB', external_id: 'EB', is_active: false });
    await ok(ws, { name: 'C', is_active: false });
    const names = async (qs: string) => (await ws.api('GET', `/v1/products?${qs}`)).body.data.map((p: any) => p.name).sort();
    expect(await names('sku=SA')).toEqual(['A']);
    expect(await names('sku=sa')).toEqual([]);
    expect(await names('external_id=EB')).toEqual(['B']);
    expect(await names('is_active=false')).toEqual(['B', 'C']);
    expect(await names('is_active=true')).toEqual(['A']);
    expect(await names('is_active=false&sku=SB')).toEqual(['B']);
    expect(await names('is_active=true&sku=SB')).toEqual([]);
    expect(b.is_active).toBe(false);
    for (const bad of ['1', 'TRUE', 'yes', '']) {
      const res = await ws.api('GET', `/v1/products?is_active=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe('Invalid is_active: must be true or false');
    }
  });
});

describe('product ids in any letter case', () => {
  it('GET and PATCH find the product by an upper-case id', async () => {
    const ws = await makeWorkspace();
    const product = await ok(ws, { name: 'Case' });
    const got = await ws.api('GET', `/v1/products/${product.id.toUpperCase()}`);
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(product.id);
    const patched = await ws.api('PATCH', `/v1/products/${product.id.toUpperCase()}`, { name: 'Renamed' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: product.id, name: 'Renamed' });
  });
});
