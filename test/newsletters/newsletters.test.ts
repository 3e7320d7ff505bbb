import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace, uuidRe } from '../support/harness';
import { newsletter } from './support';

describe('POST /v1/newsletters', () => {
  it('creates with active_subscriber_count 0 and the in-app defaults; the single read carries the configuration, list rows the summary', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('POST', '/v1/newsletters', { name: 'Weekly Digest', description: 'News' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(uuidRe),
      name: 'Weekly Digest',
      description: 'News',
      status: 'active',
      sender_profile_id: null,
      active_subscriber_count: 0,
      start_policy: 'next_issue',
      start_issue_number: 1,
      first_send_mode: 'immediate',
      remember_window_days: 30,
      catchup_interval_days: 1,
      catchup_send_time: '09:00',
      auto_subscribe_tag_id: null,
      header_snippet_id: null,
      footer_snippet_id: null,
      archive_enabled: true,
      slug: 'weekly-digest',
      archive_mode: 'full',
    });
    const read = await ws.api('GET', `/v1/newsletters/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    const list = await ws.api('GET', '/v1/newsletters');
    expect(list.body.total).toBe(1);
    expect(Object.keys(list.body.data[0]).sort()).toEqual([
      'active_subscriber_count',
      'created_at',
      'description',
      'id',
      'name',
      'sender_profile_id',
      'status',
      'updated_at',
    ]);
  });

  it('validates name and description lengths and paging', async () => {
    const ws = await makeWorkspace();
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(121) }, { name: 'ok', description: 'x'.repeat(2001) }, { name: 'ok', extra: 1 }]) {
      const res = await ws.api('POST', '/v1/newsletters', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    expect((await ws.api('POST', '/v1/newsletters', { name: 'x'.repeat(120), description: 'y'.repeat(2000) })).status).toBe(201);
    const bad = await ws.api('GET', '/v1/newsletters?limit=-1');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid limit: must be a non-negative integer');
  });

  it('refuses a duplicate name case-insensitively; parallel creates of one name give one newsletter', async () => {
    const ws = await makeWorkspace();
    await newsletter(ws, 'Digest');
    const dup = await ws.api('POST', '/v1/newsletters', { name: 'DIGEST' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('duplicate_name');
    const results = await Promise.all(Array.from({ length: 8 }, () => ws.api('POST', '/v1/newsletters', { name: 'Racing Name' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409).every((r) => r.body.error.code === 'duplicate_name')).toBe(true);
    expect((await ws.api('GET', '/v1/newsletters')).body.total).toBe(2);
  });

  it('checks sender_profile_id against the workspace', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const foreign = await adminOk('POST', `/workspaces/${other.id}/sender-profiles`, {
      from_name: 'O',
      from_email: 'o@mail.example.com',
      domain_verified: true,
      is_default: true,
    });
    const res = await ws.api('POST', '/v1/newsletters', { name: 'A', sender_profile_id: foreign.id });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('sender_profile_not_found');
    const own = await adminOk('POST', `/workspaces/${ws.id}/sender-profiles`, {
      from_name: 'M',
      from_email: 'm@mail.example.com',
      domain_verified: true,
      is_default: true,
    });
    const ok = await ws.api('POST', '/v1/newsletters', { name: 'B', sender_profile_id: own.id.toUpperCase() });
    expect(ok.status).toBe(201);
    expect(ok.body.sender_profile_id).toBe(own.id);
  });

  it('enforces the plan cap exactly under parallel creates', async () => {
    const ws = await makeWorkspace({ caps: { newsletters: 3 } });
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => ws.api('POST', '/v1/newsletters', { name: `N${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    const refused = results.filter((r) => r.status === 403);
    expect(refused).toHaveLength(5);
    expect(refused[0].body).toMatchObject({ statusCode: 403, error_code: 'PLAN_LIMIT_EXCEEDED' });
    expect(refused[0].body.message).toContain('max_newsletters');
    expect(refused[0].body.message).toContain('3');
  });

  it('answers 404 newsletter_not_found for unknown and foreign ids, 400 for a non-UUID id', async () => {
    const ws = await makeWorkspace();
    const other = await makeWorkspace();
    const n = await newsletter(other);
    for (const path of [`/v1/newsletters/${n.id}`, `/v1/newsletters/${crypto.randomUUID()}`, `/v1/newsletters/${n.id}/issues`]) {
      const res = await ws.api('GET', path);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('newsletter_not_found');
    }
    expect((await ws.api('POST', `/v1/newsletters/${n.id}/issues`, {})).body.error.code).toBe('newsletter_not_found');
    expect((await ws.api('GET', '/v1/newsletters/not-a-uuid')).status).toBe(400);
  });
});
