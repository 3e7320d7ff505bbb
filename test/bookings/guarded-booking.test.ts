import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { aroundStartRead, listingRead } from '../../src/modules/bookings/calendar';
import { durableSlotLocks, type SlotLocks } from '../../src/modules/bookings/locks';
import { createBooking } from '../../src/modules/bookings/create-booking';
import { calendarWindow } from '../../src/modules/bookings/slots';
import { workspaceContext } from '../../src/modules/workspaces/context';
import type { Bindings } from '../../src/env';
import { runBatch, type Statement } from '../../src/platform/d1/db';
import { ApiError } from '../../src/platform/errors';
import { FRAMEWORK_SURFACE } from '../../src/platform/error-surfaces';
import { rowsIn, runOnShards, shardOf } from '../support/db';
import { countingEnv, type Counter } from '../../bench/counting-d1';
import { adminOk } from '../support/harness';
import { book, futureHour, invitee, setupType } from './helpers';

const MIN = 60_000;
const bindings = env as unknown as Bindings;

/** Locks that hold nothing but let `meanwhile` run once, after the booking's first read and before its write. */
function locksWith(meanwhile: () => Promise<unknown>): SlotLocks & { holds: number } {
  const locks = {
    holds: 0,
    async hold<T>(_ws: string, _claims: unknown, work: () => Promise<T>, opts?: { guarded?: boolean }) {
      // A booking's write is guarded, so its leases may live in memory.
      expect(opts?.guarded).toBe(true);
      if (locks.holds++ === 0) await meanwhile();
      return work();
    },
  };
  return locks;
}

/** `createBooking` with these locks; `counter` counts its D1 round trips (not the confirmation's, sent after). */
async function bookDirectly(wsId: string, locks: SlotLocks, body: Record<string, unknown>, counter: Counter = { queries: 0, statements: 0 }) {
  const ctx = await workspaceContext(countingEnv(bindings, counter), wsId);
  counter.queries = 0;
  const later: (() => Promise<unknown>)[] = [];
  try {
    return await createBooking(ctx, locks, { timezone: 'UTC', ...body } as never, {
      source: 'api',
      base: 'https://api.test',
      env: bindings,
      defer: (task) => later.push(task),
    });
  } finally {
    const roundTrips = counter.queries;
    await Promise.allSettled(later.map((task) => task()));
    counter.queries = roundTrips;
  }
}

const refusal = (err: unknown) => (err instanceof ApiError ? { status: err.status, code: err.bodyOn(FRAMEWORK_SURFACE).error_code } : err);

