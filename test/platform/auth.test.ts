import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { admin, adminOk, call, freshIp, makeWorkspace } from '../support/harness';

describe('authentication', () => {
  it('answers 401 Missing API key without a Bearer header', async () => {
    for (const headers of [
      {} as Record<string, string>,
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer' },
      { authorization: 'Token wsk_abc' },
    ]) {
      const res = await call('GET', '/v1/pipelines', { headers, ip: freshIp() });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ statusCode: 401, message: 'Missing API key', error: 'Unauthorized' });
    }
  });

  it('says in WWW-Authenticate that an Authorization header without the Bearer scheme must use it, the message as the contract writes it', async () => {
    const ws = await makeWorkspace();
    const scheme = 'Bearer error="invalid_request", error_description="Authorization header must use the Bearer scheme"';
    for (const authorization of [ws.key, `Basic ${btoa(`user:${ws.key}`)}`, `Token ${ws.key}`, `Bearer:${ws.key}`]) {
      const res = await call('GET', '/v1/pipelines', { headers: { authorization }, ip: freshIp() });
      expect([res.status, res.body, res.headers.get('www-authenticate')], authorization).toEqual([
        401,
        { statusCode: 401, message: 'Missing API key', error: 'Unauthorized' },
        scheme,
      ]);
    }
    // No header, or the scheme without a key: the key is what is missing.
    for (const headers of [{} as Record<string, string>, { authorization: 'Bearer' }, { authorization: 'bearer  ' }]) {
      const res = await call('GET', '/v1/pipelines', { headers, ip: freshIp() });
      expect([res.status, res.body.message, res.headers.get('www-authenticate')]).toEqual([401, 'Missing API key', null]);
    }
    expect((await call('GET', '/v1/pipelines', { headers: { authorization: `bearer ${ws.key}` }, ip: freshIp() })).status).toBe(200);
  });

  it('answers 401 Invalid API key for malformed, unknown and revoked keys alike', async () => {
    const ws = await makeWorkspace();
    const unknown = `wsk_${'A'.repeat(43)}`;
    for (const key of ['not-a-key', unknown, 'wsk_short']) {
      const res = await call('GET', '/v1/pipelines', { key, ip: freshIp() });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ statusCode: 401, message: 'Invalid API key', error: 'Unauthorized' });
    }
    expect((await ws.api('GET', '/v1/pipelines')).status).toBe(200);
    const revoked = await admin('POST', `/api-keys/${ws.keyId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    const after = await ws.api('GET', '/v1/pipelines');
    expect(after.status).toBe(401);
    expect(after.body.message).toBe('Invalid API key');
  });

  it('issues high-entropy prefixed keys and stores only their SHA-256 hash', async () => {
    const ws = await makeWorkspace();
    expect(ws.key).toMatch(/^wsk_[A-Za-z0-9_-]{43}$/);
    const row = await env.DB.prepare('SELECT * FROM api_keys WHERE id = ?').bind(ws.keyId).first<Record<string, string>>();
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(ws.key)));
    const hex = Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
    expect(row?.key_hash).toBe(hex);
    expect(JSON.stringify(row)).not.toContain(ws.key);
  });

  it('answers 403 in the framework shape when the plan has no API access', async () => {
    const ws = await makeWorkspace({ api_access: false });
    const res = await ws.api('GET', '/v1/pipelines');
    expect(res.status).toBe(403);
    expect(res.body.statusCode).toBe(403);
    expect(res.body.error).toBe('Forbidden');
    expect(res.body.message).toMatch(/REST API requires a plan with API access/);
    await adminOk('PATCH', `/workspaces/${ws.id}`, { api_access: true });
    expect((await ws.api('GET', '/v1/pipelines')).status).toBe(200);
  });
});
