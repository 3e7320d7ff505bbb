import { describe, expect, it } from 'vitest';
import { call, makeWorkspace } from '../support/harness';

describe('smoke', () => {
  it('serves pipelines for a workspace key', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('GET', '/v1/pipelines');
    expect(res.status).toBe(200);
    expect(res.body[0].stages.map((s: any) => s.name)).toEqual(['New', 'Qualified', 'Won']);
    const anon = await call('GET', '/v1/pipelines');
    expect(anon.status).toBe(401);
  });
});
