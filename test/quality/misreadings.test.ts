import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, call, makeWorkspace, type TestWorkspace } from '../support/harness';
import { bodyProperties, queryParameters } from '../support/openapi';
import { concretePath, placeholders, ROUTES, takesBody } from '../support/routes';

/**
 * Input the API must refuse rather than misread, on every route of the route
 * table: numbers a double cannot hold, control characters in free-text search.
 */
let ws: TestWorkspace;
const workspace = async () => (ws ??= await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } }, { bulk: true }));
const ANY_ID = '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c';
const json = { 'content-type': 'application/json' };

describe('numbers that overflow a double', () => {
  it.each(ROUTES.filter(takesBody).map((r) => [`${r.method} ${r.path}`, r] as const))('%s answers 400 naming the field', async (_, route) => {
    const w = await workspace();
    const [first = 'x'] = await bodyProperties(route);
    const valid = Object.entries(route.body ?? {}).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
    for (const [raw, field] of [
      [`{${[...valid, `"${first}":1e400`].join(',')}}`, first],
      [`{${[...valid, `"${first}":-1e400`].join(',')}}`, first],
      [`{${[...valid, `"${first}":[0,{"n":1e999}]`].join(',')}}`, `${first}[1].n`],
      ['1e400', ''],
    ]) {
      const res = await w.api(route.method, concretePath(route, ANY_ID), undefined, { rawBody: raw, headers: json });
      expect(res.status, `${raw} -> ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body).toMatchObject({
        statusCode: 400,
        error: 'Bad Request',
        message: [field ? `${field}: must be a finite number` : 'must be a finite number'],
      });
    }
  });

  it.each(ROUTES.filter((r) => r.method === 'GET' && placeholders(r.path).length === 0).map((r) => [r.path, r] as const))(
    'GET %s refuses them inside a filter',
    async (_, route) => {
      if (!(await queryParameters(route)).includes('filter')) return;
      const w = await workspace();
      for (const filter of ['{"custom_fields.n":1e400}', '{"$where":{"field":"created_at","op":"in","value":[1,-1e400]}}']) {
        const res = await w.api('GET', `${route.path}?filter=${encodeURIComponent(filter)}`);
        expect(res.status, filter).toBe(400);
        expect(res.body.message).toBe('Invalid filter: numbers must be finite');
      }
    },
  );

  it('never stores a product price of 1e400 as dynamic pricing', async () => {
    const w = await workspace();
    const res = await w.api('POST', '/v1/products', undefined, { rawBody: '{"name":"Overflow","price":1e400}', headers: json });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(['price: must be a finite number']);
    const list = await w.api('GET', '/v1/products?q=Overflow');
    expect(list.body.data).toEqual([]);
  });

  it('keeps the largest finite numbers to the field rules', async () => {
    const w = await workspace();
    const res = await w.api('POST', '/v1/products', undefined, { rawBody: '{"name":"Huge","price":1e308}', headers: json });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).not.toContain('finite');
  });
});

describe('unpaired UTF-16 surrogates', () => {
  const cases = (first: string, valid: string[]) => [
    [`{${[...valid, `"${first}":"\\ud800"`].join(',')}}`, `${first}: must not contain unpaired surrogates`],
    [`{${[...valid, `"${first}":"tail \\udfff"`].join(',')}}`, `${first}: must not contain unpaired surrogates`],
    [`{${[...valid, `"${first}":["ok",{"n":"a\\udc00b"}]`].join(',')}}`, `${first}[1].n: must not contain unpaired surrogates`],
    [`{${[...valid, `"${first}":{"a\\ud83db":1}`].join(',')}}`, `${first}.a\ufffdb: must not contain unpaired surrogates`],
    ['"\\ud800"', 'must not contain unpaired surrogates'],
  ];

  it.each(ROUTES.filter(takesBody).map((r) => [`${r.method} ${r.path}`, r] as const))('%s answers 400 naming the field', async (_, route) => {
    const w = await workspace();
    const [first = 'x'] = await bodyProperties(route);
    const valid = Object.entries(route.body ?? {}).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
    for (const [raw, message] of cases(first, valid)) {
      const res = await w.api(route.method, concretePath(route, ANY_ID), undefined, { rawBody: raw, headers: json });
      expect(res.status, `${raw} -> ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', message: [message] });
    }
  });

  it.each(ROUTES.filter((r) => r.method === 'GET' && placeholders(r.path).length === 0).map((r) => [r.path, r] as const))(
    'GET %s refuses them inside a filter',
    async (_, route) => {
      if (!(await queryParameters(route)).includes('filter')) return;
      const w = await workspace();
      for (const filter of ['{"name":"\\ud800"}', '{"$where":{"field":"name","op":"in","value":["a","b\\udc00"]}}', '{"a\\ud800":1}']) {
        const res = await w.api('GET', `${route.path}?filter=${encodeURIComponent(filter)}`);
        expect(res.status, filter).toBe(400);
        expect(res.body.message).toBe('Invalid filter: strings must not contain unpaired surrogates');
      }
    },
  );

  it('refuses them on operator routes too, and keeps paired surrogates (astral characters)', async () => {
    const w = await workspace();
    const path = `/admin/v1/workspaces/${w.id}/sender-profiles`;
    const body = (name: string) => `{"from_name":"${name}","from_email":"a@mail.example.com","domain_verified":true,"is_default":false}`;
    const refused = await call('POST', path, { key: ADMIN_TOKEN, rawBody: body('Shop \\ud83d'), headers: json });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toEqual(['from_name: must not contain unpaired surrogates']);
    const kept = await call('POST', path, { key: ADMIN_TOKEN, rawBody: body('Shop \\ud83d\\ude00'), headers: json });
    expect(kept.status).toBe(201);
    expect(kept.body.from_name).toBe('Shop 😀');
  });

  it('never stores a lone surrogate as replacement characters', async () => {
    const w = await workspace();
    const res = await w.api('POST', '/v1/contacts', undefined, {
      rawBody: `{"email":"${crypto.randomUUID()}@example.com","first_name":"Ad\\ud800a"}`,
      headers: json,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(['first_name: must not contain unpaired surrogates']);
  });
});

/** Free-text parameters of a list route (`search`, or `q` on products). */
const TEXT_SEARCH = ['search', 'q'];
const lists = ROUTES.filter((r) => r.method === 'GET' && placeholders(r.path).length === 0);

describe('control characters in free-text search', () => {
  it.each(lists.map((r) => [r.path, r] as const))('GET %s answers 400', async (_, route) => {
    const w = await workspace();
    const params = (await queryParameters(route)).filter((p) => TEXT_SEARCH.includes(p));
    for (const param of params) {
      for (const term of ['%00', 'a%00b', 'abc%00', '%01', 'ab%1Fcd', '%7F']) {
        const res = await w.api('GET', `${route.path}?${param}=${term}`);
        expect(res.status, `${param}=${term} -> ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.message).toBe(`Invalid ${param}: must not contain control characters`);
      }
    }
  });

  it('a NUL byte never matches every contact', async () => {
    const w = await makeWorkspace();
    await w.api('POST', '/v1/contacts', { name: 'Ada Lovelace', email: `${crypto.randomUUID()}@example.com` });
    for (const term of ['%00', 'x%00', 'xyz%00']) {
      const res = await w.api('GET', `/v1/contacts?search=${term}`);
      expect(res.status === 400 || res.body.total === 0, `${term} -> ${JSON.stringify(res.body).slice(0, 200)}`).toBe(true);
    }
  });
});
