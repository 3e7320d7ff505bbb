import { describe, expect, it } from 'vitest';
import { EVENT_PAYLOADS } from '../../src/modules/events/payloads';
import { adminOk, makeWorkspace } from '../support/harness';
import { rowsIn, runOnShards } from '../support/db';
import { ALL_DAY, book, expectError, futureHour, invitee, setupType } from './helpers';

const eventsOf = async (wsId: string, type?: string) =>
  (await rowsIn<{ type: string; data: string }>(wsId, 'SELECT type, data FROM event_outbox WHERE workspace_id = ? ORDER BY created_at, id', wsId))
    .filter((e) => e.type.startsWith('booking.') && (!type || e.type === type))
    .map((e) => ({ type: e.type, data: JSON.parse(e.data) }));

describe('POST /v1/bookings', () => {
  it('books an open slot for an invitee (upserted into contacts), source api, and answers the full record', async () => {
    const { ws, mt, hosts } = await setupType();
    const who = { ...invitee(), phone: '+14155550142' };
    const res = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), timezone: 'America/New_York', invitee: who, notes: 'Bring slides' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      meeting_type_id: mt.id,
      host_user_id: hosts[0].id,
      hosts: [{ user_id: hosts[0].id, name: 'Host 1', role: 'host' }],
      status: 'confirmed',
      start_at: futureHour(),
      end_at: futureHour(0.5),
      host_timezone: 'UTC',
      invitee_timezone: 'America/New_York',
      invitee_name: who.name,
      invitee_email: who.email,
      invitee_phone: '+14155550142',
      join_url: null,
      notes: 'Bring slides',
      source: 'api',
      cancelled_at: null,
      cancelled_by: null,
      cancellation_reason: null,
      rescheduled_at: null,
      previous_start_at: null,
      reschedule_count: 0,
      duplicate: false,
    });
    const contact = await ws.api('GET', `/v1/contacts/${res.body.contact_id}`);
    expect(contact.body.email).toBe(who.email);
    // Internal fields never leave.
    expect(JSON.stringify(res.body)).not.toMatch(/dedupe|token|pinned|version|manage/i);
    expect((await ws.api('GET', `/v1/bookings/${res.body.id}`)).body).toEqual({ ...res.body, duplicate: undefined });
  });

  it('contact_id wins over invitee; an unknown contact is 404', async () => {
    const { ws, mt } = await setupType();
    const c = await ws.api('POST', '/v1/contacts', { name: 'Known Person', email: `known-${crypto.randomUUID().slice(0, 6)}@example.com` });
    const res = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), contact_id: c.body.id, invitee: invitee() });
    expect(res.status).toBe(201);
    expect(res.body.contact_id).toBe(c.body.id);
    expectError(await book(ws, { meeting_type_id: mt.id, start_at: futureHour(1), contact_id: crypto.randomUUID() }), 404, 'Contact not found');
  });

  it('CONTACT_MERGE_REQUIRED books nothing', async () => {
    const { ws, mt } = await setupType();
    const email = `split-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await ws.api('POST', '/v1/contacts', { phone: '+14155550177' });
    await ws.api('POST', '/v1/contacts', { email });
    const res = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: { name: 'Split', email, phone: '+14155550177' } });
    expectError(res, 409, null, 'CONTACT_MERGE_REQUIRED');
    expect(res.body.merge_request_id).toBeTruthy();
    expect(await rowsIn(ws.id, 'SELECT id FROM bookings WHERE workspace_id = ?', ws.id)).toEqual([]);
  });

  it('validation messages of the body table', async () => {
    const { ws, mt } = await setupType();
    const base = { meeting_type_id: mt.id, start_at: futureHour(), timezone: 'UTC', invitee: invitee() };
    expectError(
      await ws.api('POST', '/v1/bookings', { meeting_type_id: mt.id, start_at: futureHour(), timezone: 'UTC' }),
      400,
      'Either contact_id or an invitee object is required',
    );
    expectError(await ws.api('POST', '/v1/bookings', { ...base, start_at: 'soon' }), 400, 'start_at must be a valid ISO date');
    expectError(await ws.api('POST', '/v1/bookings', { ...base, timezone: 'Mars/Olympus' }), 400, 'timezone must be a valid IANA time zone id');
    expect((await ws.api('POST', '/v1/bookings', { ...base, notes: 'x'.repeat(2001) })).status).toBe(400);
    expect((await ws.api('POST', '/v1/bookings', { ...base, invitee: { name: 'N', email: 'not-an-email' } })).status).toBe(400);
    expect((await ws.api('POST', '/v1/bookings', { ...base, invitee: { name: 'x'.repeat(201), email: 'a@example.com' } })).status).toBe(400);
    expect((await ws.api('POST', '/v1/bookings', { ...base, extra: 1 })).status).toBe(400);
    const off = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
      name: 'Off',
      slug: 'off',
      duration_minutes: 30,
      scheduling_kind: 'one_on_one',
      host_user_ids: [mt.hosts[0].user_id],
      timezone: 'UTC',
      weekly_hours: ALL_DAY,
      is_active: false,
    });
    expectError(await ws.api('POST', '/v1/bookings', { ...base, meeting_type_id: off.id }), 400, 'Meeting type is not active');
    expectError(await ws.api('POST', '/v1/bookings', { ...base, meeting_type_id: crypto.randomUUID() }), 404, 'Meeting type not found');
  });

  it('a start that is not an open slot is 409 SLOT_TAKEN: outside hours, off the interval, inside the notice, in the past', async () => {
    const { ws, mt } = await setupType({
      type: {
        weekly_hours: {
          mon: [['09:00', '10:00']],
          tue: [['09:00', '10:00']],
          wed: [['09:00', '10:00']],
          thu: [['09:00', '10:00']],
          fri: [['09:00', '10:00']],
          sat: [['09:00', '10:00']],
          sun: [['09:00', '10:00']],
        },
        min_notice_minutes: 2 * 24 * 60 + 11 * 60,
      },
    });
    expectError(await book(ws, { meeting_type_id: mt.id, start_at: futureHour(2), invitee: invitee() }), 409, null, 'SLOT_TAKEN'); // 12:00, outside
    expectError(await book(ws, { meeting_type_id: mt.id, start_at: futureHour(-0.75), invitee: invitee() }), 409, null, 'SLOT_TAKEN'); // 09:15, off the grid
    expectError(await book(ws, { meeting_type_id: mt.id, start_at: futureHour(-1), invitee: invitee() }), 409, null, 'SLOT_TAKEN'); // 09:00 in two days, inside the notice
    expectError(await book(ws, { meeting_type_id: mt.id, start_at: '2020-01-01T09:00:00Z', invitee: invitee() }), 409, null, 'SLOT_TAKEN');
    expect((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(47), invitee: invitee() })).status).toBe(201); // 09:00 two days later: past the notice at any time of day
  });

  it('a double submit answers the existing booking with duplicate: true; a pinned create never replays onto another host', async () => {
    const { ws, mt, hosts } = await setupType({ kind: 'round_robin', hostCount: 2 });
    const who = invitee();
    const first = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: who });
    const again = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: who });
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ id: first.body.id, duplicate: true });
    const other = hosts.find((h) => h.id !== first.body.host_user_id)!;
    const pinned = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: who, host_user_id: other.id });
    expect(pinned.status).toBe(201);
    expect(pinned.body).toMatchObject({ host_user_id: other.id, duplicate: false });
    expect(pinned.body.id).not.toBe(first.body.id);
    const pinnedAgain = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: who, host_user_id: other.id });
    expect(pinnedAgain.body).toMatchObject({ id: pinned.body.id, duplicate: true });
  });

  it('pinning: round-robin only, an active pool host, and a busy pinned host is SLOT_TAKEN', async () => {
    const one = await setupType();
    expectError(
      await book(one.ws, { meeting_type_id: one.mt.id, start_at: futureHour(), invitee: invitee(), host_user_id: one.hosts[0].id }),
      400,
      'Host pinning is only supported on round-robin meeting types',
    );
    const rr = await setupType({ kind: 'round_robin', hostCount: 2 });
    const outsider = await adminOk('POST', `/workspaces/${rr.ws.id}/users`, {
      name: 'Out',
      email: `out-${crypto.randomUUID().slice(0, 6)}@example.com`,
      role: 'agent',
    });
    expectError(
      await book(rr.ws, { meeting_type_id: rr.mt.id, start_at: futureHour(), invitee: invitee(), host_user_id: outsider.id }),
      400,
      "The pinned host is not an active member of this meeting type's pool",
    );
    const a = rr.hosts[0].id;
    expect((await book(rr.ws, { meeting_type_id: rr.mt.id, start_at: futureHour(), invitee: invitee(), host_user_id: a })).body.host_user_id).toBe(a);
    expectError(
      await book(rr.ws, { meeting_type_id: rr.mt.id, start_at: futureHour(), invitee: invitee(), host_user_id: a }),
      409,
      null,
      'SLOT_TAKEN',
    );
  });

  it('round-robin fairness: fewest recent bookings first (pinned bookings count), ties by least recently booked', async () => {
    const { ws, mt, hosts } = await setupType({ kind: 'round_robin', hostCount: 2 });
    const [a, b] = hosts.map((h) => h.id);
    // Two pinned bookings for a: the next automatic picks go to b until b catches up.
    await book(ws, { meeting_type_id: mt.id, start_at: futureHour(0), invitee: invitee(), host_user_id: a });
    await book(ws, { meeting_type_id: mt.id, start_at: futureHour(1), invitee: invitee(), host_user_id: a });
    const picks = [];
    for (let i = 0; i < 4; i++)
      picks.push((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(2 + i), invitee: invitee() })).body.host_user_id);
    // b, b (catches up 2-2), then tie: a was booked less recently -> a, then b.
    expect(picks).toEqual([b, b, a, b]);
  });

  it('collective bookings list every host, the assigned host first, and need every host free', async () => {
    const { ws, mt, hosts } = await setupType({ kind: 'collective', hostCount: 3 });
    const res = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee() });
    expect(res.body.host_user_id).toBe(hosts[0].id);
    expect(res.body.hosts).toEqual(hosts.map((h, i) => ({ user_id: h.id, name: h.name, role: i === 0 ? 'host' : 'co_host' })));
    await adminOk('POST', `/workspaces/${ws.id}/users/${hosts[2].id}/busy`, { start_at: futureHour(1), end_at: futureHour(1.5) });
    expectError(await book(ws, { meeting_type_id: mt.id, start_at: futureHour(1), invitee: invitee() }), 409, null, 'SLOT_TAKEN');
    // A co-host's booking blocks the slot for the whole team.
    expectError(await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee() }), 409, null, 'SLOT_TAKEN');
  });
});

describe('cancel, reschedule, reassign', () => {
  it('cancel: host side, reason, then 400 on a non-confirmed booking; the slot opens again', async () => {
    const { ws, mt } = await setupType();
    const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee() });
    const res = await ws.api('POST', `/v1/bookings/${b.body.id}/cancel`, { reason: 'Sick' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'cancelled', cancelled_by: 'host', cancellation_reason: 'Sick' });
    expect(res.body.cancelled_at).toBeTruthy();
    expectError(await ws.api('POST', `/v1/bookings/${b.body.id}/cancel`, {}), 400, 'Only confirmed bookings can be cancelled');
    expectError(
      await ws.api('POST', `/v1/bookings/${b.body.id}/reschedule`, { start_at: futureHour(1) }),
      400,
      'Only confirmed bookings can be rescheduled',
    );
    expectError(await ws.api('POST', `/v1/bookings/${b.body.id}/reassign`, {}), 400, 'Only confirmed bookings can be reassigned');
    expectError(await ws.api('POST', `/v1/bookings/${crypto.randomUUID()}/cancel`, {}), 404, 'Booking not found');
    expect((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee() })).status).toBe(201);
  });

  it('reschedule: releases the old slot, keeps the timezone unless given, counts, and refuses a taken slot', async () => {
    const { ws, mt } = await setupType();
    const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee(), timezone: 'Asia/Kolkata' });
    const other = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(2), invitee: invitee() });
    expectError(await ws.api('POST', `/v1/bookings/${b.body.id}/reschedule`, { start_at: futureHour(2) }), 409, null, 'SLOT_TAKEN');
    expectError(await ws.api('POST', `/v1/bookings/${b.body.id}/reschedule`, { start_at: 'later' }), 400, 'start_at must be a valid ISO date');
    expectError(
      await ws.api('POST', `/v1/bookings/${b.body.id}/reschedule`, { start_at: futureHour(1), timezone: 'Nowhere/City' }),
      400,
      'timezone must be a valid IANA time zone id',
    );
    const moved = await ws.api('POST', `/v1/bookings/${b.body.id}/reschedule`, { start_at: futureHour(1) });
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({
      start_at: futureHour(1),
      end_at: futureHour(1.5),
      previous_start_at: futureHour(),
      reschedule_count: 1,
      invitee_timezone: 'Asia/Kolkata',
    });
    expect(moved.body.rescheduled_at).toBeTruthy();
    // Moving by half an hour overlaps its own old slot: allowed.
    const nudged = await ws.api('POST', `/v1/bookings/${b.body.id}/reschedule`, { start_at: futureHour(1.5), timezone: 'Europe/Berlin' });
    expect(nudged.body).toMatchObject({ reschedule_count: 2, invitee_timezone: 'Europe/Berlin', previous_start_at: futureHour(1) });
    // The old slot is free again.
    expect((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee() })).status).toBe(201);
    expect(other.status).toBe(201);
  });

  it('reschedule onto a start where the same contact already holds a booking of the type (another host) is SLOT_TAKEN', async () => {
    const { ws, mt } = await setupType({ kind: 'round_robin', hostCount: 2 });
    const who = invitee();
    const first = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: who });
    const second = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(1), invitee: who });
    expect(second.body.host_user_id).not.toBe(first.body.host_user_id);
    expectError(await ws.api('POST', `/v1/bookings/${second.body.id}/reschedule`, { start_at: futureHour() }), 409, null, 'SLOT_TAKEN');
    expect((await ws.api('GET', `/v1/bookings/${second.body.id}`)).body.start_at).toBe(futureHour(1));
  });

  it('reassign: every guard and message', async () => {
    const rr = await setupType({ kind: 'round_robin', hostCount: 2 });
    const b = await book(rr.ws, { meeting_type_id: rr.mt.id, start_at: futureHour(), invitee: invitee() });
    const current = b.body.host_user_id;
    const other = rr.hosts.find((h) => h.id !== current)!.id;
    expectError(
      await rr.ws.api('POST', `/v1/bookings/${b.body.id}/reassign`, { user_id: current }),
      400,
      'This host is already assigned to the booking',
    );
    expectError(
      await rr.ws.api('POST', `/v1/bookings/${b.body.id}/reassign`, { user_id: crypto.randomUUID() }),
      400,
      'The target host must be an active member of this workspace',
    );
    const inactive = await adminOk('POST', `/workspaces/${rr.ws.id}/users`, {
      name: 'Gone',
      email: `gone-${crypto.randomUUID().slice(0, 6)}@example.com`,
      role: 'agent',
      active: false,
    });
    expectError(
      await rr.ws.api('POST', `/v1/bookings/${b.body.id}/reassign`, { user_id: inactive.id }),
      400,
      'The target host must be an active member of this workspace',
    );
    expect((await rr.ws.api('POST', `/v1/bookings/${b.body.id}/reassign`, { force: 'yes' })).status).toBe(400);
    expectError(await rr.ws.api('POST', `/v1/bookings/${crypto.randomUUID()}/reassign`, {}), 404, 'Booking not found');

    const one = await setupType();
    const sb = await book(one.ws, { meeting_type_id: one.mt.id, start_at: futureHour(3), invitee: invitee() });
    expectError(
      await one.ws.api('POST', `/v1/bookings/${sb.body.id}/reassign`, {}),
      400,
      'Choose a host - automatic reassignment is only available on round-robin meeting types',
    );

    const team = await setupType({ kind: 'collective', hostCount: 2 });
    const tb = await book(team.ws, { meeting_type_id: team.mt.id, start_at: futureHour(), invitee: invitee() });
    expectError(
      await team.ws.api('POST', `/v1/bookings/${tb.body.id}/reassign`, { user_id: team.hosts[1].id }),
      400,
      'Collective bookings cannot be reassigned - every pool host attends',
    );

    // Already started.
    await runOnShards("UPDATE bookings SET start_at = '2020-01-01T00:00:00.000Z' WHERE id = ?", b.body.id);
    expectError(await rr.ws.api('POST', `/v1/bookings/${b.body.id}/reassign`, { user_id: other }), 400, 'This booking has already started');

    // Meeting type gone.
    const gone = await book(rr.ws, { meeting_type_id: rr.mt.id, start_at: futureHour(5), invitee: invitee() });
    await runOnShards('UPDATE bookings SET meeting_type_id = ? WHERE id = ?', crypto.randomUUID(), gone.body.id);
    expectError(
      await rr.ws.api('POST', `/v1/bookings/${gone.body.id}/reassign`, { user_id: other }),
      404,
      'The meeting type for this booking no longer exists',
    );
    expectError(
      await rr.ws.api('POST', `/v1/bookings/${gone.body.id}/reschedule`, { start_at: futureHour(6) }),
      400,
      'The meeting type for this booking no longer exists',
    );
  });

  it('reassign: soft failures are HOST_UNAVAILABLE unless force is literally true; genuine conflicts are SLOT_TAKEN; history records the reason', async () => {
    const { ws, mt, hosts } = await setupType({ kind: 'round_robin', hostCount: 3, type: { buffer_before_minutes: 30 } });
    const [a, b, c] = hosts.map((h) => h.id);
    const mine = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(2), invitee: invitee(), host_user_id: a });
    // b: busy block (soft). c: a booking overlapping (hard), then only in the buffer (soft).
    await adminOk('POST', `/workspaces/${ws.id}/users/${b}/busy`, { start_at: futureHour(2), end_at: futureHour(3) });
    const cb = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(2), invitee: invitee(), host_user_id: c });
    expectError(await ws.api('POST', `/v1/bookings/${mine.body.id}/reassign`, { user_id: b }), 409, null, 'HOST_UNAVAILABLE');
    expectError(await ws.api('POST', `/v1/bookings/${mine.body.id}/reassign`, { user_id: c, force: true }), 409, null, 'SLOT_TAKEN');
    // Automatic pick: b is soft-busy, c hard-busy: the pool is exhausted.
    expectError(await ws.api('POST', `/v1/bookings/${mine.body.id}/reassign`, {}), 409, null, 'SLOT_TAKEN');
    await ws.api('POST', `/v1/bookings/${cb.body.id}/reschedule`, { start_at: futureHour(1.5) });
    expectError(await ws.api('POST', `/v1/bookings/${mine.body.id}/reassign`, { user_id: c }), 409, null, 'HOST_UNAVAILABLE');
    const forced = await ws.api('POST', `/v1/bookings/${mine.body.id}/reassign`, { user_id: b, force: true, reason: 'Coverage' });
    expect(forced.status).toBe(201);
    expect(forced.body).toMatchObject({ host_user_id: b, hosts: [{ user_id: b, name: 'Host 2', role: 'host' }] });
    const history = await rowsIn(
      ws.id,
      'SELECT from_user_id, to_user_id, reason, kind, forced FROM booking_assignments WHERE booking_id = ? ORDER BY created_at, id',
      mine.body.id,
    );
    expect(history).toEqual([
      { from_user_id: null, to_user_id: a, reason: 'pinned', kind: 'created', forced: 0 },
      { from_user_id: a, to_user_id: b, reason: 'Coverage', kind: 'reassigned', forced: 1 },
    ]);
    // Automatic re-pick excluding the current host: a is free again.
    const auto = await ws.api('POST', `/v1/bookings/${mine.body.id}/reassign`, {});
    expect(auto.body.host_user_id).toBe(a);
  });

  it('reassign: a booking changed concurrently answers BOOKING_MODIFIED; every success is in the history', async () => {
    const { ws, mt, hosts } = await setupType({ kind: 'round_robin', hostCount: 4 });
    const mine = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee(), host_user_id: hosts[0].id });
    const results = await Promise.all(hosts.slice(1).map((h) => ws.api('POST', `/v1/bookings/${mine.body.id}/reassign`, { user_id: h.id })));
    const ok = results.filter((r) => r.status === 201);
    expect(ok.length).toBeGreaterThan(0);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body.error_code).toBe('BOOKING_MODIFIED');
    }
    const history = await rowsIn(ws.id, "SELECT to_user_id FROM booking_assignments WHERE booking_id = ? AND kind = 'reassigned'", mine.body.id);
    expect(history).toHaveLength(ok.length);
    const final = await ws.api('GET', `/v1/bookings/${mine.body.id}`);
    expect(ok.map((r) => r.body.host_user_id)).toContain(final.body.host_user_id);
  });
});

describe('GET /v1/bookings', () => {
  it('status, meeting_type_id, from/to on start_at, sort default -start_at, paging; malformed values 400', async () => {
    const { ws, mt } = await setupType();
    const ids = [];
    for (const h of [0, 1, 2]) ids.push((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(h), invitee: invitee() })).body.id);
    await ws.api('POST', `/v1/bookings/${ids[1]}/cancel`, {});
    const all = await ws.api('GET', '/v1/bookings');
    expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.body.data.map((b: { id: string }) => b.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect((await ws.api('GET', '/v1/bookings?sort=start_at&limit=1&offset=1')).body.data.map((b: { id: string }) => b.id)).toEqual([ids[1]]);
    expect((await ws.api('GET', '/v1/bookings?status=cancelled')).body.data.map((b: { id: string }) => b.id)).toEqual([ids[1]]);
    expect(
      (await ws.api('GET', `/v1/bookings?from=${futureHour(1)}&to=${futureHour(2)}&status=confirmed`)).body.data.map((b: { id: string }) => b.id),
    ).toEqual([ids[2]]);
    expect((await ws.api('GET', `/v1/bookings?meeting_type_id=${crypto.randomUUID()}`)).body.total).toBe(0);
    expect((await ws.api('GET', `/v1/bookings?meeting_type_id=${mt.id}`)).body.total).toBe(3);
    expectError(await ws.api('GET', '/v1/bookings?status=open'), 400, 'Invalid status: must be one of confirmed, cancelled, completed, no_show');
    expectError(await ws.api('GET', '/v1/bookings?meeting_type_id=abc'), 400, 'Invalid meeting_type_id: must be a UUID');
    expectError(await ws.api('GET', '/v1/bookings?from=tomorrow'), 400, 'Invalid from: must be an ISO 8601 date');
    expectError(await ws.api('GET', '/v1/bookings?to=2026-13-01'), 400, 'Invalid to: must be an ISO 8601 date');
    expectError(await ws.api('GET', '/v1/bookings?sort=contact_id'), 400, null);
    expectError(await ws.api('GET', '/v1/bookings?limit=1.5'), 400, 'Invalid limit: must be a non-negative integer');
    expectError(await ws.api('GET', '/v1/bookings?offset=-2'), 400, 'Invalid offset: must be a non-negative integer');
    // No filter or search: ignored like any unknown query parameter.
    expect((await ws.api('GET', '/v1/bookings?filter={"status":"cancelled"}')).body.total).toBe(3);
  });
});

describe('booking events', () => {
  it('created, rescheduled, cancelled and reassigned carry the exact documented data, never a manage link', async () => {
    const { ws, mt, hosts } = await setupType({ kind: 'round_robin', hostCount: 2 });
    const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: invitee(), host_user_id: hosts[0].id });
    await ws.api('POST', `/v1/bookings/${b.body.id}/reschedule`, { start_at: futureHour(1) });
    await ws.api('POST', `/v1/bookings/${b.body.id}/reassign`, { user_id: hosts[1].id });
    await ws.api('POST', `/v1/bookings/${b.body.id}/cancel`, { reason: 'No longer needed' });
    const events = await eventsOf(ws.id);
    expect(events.map((e) => e.type)).toEqual(['booking.created', 'booking.rescheduled', 'booking.reassigned', 'booking.cancelled']);
    const common = {
      booking_id: b.body.id,
      contact_id: b.body.contact_id,
      meeting_type_id: mt.id,
      meeting_type_name: 'Intro call',
      host_timezone: 'UTC',
      invitee_timezone: 'Europe/Berlin',
      location_type: 'video',
      source: 'api',
    };
    expect(events[0].data).toEqual({
      ...common,
      host_user_id: hosts[0].id,
      host_name: 'Host 1',
      previous_host_name: null,
      start_at: futureHour(),
      end_at: futureHour(0.5),
      status: 'confirmed',
      cancelled_by: null,
      cancel_reason: null,
    });
    expect(events[1].data).toEqual({
      ...common,
      host_user_id: hosts[0].id,
      host_name: 'Host 1',
      previous_host_name: null,
      start_at: futureHour(1),
      end_at: futureHour(1.5),
      status: 'confirmed',
      cancelled_by: null,
      cancel_reason: null,
    });
    expect(events[2].data).toEqual({
      ...common,
      host_user_id: hosts[1].id,
      host_name: 'Host 2',
      previous_host_name: 'Host 1',
      start_at: futureHour(1),
      end_at: futureHour(1.5),
      status: 'confirmed',
      cancelled_by: null,
      cancel_reason: null,
    });
    expect(events[3].data).toEqual({
      ...common,
      host_user_id: hosts[1].id,
      host_name: 'Host 2',
      previous_host_name: null,
      start_at: futureHour(1),
      end_at: futureHour(1.5),
      status: 'cancelled',
      cancelled_by: 'host',
      cancel_reason: 'No longer needed',
    });
    expect(JSON.stringify(events)).not.toMatch(/manage|token/i);
    // Each matches its documented payload schema exactly (no extra keys).
    for (const e of events) expect(EVENT_PAYLOADS[e.type as keyof typeof EVENT_PAYLOADS].strict().parse(e.data)).toEqual(e.data);
    // A refused change emits nothing; a duplicate emits nothing.
    await ws.api('POST', `/v1/bookings/${b.body.id}/cancel`, {});
    expect(await eventsOf(ws.id)).toHaveLength(4);
  });
});

describe('bookings-status sweep', () => {
  it('ends confirmed bookings whose end has passed: completed, or no_show where the host marked it; idempotent; no events', async () => {
    const { ws, mt } = await setupType();
    const ids = [];
    for (const h of [0, 1, 2]) ids.push((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(h), invitee: invitee() })).body.id);
    await adminOk('POST', `/workspaces/${ws.id}/bookings/${ids[1]}/no-show`, {});
    // Bookings 0 and 1 end in the past; 2 is still ahead.
    for (const id of ids.slice(0, 2))
      await runOnShards("UPDATE bookings SET start_at = '2020-01-01T09:00:00.000Z', end_at = '2020-01-01T09:30:00.000Z' WHERE id = ?", id);
    const before = (await eventsOf(ws.id)).length;
    const run = await adminOk('POST', '/sweeps/bookings-status', {});
    expect(run.result.bookings_completed).toBeGreaterThanOrEqual(1);
    expect(run.result.bookings_no_show).toBeGreaterThanOrEqual(1);
    const statuses = await Promise.all(ids.map(async (id) => (await ws.api('GET', `/v1/bookings/${id}`)).body.status));
    expect(statuses).toEqual(['completed', 'no_show', 'confirmed']);
    await adminOk('POST', '/sweeps/bookings-status', {});
    expect(await Promise.all(ids.map(async (id) => (await ws.api('GET', `/v1/bookings/${id}`)).body.status))).toEqual(statuses);
    expect((await eventsOf(ws.id)).length).toBe(before);
    expectError(await ws.api('POST', `/v1/bookings/${ids[0]}/cancel`, {}), 400, 'Only confirmed bookings can be cancelled');
  });

  it('works off a backlog in bounded chunks', async () => {
    const { sweepBookingStatus } = await import('../../src/modules/bookings/sweep');
    const { shardDb } = await import('../../src/platform/d1/shards');
    const { env } = await import('cloudflare:workers');
    const { ws, mt } = await setupType();
    for (const h of [0, 1, 2]) await book(ws, { meeting_type_id: mt.id, start_at: futureHour(h), invitee: invitee() });
    await runOnShards("UPDATE bookings SET end_at = '2020-01-01T09:30:00.000Z' WHERE workspace_id = ?", ws.id);
    const [{ shard }] = await (env as any).DB.prepare('SELECT shard FROM workspaces WHERE id = ?')
      .bind(ws.id)
      .all()
      .then((r: any) => r.results);
    const db = shardDb(env as any, shard);
    let passes = 0;
    while ((await rowsIn(ws.id, "SELECT id FROM bookings WHERE workspace_id = ? AND status = 'confirmed'", ws.id)).length && passes < 10) {
      const r = await sweepBookingStatus(env as any, db, { chunk: 1 });
      expect(r.bookings_completed + r.bookings_no_show).toBeLessThanOrEqual(1);
      passes++;
    }
    expect(await rowsIn(ws.id, "SELECT id FROM bookings WHERE workspace_id = ? AND status = 'confirmed'", ws.id)).toEqual([]);
  });
});

describe('contact merge', () => {
  it('moves the absorbed contact bookings to the surviving contact', async () => {
    const { ws, mt } = await setupType();
    const email = `merge-${crypto.randomUUID().slice(0, 6)}@example.com`;
    const target = await ws.api('POST', '/v1/contacts', { phone: '+14155550188' });
    const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(), invitee: { name: 'Absorbed', email } });
    expect(b.body.contact_id).not.toBe(target.body.id);
    const conflict = await ws.api('POST', '/v1/contacts', { phone: '+14155550188', email });
    expect(conflict.status).toBe(409);
    await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    expect((await ws.api('GET', `/v1/bookings/${b.body.id}`)).body.contact_id).toBe(target.body.id);
  });
});

describe('feature gate', () => {
  it('every booking route needs the booking feature', async () => {
    const ws = await makeWorkspace({ features: ['deals'] }, { pipeline: false });
    const res = await ws.api('GET', '/v1/bookings');
    expect(res.status).toBe(403);
    expect(res.body.error_code).toBe('FEATURE_NOT_INCLUDED_IN_PLAN');
  });
});