describe('a booking written on the calendar it was decided on', () => {
  it('a conflicting booking committed between the read and the write: SLOT_TAKEN, one booking stored', async () => {
    const { ws, mt } = await setupType();
    const contact = await ws.api('POST', '/v1/contacts', { email: invitee().email });
    const start = futureHour(1);
    const locks = locksWith(async () => expect((await book(ws, { meeting_type_id: mt.id, start_at: start, invitee: invitee() })).status).toBe(201));
    const refused = await bookDirectly(ws.id, locks, { meeting_type_id: mt.id, start_at: start, contact_id: contact.body.id }).catch(refusal);
    expect(refused).toEqual({ status: 409, code: 'SLOT_TAKEN' });
    expect(
      await rowsIn(ws.id, "SELECT id FROM bookings WHERE workspace_id = ? AND status = 'confirmed' AND start_at = ?", ws.id, start),
    ).toHaveLength(1);
  });

  it('round-robin: the picked host taken in between, the next pass books the other one', async () => {
    const { ws, mt, hosts } = await setupType({ kind: 'round_robin', hostCount: 2 });
    const contact = await ws.api('POST', '/v1/contacts', { email: invitee().email });
    const start = futureHour(2);
    // Both hosts are free and equally fair: the first in pool order is picked, then taken by a pinned booking.
    const locks = locksWith(async () =>
      expect((await book(ws, { meeting_type_id: mt.id, start_at: start, host_user_id: hosts[0].id, invitee: invitee() })).status).toBe(201),
    );
    const counter = { queries: 0, statements: 0 };
    const booked = await bookDirectly(ws.id, locks, { meeting_type_id: mt.id, start_at: start, contact_id: contact.body.id }, counter);
    expect(booked.host_user_id).toBe(hosts[1].id);
    expect(locks.holds).toBe(2);
    // The read, the refused write, the next pass's read, the write.
    expect(counter.queries).toBe(4);
  });

  it('a change inside the locked day that leaves the slot free (daily cap 2): read again, then written', async () => {
    const { ws, mt } = await setupType({ type: { daily_cap: 2 } });
    const contact = await ws.api('POST', '/v1/contacts', { email: invitee().email });
    const locks = locksWith(async () =>
      expect((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(4), invitee: invitee() })).status).toBe(201),
    );
    const counter = { queries: 0, statements: 0 };
    const booked = await bookDirectly(ws.id, locks, { meeting_type_id: mt.id, start_at: futureHour(1), contact_id: contact.body.id }, counter);
    expect(booked.duplicate).toBe(false);
    expect(locks.holds).toBe(2);
    // The read, the refused write, the next pass's read, the write.
    expect(counter.queries).toBe(4);
    expect(await rowsIn(ws.id, "SELECT id FROM bookings WHERE workspace_id = ? AND status = 'confirmed'", ws.id)).toHaveLength(2);
  });

  it('the same change reaching the daily cap (1): SLOT_TAKEN', async () => {
    const { ws, mt } = await setupType({ type: { daily_cap: 1 } });
    const contact = await ws.api('POST', '/v1/contacts', { email: invitee().email });
    const locks = locksWith(async () =>
      expect((await book(ws, { meeting_type_id: mt.id, start_at: futureHour(4), invitee: invitee() })).status).toBe(201),
    );
    const refused = await bookDirectly(ws.id, locks, { meeting_type_id: mt.id, start_at: futureHour(1), contact_id: contact.body.id }).catch(refusal);
    expect(refused).toEqual({ status: 409, code: 'SLOT_TAKEN' });
    expect(await rowsIn(ws.id, "SELECT id FROM bookings WHERE workspace_id = ? AND status = 'confirmed'", ws.id)).toHaveLength(1);
  });

  it('the locks are released after the answer, through the request context', async () => {
    const kept: Promise<unknown>[] = [];
    const locks = durableSlotLocks(bindings, { waitUntil: (p) => kept.push(p) });
    const claim = { host: `host-${crypto.randomUUID()}`, start: 0, end: 100 };
    expect(await locks.hold('ws-release', [claim], async () => 'written')).toBe('written');
    expect(kept).toHaveLength(1);
    await Promise.all(kept);
    // Released: the same range is claimed again at once (a held one would wait, then refuse).
    const ns = bindings.SLOT_LOCK;
    expect((await ns.get(ns.idFromName(`ws-release:${claim.host}`)).claim([{ start: 0, end: 100 }], 1000)).ok).toBe(true);
  });

  it('a round-robin booking whose host left the pool cannot be rescheduled (409, not a failure)', async () => {
    const { ws, mt } = await setupType({ kind: 'round_robin', hostCount: 2 });
    const first = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(1), invitee: invitee() });
    expect(first.status).toBe(201);
    await runOnShards('UPDATE users SET active = 0 WHERE id = ?', first.body.host_user_id);
    const moved = await ws.api('POST', `/v1/bookings/${first.body.id}/reschedule`, { start_at: futureHour(3) });
    expect(moved.status).toBe(409);
    expect(moved.body.error_code).toBe('SLOT_TAKEN');
  });
});

