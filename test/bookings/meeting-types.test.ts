import { describe, expect, it } from 'vitest';
import { admin, adminOk, makeWorkspace } from '../support/harness';
import { ALL_DAY, book, expectError, futureHour, invitee, setupType } from './helpers';

describe('meeting types (read-only record)', () => {
  it('answers the documented record: host {id, name} for one host, null id for a team, hosts[]', async () => {
    const one = await setupType();
    const res = await one.ws.api('GET', `/v1/meeting-types/${one.mt.id}`);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(
      [
        'created_at',
        'description',
        'duration_minutes',
        'host',
        'hosts',
        'id',
        'is_active',
        'location_type',
        'name',
        'scheduling_kind',
        'slug',
      ].sort(),
    );
    expect(res.body).toMatchObject({
      name: 'Intro call',
      duration_minutes: 30,
      location_type: 'video',
      is_active: true,
      scheduling_kind: 'one_on_one',
      description: null,
      host: { id: one.hosts[0].id, name: 'Host 1' },
      hosts: [{ user_id: one.hosts[0].id, name: 'Host 1' }],
    });
    const team = await setupType({ kind: 'round_robin', hostCount: 2 });
    const t = await team.ws.api('GET', `/v1/meeting-types/${team.mt.id}`);
    expect(t.body.host.id).toBeNull();
    expect(t.body.hosts.map((h: { user_id: string }) => h.user_id)).toEqual(team.hosts.map((h) => h.id));
  });

  it('lists with the shared conventions: filter, sort, paging, search; malformed values 400; unknown 404', async () => {
    const { ws, hosts } = await setupType();
    for (const [slug, kind] of [
      ['b-team', 'collective'],
      ['a-solo', 'one_on_one'],
    ]) {
      await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
        name: slug,
        slug,
        duration_minutes: 15,
        scheduling_kind: kind,
        host_user_ids: [hosts[0].id],
        timezone: 'UTC',
        weekly_hours: ALL_DAY,
      });
    }
    const all = await ws.api('GET', '/v1/meeting-types');
    expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.body.data[0].slug).toBe('a-solo'); // -created_at
    const sorted = await ws.api('GET', '/v1/meeting-types?sort=slug&limit=2');
    expect(sorted.body.data.map((m: { slug: string }) => m.slug)).toEqual(['a-solo', 'b-team']);
    const filtered = await ws.api(
      'GET',
      `/v1/meeting-types?filter=${encodeURIComponent(JSON.stringify({ scheduling_kind: 'collective', workspace_id: crypto.randomUUID() }))}`,
    );
    expect(filtered.body.data.map((m: { slug: string }) => m.slug)).toEqual(['b-team']);
    expect((await ws.api('GET', '/v1/meeting-types?search=SOLO')).body.total).toBe(1);
    expectError(await ws.api('GET', '/v1/meeting-types?filter=nope'), 400, 'Invalid filter: must be valid JSON');
    expectError(await ws.api('GET', '/v1/meeting-types?filter=[1]'), 400, 'Invalid filter: must be a JSON object');
    expectError(
      await ws.api('GET', `/v1/meeting-types?filter=${encodeURIComponent('{"scheduling_kind":"weird"}')}`),
      400,
      'Invalid filter value for "scheduling_kind": must be one of one_on_one, round_robin, collective',
    );
    expectError(await ws.api('GET', `/v1/meeting-types?filter=${encodeURIComponent('{"duration_minutes":"long"}')}`), 400, null);
    expectError(await ws.api('GET', '/v1/meeting-types?limit=-1'), 400, 'Invalid limit: must be a non-negative integer');
    expectError(await ws.api('GET', '/v1/meeting-types?offset=x'), 400, 'Invalid offset: must be a non-negative integer');
    expect((await ws.api('GET', '/v1/meeting-types?limit=9999')).body.limit).toBe(500);
    expectError(await ws.api('GET', `/v1/meeting-types/${crypto.randomUUID()}`), 404, 'Meeting type not found');
    expectError(await ws.api('GET', '/v1/meeting-types/not-a-uuid'), 400, null);
  });
});

