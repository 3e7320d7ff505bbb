import { describe, expect, it } from 'vitest';
import { admin, call, eventually, makeWorkspace } from '../support/harness';

describe('request log', () => {
  it('records authenticated requests that reach an endpoint, never bodies, newest first', async () => {
    const ws = await makeWorkspace();
    await ws.api('GET', '/v1/pipelines', undefined, { headers: { 'user-agent': 'shop-sync/2.1' } });
    await ws.api('GET', '/v1/no-such-route');
    await call('GET', '/v1/pipelines', { key: 'wsk_invalid' });
    const log = await eventually(
      () => admin('GET', `/workspaces/${ws.id}/request-log`),
      (r) => r.body.data.length >= 1,
    );
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ method: 'GET', path: '/v1/pipelines', status: 200, ip: ws.ip, user_agent: 'shop-sync/2.1' });
    expect(log.body.data[0].duration_ms).toEqual(expect.any(Number));
    expect(Object.keys(log.body.data[0]).sort()).toEqual([
      'created_at',
      'duration_ms',
      'id',
      'ip',
      'method',
      'path',
      'request_id',
      'status',
      'user_agent',
    ]);
  });

  it('records error statuses of matched routes', async () => {
    const ws = await makeWorkspace({ features: [] });
    const res = await ws.api('GET', '/v1/pipelines');
    expect(res.status).toBe(403);
    const log = await eventually(
      () => admin('GET', `/workspaces/${ws.id}/request-log?limit=5`),
      (r) => r.body.data.length >= 1,
    );
    expect(log.body.data[0]).toMatchObject({ path: '/v1/pipelines', status: 403 });
  });
});