describe('the calendar read beside the meeting type', () => {
  const iso = (ms: number) => new Date(ms).toISOString();

  async function seeded(type: Record<string, unknown>) {
    const { ws, mt, hosts } = await setupType({ type });
    const ctx = await workspaceContext(bindings, ws.id);
    const insert = async (id: string, start: number, end: number) => {
      await runOnShards(
        `INSERT INTO bookings (id, workspace_id, meeting_type_id, contact_id, host_user_id, host_user_ids, status, start_at, end_at, host_timezone, invitee_timezone, invitee_name, invitee_email, source, dedupe_key, reschedule_count, version, created_at, updated_at)
         VALUES (?, ?, ?, 'c', ?, ?, 'confirmed', ?, ?, 'UTC', 'UTC', 'n', 'e', 'api', ?, 0, 1, ?, ?)`,
        id,
        ws.id,
        mt.id,
        hosts[0].id,
        JSON.stringify([hosts[0].id]),
        iso(start),
        iso(end),
        id,
        iso(start),
        iso(start),
      );
      await runOnShards(
        'INSERT INTO busy_blocks (id, workspace_id, user_id, start_at, end_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        id,
        ws.id,
        hosts[0].id,
        iso(start),
        iso(end),
        iso(start),
      );
    };
    return { ws, mt, ctx, insert };
  }

  /** Commitments at each edge of the window: touching it from outside (not read), overlapping it by a millisecond (read), and the longest meeting just overlapping it. */
  async function edges(insert: (id: string, start: number, end: number) => Promise<void>, w: { from: number; to: number }) {
    const inside = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const outside = [crypto.randomUUID(), crypto.randomUUID()];
    await insert(inside[0], w.from - 30 * MIN, w.from + 1);
    await insert(inside[1], w.to - 1, w.to + 30 * MIN);
    await insert(inside[2], w.from - 719 * MIN, w.from + MIN);
    await insert(outside[0], w.from - 30 * MIN, w.from);
    await insert(outside[1], w.to, w.to + 30 * MIN);
    return { inside, outside };
  }

  /** The ids of the bookings and blocks a calendar read answers. */
  const idsOf = async (db: Parameters<typeof runBatch>[0], statement: Statement) => {
    const [[row]] = (await runBatch(db, [statement])) as { bookings: string; blocks: string }[][];
    const ids = (json: string) => (JSON.parse(json) as string[][]).map(([id]) => id).sort();
    return { bookings: ids(row.bookings), blocks: ids(row.blocks) };
  };

  for (const type of [
    { buffer_before_minutes: 10, buffer_after_minutes: 15 },
    { buffer_before_minutes: 0, buffer_after_minutes: 45, daily_cap: 3 },
  ]) {
    it(`reads exactly the window calendarWindow gives (${JSON.stringify(type)})`, async () => {
      const { mt, ctx, insert } = await seeded(type);
      const rules = {
        bufferBeforeMinutes: type.buffer_before_minutes,
        bufferAfterMinutes: type.buffer_after_minutes,
        durationMinutes: 30,
        dailyCap: type.daily_cap ?? null,
      };
      const from = Date.parse(futureHour(24)) + 7 * MIN + 123;
      const to = from + 3 * 86_400_000;
      const listing = await edges(insert, calendarWindow(rules, from, to));
      const start = from + 10 * 86_400_000;
      const around = await edges(insert, calendarWindow(rules, start, start + 30 * MIN));
      const read = await idsOf(ctx.db, listingRead(ctx.db, ctx.ws.id, mt.id, from, to));
      expect(read.bookings).toEqual([...listing.inside].sort());
      expect(read.blocks).toEqual([...listing.inside].sort());
      const near = await idsOf(ctx.db, aroundStartRead(ctx.db, ctx.ws.id, mt.id, start));
      expect(near.bookings).toEqual([...around.inside].sort());
      expect(near.blocks).toEqual([...around.inside].sort());
    });
  }

  it('scans the start index from the window less the longest meeting to its end', async () => {
    const { ws, mt } = await setupType();
    const ctx = await workspaceContext(bindings, ws.id);
    const statement = listingRead(ctx.db, ws.id, mt.id, Date.now(), Date.now() + 86_400_000);
    const { sql, params } = (statement as unknown as { getQuery(): { sql: string; params: unknown[] } }).getQuery();
    const plan = await (await shardOf(ws.id))
      .prepare(`EXPLAIN QUERY PLAN ${sql}`)
      .bind(...params)
      .all<{ detail: string }>();
    expect(plan.results.map((r) => r.detail)).toContain(
      'SEARCH b USING INDEX bookings_workspace_status_start (workspace_id=? AND status=? AND start_at>? AND start_at<?)',
    );
  });
});

describe('meeting types the booking batch reads', () => {
  it('an unknown or inactive meeting type answers before an invitee the contact rules refuse (a bad phone)', async () => {
    const { ws } = await setupType();
    const res = await book(ws, {
      meeting_type_id: crypto.randomUUID(),
      start_at: futureHour(1),
      invitee: { name: 'x', email: 'x@example.com', phone: 'not a phone' },
    });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('Meeting type not found');
    const inactive = await adminOk('POST', `/workspaces/${ws.id}/meeting-types`, {
      name: 'Off',
      slug: `off-${crypto.randomUUID().slice(0, 8)}`,
      duration_minutes: 30,
      scheduling_kind: 'one_on_one',
      host_user_ids: [
        (await adminOk('POST', `/workspaces/${ws.id}/users`, { name: 'H', email: `h-${crypto.randomUUID().slice(0, 8)}@example.com`, role: 'agent' }))
          .id,
      ],
      timezone: 'UTC',
      is_active: false,
    });
    const off = await book(ws, {
      meeting_type_id: inactive.id,
      start_at: futureHour(1),
      invitee: { name: 'x', email: 'x@example.com', phone: 'not a phone' },
    });
    expect(off.status).toBe(400);
    expect(off.body.message).toBe('Meeting type is not active');
    const { mt } = await setupType({ ws });
    const phone = await book(ws, {
      meeting_type_id: mt.id,
      start_at: futureHour(1),
      invitee: { name: 'x', email: 'x@example.com', phone: 'not a phone' },
    });
    expect(phone.status).toBe(400);
  });
});
