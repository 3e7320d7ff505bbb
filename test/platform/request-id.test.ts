import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { renderError } from '../../src/platform/errors';
import { requestIds } from '../../src/platform/request-id';
import { admin, call, eventually, makeWorkspace, type ApiResponse } from '../support/harness';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NIL = '00000000-0000-7000-8000-000000000000';

const idOf = (res: ApiResponse) => {
  const id = res.headers.get('x-request-id');
  expect(id).toMatch(UUID_V7);
  return id!;
};

describe('X-Request-Id', () => {
  it('is on every answer, fresh for each request, and never in a contract body', async () => {
    const ws = await makeWorkspace();
    const answers: [string, ApiResponse, number][] = [
      ['2xx', await ws.api('GET', '/v1/pipelines'), 200],
      ['2xx again', await ws.api('GET', '/v1/pipelines'), 200],
      ['framework 4xx', await ws.api('GET', `/v1/deals/${NIL}`), 404],
      ['domain 4xx', await ws.api('GET', `/v1/products/${NIL}`), 404],
      [
        'request-shape 4xx',
        await ws.api('POST', '/v1/pipelines', undefined, { rawBody: '{"a":', headers: { 'content-type': 'application/json' } }),
        400,
      ],
      ['401 before any key', await call('GET', '/v1/pipelines'), 401],
      ['unknown route', await ws.api('GET', '/v1/no-such-route'), 404],
      ['home page', await call('GET', '/', { headers: { accept: 'text/html' } }), 200],
      ['hosted page', await call('GET', '/pay/nothing'), 404],
      ['provider webhook', await call('GET', '/providers/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=wrong'), 403],
      ['operator API', await admin('GET', `/workspaces/${NIL}`), 404],
    ];
    const ids = answers.map(([name, res, status]) => {
      expect(res.status, name).toBe(status);
      if (typeof res.body === 'object' && res.body !== null) expect(JSON.stringify(res.body), name).not.toContain('request_id');
      return idOf(res);
    });
    expect(new Set(ids).size).toBe(ids.length);
    expect(answers[2][1].body).toEqual({ statusCode: 404, message: 'Deal not found', error: 'Not Found' });
    expect(answers[3][1].body).toEqual({ error: { code: 'product_not_found', message: 'Product not found' } });
  });

  it('is recorded with the request in the request log', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('GET', '/v1/pipelines');
    const log = await eventually(
      () => admin('GET', `/workspaces/${ws.id}/request-log`),
      (r) => r.body.data.length >= 1,
    );
    expect(log.body.data[0]).toMatchObject({ path: '/v1/pipelines', request_id: idOf(res) });
  });
});

describe('an unexpected error', () => {
  it('answers 500 with the request id in the body and the header, and logs it, nothing of the cause', async () => {
    const app = new Hono();
    app.use('*', requestIds);
    app.onError(renderError);
    app.get('/boom', () => {
      throw new Error('D1_ERROR: no such table: secrets (at db.ts:42)');
    });
    const logged: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => logged.push(args);
    let res: Response;
    try {
      res = await app.request('/boom');
    } finally {
      console.error = original;
    }
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(UUID_V7);
    const body = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(body)).toEqual({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error', request_id: id });
    expect(body).not.toContain('D1_ERROR');
    expect(logged).toHaveLength(1);
    expect(logged[0].slice(0, 4)).toEqual(['unhandled error', 'GET', '/boom', `request_id=${id}`]);
  });
});
