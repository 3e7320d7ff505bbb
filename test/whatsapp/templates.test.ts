import { describe, expect, it } from 'vitest';
import { admin, uuidRe } from '../support/harness';
import { template, waWorkspace } from './helpers';

describe('WhatsApp templates', () => {
  it('the operator creates a template; /v1 reads it with every documented field', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, {
      name: 'welcome',
      body: 'Hi {{first_name}}, welcome to {{shop}}',
      header: { type: 'image' },
      buttons: [{ type: 'url', text: 'Open', url: 'https://x.example/{{1}}' }],
    });
    expect(t.id).toMatch(uuidRe);
    const res = await ws.api('GET', `/v1/templates/${t.id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      'body',
      'buttons',
      'category',
      'created_at',
      'header',
      'id',
      'language',
      'name',
      'placeholders',
      'status',
      'updated_at',
      'workspace_id',
    ]);
    expect(res.body).toMatchObject({
      workspace_id: ws.id,
      name: 'welcome',
      language: 'en_US',
      category: 'marketing',
      status: 'approved',
      header: { type: 'image' },
      placeholders: ['first_name', 'shop'],
    });
    expect(res.body.buttons).toEqual([{ type: 'url', text: 'Open', url: 'https://x.example/{{1}}' }]);
  });

  it('operator create: unique name + language (409), placeholder rules and unknown properties (400)', async () => {
    const ws = await waWorkspace();
    await template(ws, { name: 'dup' });
    expect((await admin('POST', `/workspaces/${ws.id}/templates`, { name: 'dup', language: 'en_US', category: 'utility', body: 'x' })).status).toBe(
      409,
    );
    expect((await admin('POST', `/workspaces/${ws.id}/templates`, { name: 'dup', language: 'de', category: 'utility', body: 'x' })).status).toBe(201);
    const gap = await admin('POST', `/workspaces/${ws.id}/templates`, { name: 'gap', language: 'en', category: 'utility', body: 'a {{1}} b {{3}}' });
    expect(gap.status).toBe(400);
    expect(gap.body.message).toEqual(['body: positional placeholders must run {{1}}, {{2}}, ... without gaps']);
    const mixed = await admin('POST', `/workspaces/${ws.id}/templates`, {
      name: 'mix',
      language: 'en',
      category: 'utility',
      body: 'a {{1}} b {{name}}',
    });
    expect(mixed.status).toBe(400);
    expect(
      (await admin('POST', `/workspaces/${ws.id}/templates`, { name: 'x', language: 'en', category: 'utility', body: 'x', extra: 1 })).status,
    ).toBe(400);
    expect((await admin('POST', `/workspaces/${ws.id}/templates`, { name: 'x', language: 'en', category: 'promo', body: 'x' })).status).toBe(400);
  });

  it('lists with the shared list conventions: envelope, filter type-checking, search, sort, paging', async () => {
    const ws = await waWorkspace();
    const a = await template(ws, { name: 'alpha_offer', status: 'approved' });
    const b = await template(ws, { name: 'beta_notice', category: 'utility', status: 'pending', body: 'Your order shipped' });
    const all = await ws.api('GET', '/v1/templates');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(all.body.data.map((t: any) => t.id)).toEqual([b.id, a.id]);
    const approved = await ws.api('GET', `/v1/templates?filter=${encodeURIComponent(JSON.stringify({ status: 'approved' }))}`);
    expect(approved.body.data.map((t: any) => t.id)).toEqual([a.id]);
    const bad = await ws.api('GET', `/v1/templates?filter=${encodeURIComponent(JSON.stringify({ status: 'live' }))}`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid filter value for "status": must be one of approved, pending, rejected, paused, disabled');
    const badDate = await ws.api('GET', `/v1/templates?filter=${encodeURIComponent(JSON.stringify({ created_at: { $gt: 'yesterday' } }))}`);
    expect(badDate.status).toBe(400);
    expect(badDate.body.message).toBe('Invalid filter value for "created_at": "yesterday" is not a date');
    expect((await ws.api('GET', '/v1/templates?filter=nope')).body.message).toBe('Invalid filter: must be valid JSON');
    expect((await ws.api('GET', '/v1/templates?filter=[1]')).body.message).toBe('Invalid filter: must be a JSON object');
    expect((await ws.api('GET', '/v1/templates?search=SHIPPED')).body.data.map((t: any) => t.id)).toEqual([b.id]);
    expect((await ws.api('GET', '/v1/templates?sort=name')).body.data.map((t: any) => t.id)).toEqual([a.id, b.id]);
    const page = await ws.api('GET', '/v1/templates?limit=1&offset=1&sort=name');
    expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.body.data.map((t: any) => t.id)).toEqual([b.id]);
    expect((await ws.api('GET', '/v1/templates?limit=-1')).status).toBe(400);
    expect((await ws.api('GET', '/v1/templates?sort=body')).status).toBe(400);
  });

  it('404 for unknown and foreign ids, 400 for a non-UUID id', async () => {
    const [ws, other] = await Promise.all([waWorkspace(), waWorkspace()]);
    const foreign = await template(other);
    const res = await ws.api('GET', `/v1/templates/${foreign.id}`);
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Template not found');
    expect((await ws.api('GET', '/v1/templates/not-a-uuid')).status).toBe(400);
    expect((await ws.api('GET', `/v1/templates?filter=${encodeURIComponent(JSON.stringify({ workspace_id: other.id }))}`)).body.total).toBe(0);
  });
});
