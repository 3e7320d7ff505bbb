import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { resolveAudience } from '../../src/modules/audiences/service';
import { getWorkspace } from '../../src/modules/workspaces/service';
import { EventSink } from '../../src/platform/outbox';
import { controlDb, workspaceDb } from '../../src/platform/d1/shards';
import { admin, ADMIN_TOKEN, adminOk, call, type TestWorkspace } from '../support/harness';
import { PROTOTYPE_NAMES } from '../quality/fuzz-inputs';
import { addSender, emailWorkspace, sleep } from './support';

const audience = (ws: TestWorkspace, body: Record<string, unknown>) => adminOk('POST', `/workspaces/${ws.id}/audiences`, body);

async function serviceContext(ws: TestWorkspace) {
  return { db: (await workspaceDb(env, ws.id))!, ws: await getWorkspace(controlDb(env), ws.id), events: new EventSink() };
}

describe('GET /v1/audiences', () => {
  it('lists newest first, filters by kind, never returns the definition', async () => {
    const { ws } = await emailWorkspace();
    const a = await audience(ws, { name: 'Oslo', kind: 'dynamic', filters: { city: 'Oslo' } });
    await sleep(2);
    const b = await audience(ws, { name: 'VIPs', kind: 'static', contact_ids: [crypto.randomUUID()] });
    const all = await ws.api('GET', '/v1/audiences');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 2, limit: 25, offset: 0 });
    expect(all.body.data.map((r: any) => r.id)).toEqual([b.id, a.id]);
    expect(Object.keys(all.body.data[0]).sort()).toEqual([
      'created_at',
      'id',
      'kind',
      'last_count',
      'last_counted_at',
      'name',
      'updated_at',
      'workspace_id',
    ]);
    expect(all.body.data[0]).toMatchObject({ last_count: null, last_counted_at: null });
    expect((await ws.api('GET', '/v1/audiences?kind=static')).body.data.map((r: any) => r.id)).toEqual([b.id]);
    expect((await ws.api('GET', '/v1/audiences?kind=')).body.total).toBe(2);
    const bad = await ws.api('GET', '/v1/audiences?kind=smart');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid kind: must be one of dynamic, static');
    expect((await ws.api('GET', '/v1/audiences?limit=1000')).body.limit).toBe(100);
    for (const q of ['limit=-1', 'offset=abc']) expect((await ws.api('GET', `/v1/audiences?${q}`)).status).toBe(400);
  });

  it('validates a dynamic audience with the contact filter compiler (operator)', async () => {
    const { ws } = await emailWorkspace();
    const bad = await admin('POST', `/workspaces/${ws.id}/audiences`, {
      name: 'x',
      kind: 'dynamic',
      filters: { $where: { field: 'nope', op: 'eq', value: 1 } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^Invalid filter: /);
    expect((await admin('POST', `/workspaces/${ws.id}/audiences`, { name: 'x', kind: 'static', contact_ids: ['nope'] })).status).toBe(400);
    expect((await admin('POST', `/workspaces/${ws.id}/audiences`, { name: 'x', kind: 'static', filters: {} })).status).toBe(400);
  });

  it('reads a filter field named like an inherited object property as a field (unknown: 400), never as no filter', async () => {
    const { ws } = await emailWorkspace();
    for (const name of PROTOTYPE_NAMES) {
      const raw = `{"name":"x","kind":"dynamic","filters":{${JSON.stringify(name)}:{"$gt":1}}}`;
      const res = await call('POST', `/admin/v1/workspaces/${ws.id}/audiences`, {
        key: ADMIN_TOKEN,
        rawBody: raw,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.message).toMatch(/^Invalid filter/);
    }
    expect((await ws.api('GET', '/v1/audiences')).body.total).toBe(0);
  });
});

describe('the audience resolver', () => {
  it('narrows a dynamic or static audience to the email-eligible baseline and refreshes last_count', async () => {
    const { ws } = await emailWorkspace();
    const make = async (email: string, fields: Record<string, unknown>, state?: 'subscribed' | 'unsubscribed') => {
      const c = (await ws.api('POST', '/v1/contacts', { email, city: 'Oslo', ...fields })).body;
      if (state) await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state });
      return c;
    };
    const ok = await make('ok@example.com', {}, 'subscribed');
    const ok2 = await make('ok2@example.com', {}, 'subscribed');
    await make('unknown@example.com', {});
    await make('unsub@example.com', {}, 'unsubscribed');
    const suppressed = await make('suppressed@example.com', {}, 'subscribed');
    await ws.api('POST', '/v1/suppressions', { email: suppressed.email });
    const blacklisted = await make('black@example.com', { phone: '+12125550199' }, 'subscribed');
    await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+12125550199' });
    const bergen = await make('bergen@example.com', { city: 'Bergen' }, 'subscribed');
    const platformListed = await make(`platform-${crypto.randomUUID()}@example.com`, {}, 'subscribed');
    await adminOk('POST', '/global-suppressions', { email: platformListed.email });

    const dynamic = await audience(ws, { name: 'Oslo', kind: 'dynamic', filters: { city: 'Oslo' } });
    const ctx = await serviceContext(ws);
    const resolved = await resolveAudience(env, ctx, dynamic.id, { limit: 10 });
    expect(resolved!.count).toBe(2);
    expect(resolved!.recipients.map((r) => r.email).sort()).toEqual(['ok2@example.com', 'ok@example.com']);
    // Keyset paging in id order.
    const first = await resolveAudience(env, ctx, dynamic.id, { limit: 1 });
    const second = await resolveAudience(env, ctx, dynamic.id, { limit: 1, after: first!.recipients[0].id });
    expect([first!.recipients[0].id, second!.recipients[0].id].sort()).toEqual([ok.id, ok2.id].sort());

    const listed = (await ws.api('GET', '/v1/audiences')).body.data[0];
    expect(listed.last_count).toBe(2);
    expect(listed.last_counted_at).toEqual(expect.any(String));

    const fixed = await audience(ws, {
      name: 'Picked',
      kind: 'static',
      contact_ids: [ok.id, suppressed.id, blacklisted.id, bergen.id, platformListed.id, crypto.randomUUID()],
    });
    const picked = await resolveAudience(env, ctx, fixed.id, { limit: 10 });
    expect(picked!.recipients.map((r) => r.email).sort()).toEqual(['bergen@example.com', 'ok@example.com']);
    expect(await resolveAudience(env, ctx, crypto.randomUUID())).toBeNull();
    const other = await emailWorkspace();
    expect(await resolveAudience(env, await serviceContext(other.ws), fixed.id)).toBeNull();
  });
});

