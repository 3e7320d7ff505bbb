import { describe, expect, it } from 'vitest';
import { makeWorkspace, uuidRe } from '../support/harness';
import { rowOnShards } from '../support/db';

const DEFAULTS = ['email.delivered', 'email.bounced', 'email.complained'];

describe('POST /v1/webhook-endpoints', () => {
  it('registers with the default email events and returns a whsec_ secret once', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com/hooks' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(uuidRe),
      url: 'https://example.com/hooks',
      events: DEFAULTS,
      is_active: true,
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
    });
    expect(atob(res.body.secret.slice('whsec_'.length)).length).toBeGreaterThanOrEqual(24);
    const stored = await rowOnShards<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = ?', res.body.id);
    expect(stored?.secret).toBe(res.body.secret);
  });

  it('echoes explicit events, including the deprecated email.failed, without duplicates', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('POST', '/v1/webhook-endpoints', {
      url: 'http://example.com/a',
      events: ['contact.created', 'email.failed', 'contact.created'],
    });
    expect(res.status).toBe(201);
    expect(res.body.events).toEqual(['contact.created', 'email.failed']);
  });

  it('rejects an empty or unknown events list and request-shape violations with the framework 400', async () => {
    const ws = await makeWorkspace();
    for (const body of [
      { url: 'https://example.com', events: [] },
      { url: 'https://example.com', events: ['contact.exploded'] },
      { url: 'https://example.com', events: ['booking.completed'] },
      { url: 'https://example.com', extra: true },
      { url: '' },
      { url: `https://example.com/${'a'.repeat(2040)}` },
      {},
    ]) {
      const res = await ws.api('POST', '/v1/webhook-endpoints', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.statusCode).toBe(400);
      expect(Array.isArray(res.body.message)).toBe(true);
    }
    const ok = await ws.api('POST', '/v1/webhook-endpoints', { url: `https://example.com/${'a'.repeat(2048 - 20)}` });
    expect(ok.status).toBe(201);
  });

  it.each([
    'ftp://example.com/hook',
    'javascript:alert(1)',
    'not a url',
    'http://localhost/hook',
    'http://api.localhost:8080/hook',
    'http://127.0.0.1/hook',
    'http://127.1/hook',
    'http://2130706433/hook',
    'http://0x7f000001/hook',
    'http://0177.0.0.1/hook',
    'http://10.0.0.5/hook',
    'http://172.16.3.4/hook',
    'http://192.168.1.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://224.0.0.1/hook',
    'http://240.0.0.1/hook',
    'http://255.255.255.255/hook',
    'http://[::1]/hook',
    'http://[::]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:a9fe:a9fe]/hook',
    'http://[fc00::1]/hook',
    'http://[fd12:3456::1]/hook',
    'http://[fe80::1]/hook',
    'http://[ff02::1]/hook',
    'http://[64:ff9b::a00:1]/hook',
    'http://[2002:c0a8:0101::1]/hook',
    'https://user:pass@example.com/hook',
    'https://user@example.com/hook',
    'http://intranet/hook',
  ])('refuses %s with unsafe_url', async (url) => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const res = await ws.api('POST', '/v1/webhook-endpoints', { url });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('unsafe_url');
    expect(typeof res.body.error.message).toBe('string');
  });

  it.each(['https://hooks.example.com/x', 'http://8.8.8.8/hook', 'https://[2606:4700::1111]/hook', 'https://example.com:8443/h?q=1'])(
    'accepts the public target %s',
    async (url) => {
      const ws = await makeWorkspace({}, { pipeline: false });
      const res = await ws.api('POST', '/v1/webhook-endpoints', { url });
      expect(res.status).toBe(201);
    },
  );

  it('allows at most 3 endpoints, exactly 3 of 8 parallel registrations succeed', async () => {
    const ws = await makeWorkspace();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ws.api('POST', '/v1/webhook-endpoints', { url: `https://example.com/${i}` })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 409, 409, 409, 409, 409]);
    for (const r of results.filter((r) => r.status === 409)) {
      expect(r.body.error.code).toBe('endpoint_limit_reached');
    }
    const list = await ws.api('GET', '/v1/webhook-endpoints');
    expect(list.body.data).toHaveLength(3);
  });

  it('frees a slot on delete', async () => {
    const ws = await makeWorkspace();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await ws.api('POST', '/v1/webhook-endpoints', { url: `https://example.com/${i}` })).body.id);
    expect((await ws.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com/4' })).status).toBe(409);
    expect((await ws.api('DELETE', `/v1/webhook-endpoints/${ids[1]}`)).status).toBe(204);
    expect((await ws.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com/4' })).status).toBe(201);
  });
});

describe('GET /v1/webhook-endpoints', () => {
  it('lists the workspace endpoints without secrets, never another workspace', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const created = await ws.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com/mine', events: ['deal.won'] });
    await other.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com/theirs' });
    const res = await ws.api('GET', '/v1/webhook-endpoints');
    expect(res.status).toBe(200);
    const { secret, ...withoutSecret } = created.body;
    expect(secret).toBeDefined();
    expect(res.body).toEqual({ data: [withoutSecret] });
    expect(JSON.stringify(res.body)).not.toContain('whsec_');
  });
});

describe('DELETE /v1/webhook-endpoints/{id}', () => {
  it('deletes with 204 and no body; unknown, foreign and malformed ids are endpoint_not_found', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const mine = (await ws.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com/a' })).body;
    const theirs = (await other.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com/b' })).body;

    for (const id of [theirs.id, '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c', 'not-a-uuid', '123']) {
      const res = await ws.api('DELETE', `/v1/webhook-endpoints/${id}`);
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual({ error: { code: 'endpoint_not_found', message: 'Webhook endpoint not found' } });
    }
    expect((await other.api('GET', '/v1/webhook-endpoints')).body.data).toHaveLength(1);

    const res = await ws.api('DELETE', `/v1/webhook-endpoints/${mine.id}`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect((await ws.api('GET', '/v1/webhook-endpoints')).body.data).toEqual([]);
    expect((await ws.api('DELETE', `/v1/webhook-endpoints/${mine.id}`)).status).toBe(404);
  });
});