describe('GET /v1/meeting-types/{id}/slots', () => {
  it('from inclusive, to exclusive, and every exact 400', async () => {
    const { ws, mt } = await setupType();
    const from = futureHour();
    const res = await ws.api('GET', `/v1/meeting-types/${mt.id}/slots?from=${from}&to=${futureHour(1)}`);
    expect(res.body).toEqual({
      meeting_type_id: mt.id,
      timezone: 'UTC',
      duration_minutes: 30,
      slots: [
        { start: from, end: futureHour(0.5) },
        { start: futureHour(0.5), end: futureHour(1) },
      ],
    });
    const path = `/v1/meeting-types/${mt.id}/slots`;
    expectError(await ws.api('GET', `${path}?to=${from}`), 400, 'from/to must be valid ISO dates');
    expectError(await ws.api('GET', `${path}?from=yesterday&to=${from}`), 400, 'from/to must be valid ISO dates');
    expectError(await ws.api('GET', `${path}?from=2026-02-30&to=2026-03-02`), 400, 'from/to must be valid ISO dates');
    expectError(await ws.api('GET', `${path}?from=${from}&to=${from}`), 400, '`to` must be after `from`');
    expectError(await ws.api('GET', `${path}?from=2026-01-01&to=2026-03-05`), 400, 'Requested range may not exceed 62 days');
    expect((await ws.api('GET', `${path}?from=2026-01-01&to=2026-03-04`)).status).toBe(200);
    expectError(
      await ws.api('GET', `/v1/meeting-types/${crypto.randomUUID()}/slots?from=${from}&to=${futureHour(1)}`),
      404,
      'Meeting type not found',
    );
    const inactive = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
      name: 'Off',
      slug: 'off',
      duration_minutes: 30,
      scheduling_kind: 'one_on_one',
      host_user_ids: [mt.hosts[0].user_id],
      timezone: 'UTC',
      weekly_hours: ALL_DAY,
      is_active: false,
    });
    expectError(await ws.api('GET', `/v1/meeting-types/${inactive.id}/slots?from=${from}&to=${futureHour(1)}`), 400, 'Meeting type is not active');
    const noSchedule = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
      name: 'No hours',
      slug: 'no-hours',
      duration_minutes: 30,
      scheduling_kind: 'one_on_one',
      host_user_ids: [mt.hosts[0].user_id],
      timezone: 'UTC',
    });
    expectError(
      await ws.api('GET', `/v1/meeting-types/${noSchedule.id}/slots?from=${from}&to=${futureHour(1)}`),
      404,
      'No availability schedule configured for this meeting type',
    );
    expectError(
      await book(ws, { meeting_type_id: noSchedule.id, start_at: from, invitee: invitee() }),
      404,
      'No availability schedule configured for this meeting type',
    );
  });

  it('hides a booked slot plus buffers, a busy block, and honours the daily cap', async () => {
    const { ws, mt, hosts } = await setupType({ type: { buffer_after_minutes: 30, daily_cap: 2 } });
    const slotsOf = async () =>
      (await ws.api('GET', `/v1/meeting-types/${mt.id}/slots?from=${futureHour(0)}&to=${futureHour(3)}`)).body.slots.map(
        (s: { start: string }) => s.start,
      );
    expect(await slotsOf()).toEqual([0, 0.5, 1, 1.5, 2, 2.5].map(futureHour));
    expect((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(1), invitee: invitee() })).status).toBe(201);
    // The booking 1:00-1:30 takes 1:00, and 0:30 (a slot needs 30 free minutes after it).
    expect(await slotsOf()).toEqual([0, 1.5, 2, 2.5].map(futureHour));
    await adminOk('POST', `/workspaces/${ws.id}/users/${hosts[0].id}/busy`, { start_at: futureHour(2), end_at: futureHour(2.5) });
    expect(await slotsOf()).toEqual([0, 1.5, 2.5].map(futureHour));
    expect((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(0), invitee: invitee() })).status).toBe(201);
    // Two bookings that day: the cap of 2 closes the day.
    expect(await slotsOf()).toEqual([]);
  });
});

describe('GET /v1/meeting-types/{id}/embed', () => {
  it('answers the publishable key, page and snippet; rotation invalidates the old key', async () => {
    const { ws, mt } = await setupType();
    const res = await ws.api('GET', `/v1/meeting-types/${mt.id}/embed`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ workspace_ref: ws.id, slug: mt.slug, page_url: `https://api.test/book/${ws.id}/${mt.slug}` });
    expect(res.body.embed_key).toMatch(/^bk_[A-Za-z0-9_-]{20,}$/);
    expect(res.body.snippet_html.split('\n')).toHaveLength(2);
    expect(res.body.snippet_html).toContain(res.body.embed_key);
    expect((await ws.api('GET', `/v1/meeting-types/${mt.id}/embed`)).body.embed_key).toBe(res.body.embed_key);
    const rotated = await adminOk('POST', `/workspaces/${ws.id}/embed-key/rotate`, {});
    expect(rotated.embed_key).not.toBe(res.body.embed_key);
    expect((await ws.api('GET', `/v1/meeting-types/${mt.id}/embed`)).body.embed_key).toBe(rotated.embed_key);
    expectError(await ws.api('GET', `/v1/meeting-types/${crypto.randomUUID()}/embed`), 404, 'Meeting type not found');
  });
});

describe('operator meeting types and busy blocks', () => {
  it('validates hosts, zone, weekly hours and the slug', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const u = await adminOk('POST', `/workspaces/${ws.id}/users`, {
      name: 'H',
      email: `h-${crypto.randomUUID().slice(0, 6)}@example.com`,
      role: 'agent',
    });
    const base = {
      name: 'X',
      slug: 'x',
      duration_minutes: 30,
      scheduling_kind: 'one_on_one',
      host_user_ids: [u.id],
      timezone: 'Europe/Berlin',
      weekly_hours: { mon: [['09:00', '17:00']] },
    };
    expect((await admin('POST', `/workspaces/${ws.id}/meeting-types`, base)).status).toBe(201);
    expect((await admin('POST', `/workspaces/${ws.id}/meeting-types`, base)).status).toBe(409);
    expect((await admin('POST', `/workspaces/${ws.id}/meeting-types`, { ...base, slug: 'y', timezone: 'Mars/Base' })).status).toBe(400);
    expect(
      (await admin('POST', `/workspaces/${ws.id}/meeting-types`, { ...base, slug: 'y', weekly_hours: { mon: [['17:00', '09:00']] } })).status,
    ).toBe(400);
    expect((await admin('POST', `/workspaces/${ws.id}/meeting-types`, { ...base, slug: 'y', weekly_hours: { funday: [] } })).status).toBe(400);
    expect((await admin('POST', `/workspaces/${ws.id}/meeting-types`, { ...base, slug: 'y', host_user_ids: [crypto.randomUUID()] })).status).toBe(
      400,
    );
    expect(
      (await admin('POST', `/workspaces/${ws.id}/users/${u.id}/busy`, { start_at: '2026-01-02T10:00:00Z', end_at: '2026-01-02T09:00:00Z' })).status,
    ).toBe(400);
    expect(
      (
        await admin('POST', `/workspaces/${ws.id}/users/${crypto.randomUUID()}/busy`, {
          start_at: '2026-01-02T10:00:00Z',
          end_at: '2026-01-02T11:00:00Z',
        })
      ).status,
    ).toBe(404);
  });
});