describe('static audiences and contact merges', () => {
  it('re-keys an absorbed contact to the surviving one, listed once', async () => {
    const { ws } = await emailWorkspace();
    const target = (await ws.api('POST', '/v1/contacts', { phone: '+14155550161' })).body;
    const other = (await ws.api('POST', '/v1/contacts', { email: 'absorbed@example.com' })).body;
    const both = await audience(ws, { name: 'Both', kind: 'static', contact_ids: [target.id, other.id] });
    const onlyOther = await audience(ws, { name: 'Other', kind: 'static', contact_ids: [other.id] });
    const conflict = await ws.api('POST', '/v1/contacts', { phone: '+14155550161', email: 'absorbed@example.com' });
    expect(conflict.status).toBe(409);
    await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    await ws.api('PUT', `/v1/contacts/${target.id}/consent/email`, { state: 'subscribed' });
    const ctx = await serviceContext(ws);
    for (const a of [both, onlyOther]) {
      const resolved = await resolveAudience(env, ctx, a.id, { limit: 10 });
      expect(resolved!.recipients.map((r) => r.id)).toEqual([target.id]);
    }
    const { rowsIn } = await import('../support/db');
    const [row] = await rowsIn(ws.id, 'SELECT definition FROM audiences WHERE id = ?', both.id);
    expect(JSON.parse(row.definition)).toEqual({ contact_ids: [target.id] });
  });
});

describe('GET /v1/sender-profiles', () => {
  it('lists newest first with verified, composed from_email and domain status; never DKIM/DNS material', async () => {
    const { ws, sender } = await emailWorkspace();
    await sleep(2);
    const pending = await addSender(ws, {
      from_name: 'News',
      from_email: 'News@Letters.Acme.example',
      domain_verified: false,
      reply_to: 'reply@acme.example',
    });
    const res = await ws.api('GET', '/v1/sender-profiles');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, limit: 25, offset: 0 });
    expect(res.body.data.map((r: any) => r.id)).toEqual([pending.id, sender!.id]);
    expect(res.body.data[0]).toEqual({
      id: pending.id,
      workspace_id: ws.id,
      from_name: 'News',
      from_email: 'News@letters.acme.example',
      reply_to: 'reply@acme.example',
      provider: 'sandbox',
      is_default: false,
      sending_domain: 'letters.acme.example',
      domain_status: 'pending',
      verified: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/dkim|dns/i);
    expect(res.body.data[1]).toMatchObject({ verified: true, domain_status: 'verified', is_default: true });
    for (const q of ['limit=-1', 'offset=x']) expect((await ws.api('GET', `/v1/sender-profiles?${q}`)).status).toBe(400);
    expect((await ws.api('GET', '/v1/sender-profiles?limit=500')).body.limit).toBe(100);
  });

  it('moves the default flag to a new default profile', async () => {
    const { ws, sender } = await emailWorkspace();
    const next = await addSender(ws, { from_email: 'new@mail.acme.example', is_default: true });
    const rows = (await ws.api('GET', '/v1/sender-profiles')).body.data;
    expect(rows.find((r: any) => r.id === next.id).is_default).toBe(true);
    expect(rows.find((r: any) => r.id === sender!.id).is_default).toBe(false);
  });
});
