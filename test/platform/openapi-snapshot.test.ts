import { describe, expect, it } from 'vitest';
import { call } from '../support/harness';

/**
 * openapi.json at the repository root is the committed copy of the document the
 * Worker serves at /v1/openapi.json; the typed client (client/) is generated from
 * it. A change to the document fails here until `npm run openapi:write` refreshes
 * the copy (and the client types) in the same commit.
 */
describe('openapi.json snapshot', () => {
  it('matches the document the Worker serves', async () => {
    const res = await call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    await expect(`${JSON.stringify(res.body, null, 2)}\n`, 'openapi.json is stale: run npm run openapi:write').toMatchFileSnapshot(
      '../../openapi.json',
    );
  });

  it('openapi.operator.json matches the operator API document the Worker serves', async () => {
    const res = await call('GET', '/admin/v1/openapi.json');
    expect(res.status).toBe(200);
    await expect(`${JSON.stringify(res.body, null, 2)}\n`, 'openapi.operator.json is stale: run npm run openapi:write').toMatchFileSnapshot(
      '../../openapi.operator.json',
    );
  });
});
