import { env, exports } from 'cloudflare:workers';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { buildApp } from '../../src/app';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, admin, call, makeWorkspace } from '../support/harness';

describe('HTTP conventions', () => {
  it('refuses CORS preflights and never sends Access-Control-Allow-Origin', async () => {
    const ws = await makeWorkspace();
    const preflight = await call('OPTIONS', '/v1/pipelines', {
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    const browser = await ws.api('GET', '/v1/pipelines', undefined, { headers: { origin: 'https://shop.example' } });
    expect(browser.status).toBe(200);
    expect(browser.headers.get('access-control-allow-origin')).toBeNull();
    const server = await ws.api('GET', '/v1/pipelines');
    expect(server.status).toBe(200);
  });

  it('answers unknown routes with a framework-shape 404', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('compiles every route into one regular expression (the router never falls back to walking a tree)', async () => {
    const app = buildApp();
    const router = new RegExpRouter<unknown>();
    for (const route of app.routes) router.add(route.method, route.path, route.handler);
    expect(() => router.match('GET', '/v1/pipelines')).not.toThrow();
    const res = await app.request('/v1/pipelines', {}, env, {
      waitUntil: () => undefined,
      passThroughOnException: () => undefined,
      props: {},
    } as unknown as ExecutionContext);
    expect(res.status).toBe(401);
    expect(app.router.name).toBe('SmartRouter + RegExpRouter');
  });

  it('rejects malformed JSON with 400 and a non-JSON body with 415', async () => {
    const ws = await makeWorkspace();
    const malformed = await ws.api('POST', '/v1/pipelines', undefined, { rawBody: '{"a":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ statusCode: 400, message: 'Malformed JSON in request body', error: 'Bad Request' });
    const form = await ws.api('POST', '/v1/pipelines', undefined, {
      rawBody: 'a=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect(form.body.statusCode).toBe(415);
  });

  it('hands every reader of a body the body as checked: the validator, the Idempotency-Key fingerprint, an empty body as {}', async () => {
    const ws = await makeWorkspace();
    // An earlier reader (the fingerprint) reads the body first: an empty one is still missing where a body is required.
    const keyed = await ws.api('POST', '/v1/products', undefined, { rawBody: '', headers: { 'idempotency-key': 'empty-body' } });
    expect([keyed.status, keyed.body.message]).toEqual([400, ['Request body is required']]);
    const typed = await ws.api('POST', '/v1/contacts', undefined, {
      rawBody: ' ',
      headers: { 'content-type': 'text/plain', 'idempotency-key': 'blank-body' },
    });
    expect(typed.status).toBe(201);
    const body = JSON.stringify({ name: 'Ångström \u{1F600}', sku: 'BODY-1', price: 12.5 });
    const first = await ws.api('POST', '/v1/products', undefined, {
      rawBody: body,
      headers: { 'content-type': 'application/json; charset=utf-8', 'idempotency-key': 'same-body' },
    });
    expect([first.status, first.body.name, first.body.price]).toEqual([201, 'Ångström \u{1F600}', 12.5]);
    const again = await ws.api('POST', '/v1/products', undefined, {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'same-body' },
    });
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.id]).toEqual([201, 'true', first.body.id]);
  });

  it('takes application/json alone, or with charset=utf-8, and refuses other media types, other charsets and a byte order mark', async () => {
    const ws = await makeWorkspace();
    const post = (contentType: string, rawBody = '{"name":"Typed"}') =>
      ws.api('POST', '/v1/contacts', undefined, { rawBody, headers: { 'content-type': contentType } });
    for (const accepted of ['application/json', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"']) {
      expect((await post(accepted)).status, accepted).toBe(201);
    }
    for (const refused of [
      'application/vnd.api+json',
      'application/merge-patch+json',
      'application/json; charset=utf-16',
      'application/json; charset=latin1',
      'application/json; charset=utf-8; q=1',
      'application/json; version=2',
      'text/json',
    ]) {
      const res = await post(refused);
      expect([res.status, res.body], refused).toEqual([
        415,
        { statusCode: 415, message: 'Content-Type must be application/json', error: 'Unsupported Media Type' },
      ]);
    }
    const marked = await post('application/json', '\uFEFF{"name":"Marked"}');
    expect([marked.status, marked.body]).toEqual([400, { statusCode: 400, message: 'Malformed JSON in request body', error: 'Bad Request' }]);
    // The operator API reads its bodies through the same check.
    const operator = await call('POST', '/admin/v1/workspaces', {
      key: ADMIN_TOKEN,
      rawBody: '{"name":"Typed"}',
      headers: { 'content-type': 'application/json; charset=utf-16' },
    });
    expect(operator.status).toBe(415);
  });

  it("refuses a query parameter a route does not declare, in the route's error shape, and takes the ones it declares", async () => {
    const ws = await makeWorkspace();
    const guessed = await ws.api('GET', '/v1/contacts?email=alan@example.com');
    expect([guessed.status, guessed.body]).toEqual([
      400,
      { statusCode: 400, message: ['query parameter email is not accepted here'], error: 'Bad Request' },
    ]);
    expect((await ws.api('GET', '/v1/contacts?limit=5&search=alan')).status).toBe(200);
    const none = await ws.api('GET', '/v1/pipelines?limit=5');
    expect(none.body.message).toEqual(['query parameter limit is not accepted here']);
    // Where every error answers the domain envelope, so does this one.
    const envelope = await ws.api('GET', '/v1/suppressions?emails=a@example.com');
    expect([envelope.status, envelope.body.error.code]).toEqual([400, 'invalid_request']);
    expect(envelope.body.error.message).toContain('query parameter emails is not accepted here');
  });

  it('refuses a query parameter an operator route does not declare, in the operator shape, and takes the ones it declares', async () => {
    const ws = await makeWorkspace();
    const refused = (name: string) => [400, { statusCode: 400, message: [`query parameter ${name} is not accepted here`], error: 'Bad Request' }];
    const typo = await admin('GET', `/workspaces/${ws.id}/request-log?limt=5`);
    expect([typo.status, typo.body]).toEqual(refused('limt'));
    const guessed = await admin('GET', `/moves?workspace=${ws.id}`);
    expect([guessed.status, guessed.body]).toEqual(refused('workspace'));
    const none = await admin('GET', `/workspaces/${ws.id}?fields=name`);
    expect([none.status, none.body]).toEqual(refused('fields'));
    // A route whose own errors answer the domain envelope answers request-shape violations in the framework shape, as its body checks do.
    const snippet = await call('POST', `/admin/v1/workspaces/${ws.id}/snippets?dry_run=true`, {
      key: ADMIN_TOKEN,
      body: { name: 'S', markdown: 'x' },
    });
    expect([snippet.status, snippet.body]).toEqual(refused('dry_run'));
    const both = await admin('GET', `/workspaces/${ws.id}/outbox?channel=email&chanel=sms&limit=1&page=2`);
    expect(both.body.message).toEqual(['query parameter chanel is not accepted here', 'query parameter page is not accepted here']);
    expect((await admin('GET', `/workspaces/${ws.id}/request-log?limit=5`)).status).toBe(200);
    expect((await admin('GET', `/moves?workspace_id=${ws.id}&limit=5`)).status).toBe(200);
    expect((await admin('GET', `/workspaces/${ws.id}/outbox?channel=email&to=a@example.com&limit=1`)).status).toBe(200);
  });

  it("refuses a paging integer not written plainly, on /v1 and /admin/v1, in the route's error shape", async () => {
    const ws = await makeWorkspace();
    const message = 'Invalid limit: must be a non-negative integer';
    for (const raw of ['0x10', '1e1', '%205', '5%20', '%2B5', '05', '9223372036854775808']) {
      const list = await ws.api('GET', `/v1/contacts?limit=${raw}`);
      expect([list.status, list.body], raw).toEqual([400, { statusCode: 400, message, error: 'Bad Request' }]);
      const offset = await ws.api('GET', `/v1/deals?offset=${raw}`);
      expect([offset.status, offset.body.message], raw).toEqual([400, 'Invalid offset: must be a non-negative integer']);
      const envelope = await ws.api('GET', `/v1/suppressions?limit=${raw}`);
      expect([envelope.status, envelope.body.error], raw).toEqual([400, { code: 'invalid_request', message }]);
      for (const path of [`/workspaces/${ws.id}/request-log`, `/workspaces/${ws.id}/outbox`, '/global-suppressions']) {
        const operator = await admin('GET', `${path}?limit=${raw}`);
        expect([operator.status, operator.body], `${path} ${raw}`).toEqual([400, { statusCode: 400, message, error: 'Bad Request' }]);
      }
      const exported = await admin('GET', `/workspaces/${ws.id}/contacts/${crypto.randomUUID()}/export?limit=${raw}`);
      expect([exported.status, exported.body.message], raw).toEqual([400, message]);
    }
    expect((await ws.api('GET', '/v1/contacts?limit=10&offset=0')).status).toBe(200);
    expect((await admin('GET', `/workspaces/${ws.id}/request-log?limit=0`)).status).toBe(200);
  });

  it('rejects a body that is not UTF-8 with 400', async () => {
    const ws = await makeWorkspace();
    const res = await (exports as any).default.fetch(
      new Request('https://api.test/v1/contacts', {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.key}`, 'content-type': 'application/json', 'cf-connecting-ip': ws.ip },
        body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      }),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ statusCode: 400, message: 'Request body is not valid UTF-8' });
  });

  it('has no DELETE routes beyond the four documented ones', async () => {
    const ws = await makeWorkspace();
    for (const path of [
      '/v1/contacts',
      '/v1/deals',
      '/v1/products',
      '/v1/payments',
      '/v1/orders',
      '/v1/campaigns',
      '/v1/tags',
      '/v1/contact-groups',
    ]) {
      const res = await ws.api('DELETE', `${path}/00000000-0000-7000-8000-000000000000`);
      expect(res.status, path).toBe(404);
    }
  });

  it('serves the OpenAPI document and the reference page without a key', async () => {
    const doc = await call('GET', '/v1/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(doc.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const page = await call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(String(page.body)).toContain('/v1/openapi.json');
  });
});

describe('unexpected errors', () => {
  it('answer a bare framework-shape 500 without internals, naming the request', async () => {
    const { Hono } = await import('hono');
    const { renderError } = await import('../../src/platform/errors');
    const app = new Hono();
    app.onError(renderError);
    app.get('/boom', () => {
      throw new Error('D1_ERROR: no such table: secrets (at db.ts:42)');
    });
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      const res = await app.request('/boom');
      expect(res.status).toBe(500);
      const body = await res.text();
      expect(JSON.parse(body)).toEqual({
        statusCode: 500,
        message: 'Internal server error',
        error: 'Internal Server Error',
        request_id: expect.any(String),
      });
      expect(body).not.toContain('D1_ERROR');
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
  });
});
