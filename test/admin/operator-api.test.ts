import { env, exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { admin, adminOk, call, makeWorkspace } from '../support/harness';

describe('operator API access', () => {
  it('is invisible (404) when ADMIN_TOKEN is unset', async () => {
    const app = buildApp();
    const ctx = { waitUntil() {}, passThroughOnException() {}, props: {} } as unknown as ExecutionContext;
    const res = await app.fetch(
      new Request('https://api.test/admin/v1/workspaces', { method: 'POST', headers: { authorization: 'Bearer anything' } }),
      { ...env, ADMIN_TOKEN: undefined },
      ctx,
    );
    expect(res.status).toBe(404);
  });

  it('answers 401 on a wrong or missing token', async () => {
    expect((await call('POST', '/admin/v1/workspaces', { key: 'wrong', body: { name: 'x' } })).status).toBe(401);
    expect((await call('POST', '/admin/v1/workspaces', { body: { name: 'x' } })).status).toBe(401);
    expect(exports).toBeDefined();
  });
});

describe('workspaces', () => {
  it('creates with the documented defaults and nothing else', async () => {
    const ws = await adminOk('POST', '/workspaces', { name: 'Acme' });
    expect(ws).toMatchObject({
      name: 'Acme',
      timezone: 'UTC',
      default_country: 'US',
      currency: 'USD',
      api_access: true,
      lead_scoring: false,
      caps: {},
      rate_limits: {},
      whatsapp_phone_number_id: ws.id,
      vat: { mode: 'exclusive', rate: 0 },
    });
    expect(ws.features).toEqual(['deals', 'payments', 'workspace_payments', 'orders', 'campaigns', 'booking', 'email_marketing', 'newsletters']);
    const key = await adminOk('POST', `/workspaces/${ws.id}/api-keys`, { name: 'k' });
    const pipelines = await call('GET', '/v1/pipelines', { key: key.key });
    expect(pipelines.body).toEqual([]);
  });

  it('validates create and patch bodies strictly', async () => {
    expect((await admin('POST', '/workspaces', {})).status).toBe(400);
    expect((await admin('POST', '/workspaces', { name: 'x', plan: 'gold' })).status).toBe(400);
    expect((await admin('POST', '/workspaces', { name: 'x', timezone: 'Nowhere/City' })).status).toBe(400);
    expect((await admin('POST', '/workspaces', { name: 'x', features: ['teleport'] })).status).toBe(400);
    expect((await admin('POST', '/workspaces', { name: 'x', vat: { mode: 'inclusive', rate: 17.125 } })).status).toBe(400);
    expect((await admin('PATCH', '/workspaces/not-a-uuid', { name: 'y' })).status).toBe(400);
    expect((await admin('PATCH', '/workspaces/00000000-0000-7000-8000-000000000000', { name: 'y' })).status).toBe(404);
  });

  it('refuses a whatsapp_phone_number_id another workspace holds: 409 on create and on PATCH', async () => {
    const number = `pn-${crypto.randomUUID()}`;
    const first = await adminOk('POST', '/workspaces', { name: 'First', whatsapp_phone_number_id: number });
    const conflict = { statusCode: 409, message: 'Another workspace already uses this whatsapp_phone_number_id', error: 'Conflict' };
    const created = await admin('POST', '/workspaces', { name: 'Second', whatsapp_phone_number_id: number });
    expect(created.status).toBe(409);
    expect(created.body).toEqual(conflict);
    // Without one, a workspace's number is its id: that is taken too.
    const plain = await adminOk('POST', '/workspaces', { name: 'Plain' });
    const other = await adminOk('POST', '/workspaces', { name: 'Other' });
    for (const taken of [number, plain.id]) {
      const patched = await admin('PATCH', `/workspaces/${other.id}`, { whatsapp_phone_number_id: taken, name: 'Renamed' });
      expect(patched.status).toBe(409);
      expect(patched.body).toEqual(conflict);
    }
    expect(await adminOk('GET', `/workspaces/${other.id}`)).toMatchObject({ name: 'Other', whatsapp_phone_number_id: other.id });
    // A workspace may send its own number again.
    expect((await admin('PATCH', `/workspaces/${first.id}`, { whatsapp_phone_number_id: number })).status).toBe(200);
  });

  it('refuses a default_country the phone library does not know: 400 on create and on PATCH', async () => {
    const message = ['default_country: must be a country code of the phone numbering plan (ISO 3166 alpha-2, e.g. US, GB, DE)'];
    for (const code of ['XX', 'aa', 'ZZ']) {
      const created = await admin('POST', '/workspaces', { name: 'x', default_country: code });
      expect(created.status, code).toBe(400);
      expect(created.body).toMatchObject({ statusCode: 400, message, error: 'Bad Request' });
    }
    const ws = await adminOk('POST', '/workspaces', { name: 'Acme', default_country: 'gb' });
    expect(ws.default_country).toBe('GB');
    const patched = await admin('PATCH', `/workspaces/${ws.id}`, { default_country: 'XX' });
    expect(patched.status).toBe(400);
    expect(patched.body).toMatchObject({ statusCode: 400, message });
    expect((await adminOk('GET', `/workspaces/${ws.id}`)).default_country).toBe('GB');
    expect((await adminOk('PATCH', `/workspaces/${ws.id}`, { default_country: 'de' })).default_country).toBe('DE');
  });

  it('patches partially and merges settings objects (null removes a key)', async () => {
    const ws = await adminOk('POST', '/workspaces', { name: 'Acme', caps: { contacts: 10, deals: 5 }, timezone: 'Europe/Berlin' });
    const patched = await adminOk('PATCH', `/workspaces/${ws.id}`, { caps: { deals: null, orders: 3 }, currency: 'eur' });
    expect(patched.caps).toEqual({ contacts: 10, orders: 3 });
    expect(patched.currency).toBe('EUR');
    expect(patched.timezone).toBe('Europe/Berlin');
  });
});

describe('API keys and users', () => {
  it('shows a key once and revokes it', async () => {
    const ws = await makeWorkspace();
    const created = await admin('POST', `/workspaces/${ws.id}/api-keys`, { name: 'CI key' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(expect.arrayContaining(['id', 'name', 'key', 'created_at']));
    expect((await admin('POST', `/workspaces/${ws.id}/api-keys`, { name: 'x'.repeat(101) })).status).toBe(400);
    const revoke = await admin('POST', `/api-keys/${created.body.id}/revoke`);
    expect(revoke.body).not.toHaveProperty('key');
    expect((await call('GET', '/v1/pipelines', { key: created.body.key })).status).toBe(401);
    expect((await ws.api('GET', '/v1/pipelines')).status).toBe(200);
  });

  it('creates workspace users and refuses duplicate emails', async () => {
    const ws = await makeWorkspace();
    const user = await admin('POST', `/workspaces/${ws.id}/users`, { name: 'Ana', email: ' Ana@Example.com ', role: 'agent' });
    expect(user.status).toBe(201);
    expect(user.body).toMatchObject({ name: 'Ana', email: 'ana@example.com', role: 'agent', active: true });
    expect((await admin('POST', `/workspaces/${ws.id}/users`, { name: 'Ana 2', email: 'ana@example.com', role: 'admin' })).status).toBe(409);
    expect((await admin('POST', `/workspaces/${ws.id}/users`, { name: 'B', email: 'b@example.com', role: 'owner' })).status).toBe(400);
  });
});

describe('pipelines, blacklist and sweeps', () => {
  it('keeps exactly one default pipeline with ordered stages', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const first = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, {
      name: 'A',
      is_default: false,
      stages: [{ name: 's1' }, { name: 's2', color: '#000', win_probability: 40 }],
    });
    expect(first.is_default).toBe(true);
    expect(first.stages.map((s: any) => [s.name, s.position])).toEqual([
      ['s1', 0],
      ['s2', 1],
    ]);
    const second = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: 'B', is_default: true, stages: [] });
    const list = (await ws.api('GET', '/v1/pipelines')).body;
    expect(list.map((p: any) => [p.name, p.position, p.is_default])).toEqual([
      ['A', 0, false],
      ['B', 1, true],
    ]);
    expect(second.is_default).toBe(true);
    expect(list[0].stages[1]).toMatchObject({ color: '#000', win_probability: 40, pipeline_id: first.id });
  });

  it('stores blacklisted phones in E.164 with the workspace country', async () => {
    const ws = await makeWorkspace({ default_country: 'DE' });
    const res = await admin('POST', `/workspaces/${ws.id}/blacklist`, { phone: '030 1234567' });
    expect(res.status).toBe(201);
    expect(res.body.phone).toBe('+49301234567');
    expect((await admin('POST', `/workspaces/${ws.id}/blacklist`, { phone: 'abc' })).status).toBe(400);
  });

  it('answers 404 for an unknown sweep', async () => {
    const res = await admin('POST', '/sweeps/no-such-sweep');
    expect(res.status).toBe(404);
  });
});
