import { runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { rowsIn } from '../support/db';
import { adminOk } from '../support/harness';
import { ALL_DAY, book, futureHour, invitee, setupType } from './helpers';

/** Race-safe slot taking: parallel requests, then the invariant in the database. */
describe('SlotLock: race-safe slot taking', () => {
  it('10 parallel invitees on one one-on-one slot: one 201, nine 409 SLOT_TAKEN, one booking stored', async () => {
    const { ws, mt } = await setupType();
    const start = futureHour();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => book(ws, { meeting_type_id: mt.id, start_at: start, invitee: invitee('race') })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error_code).toBe('SLOT_TAKEN');
    const rows = await rowsIn(ws.id, "SELECT id FROM bookings WHERE workspace_id = ? AND status = 'confirmed'", ws.id);
    expect(rows).toHaveLength(1);
  });

  it('round-robin: two bookings at one slot land on two hosts, a third finds the pool exhausted', async () => {
    const { ws, mt, hosts } = await setupType({ kind: 'round_robin', hostCount: 2 });
    const start = futureHour(1);
    const results = await Promise.all(Array.from({ length: 3 }, () => book(ws, { meeting_type_id: mt.id, start_at: start, invitee: invitee('rr') })));
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(2);
    expect(new Set(ok.map((r) => r.body.host_user_id))).toEqual(new Set(hosts.map((h) => h.id)));
    const lost = results.find((r) => r.status !== 201)!;
    expect(lost.status).toBe(409);
    expect(lost.body.error_code).toBe('SLOT_TAKEN');
  });

  it('a reschedule and a new booking racing for one slot: exactly one wins', async () => {
    const { ws, mt } = await setupType();
    const first = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(0), invitee: invitee() });
    expect(first.status).toBe(201);
    const target = futureHour(3);
    const [moved, fresh] = await Promise.all([
      ws.api('POST', `/v1/bookings/${first.body.id}/reschedule`, { start_at: target }),
      book(ws, { meeting_type_id: mt.id, start_at: target, invitee: invitee() }),
    ]);
    expect([moved.status, fresh.status].sort()).toEqual([201, 409]);
    expect([moved, fresh].find((r) => r.status === 409)!.body.error_code).toBe('SLOT_TAKEN');
    const atTarget = await rowsIn(ws.id, "SELECT id FROM bookings WHERE workspace_id = ? AND status = 'confirmed' AND start_at = ?", ws.id, target);
    expect(atTarget).toHaveLength(1);
  });

  it('overlapping but not identical slots are detected: a 30- and a 60-minute type sharing a host', async () => {
    const short = await setupType();
    const sixty = await adminOk('POST', `/workspaces/${short.ws.id}/meeting-types`, {
      name: 'Long call',
      slug: `long-${crypto.randomUUID().slice(0, 8)}`,
      duration_minutes: 60,
      slot_interval_minutes: 30,
      scheduling_kind: 'one_on_one',
      host_user_ids: [short.hosts[0].id],
      timezone: 'UTC',
      weekly_hours: ALL_DAY,
    });
    const ws = short.ws;
    // 30-minute slot at +0:30 overlaps the 60-minute slot at +0:00.
    for (let round = 0; round < 3; round++) {
      const base = 6 + round * 3;
      const results = await Promise.all([
        book(ws, { meeting_type_id: short.mt.id, start_at: futureHour(base + 0.5), invitee: invitee() }),
        book(ws, { meeting_type_id: sixty.id, start_at: futureHour(base), invitee: invitee() }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    }
    const rows = await rowsIn<{ start_at: string; end_at: string }>(
      ws.id,
      "SELECT start_at, end_at FROM bookings WHERE workspace_id = ? AND status = 'confirmed' ORDER BY start_at",
      ws.id,
    );
    for (let i = 1; i < rows.length; i++) expect(rows[i].start_at >= rows[i - 1].end_at).toBe(true);
  });

  it('a parallel double submit of the same slot, type and contact books once and answers the same booking', async () => {
    const { ws, mt } = await setupType();
    const who = invitee('double');
    const start = futureHour(5);
    const results = await Promise.all(Array.from({ length: 5 }, () => book(ws, { meeting_type_id: mt.id, start_at: start, invitee: who })));
    // The contact upsert may race too: every answer is the one booking (or a lost race on the slot).
    const created = results.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(created.filter((r) => r.body.duplicate === false)).toHaveLength(1);
    const rows = await rowsIn(ws.id, "SELECT id FROM bookings WHERE workspace_id = ? AND status = 'confirmed'", ws.id);
    expect(rows).toHaveLength(1);
  });
});

describe('SlotLock leases', () => {
  it('serializes overlapping claims, lets disjoint ones through, and a lease that is never released expires', async () => {
    const { env } = await import('cloudflare:workers');
    const ns = (env as any).SLOT_LOCK as DurableObjectNamespace<import('../../src/durable-objects/slot-lock').SlotLock>;
    const stub = ns.get(ns.idFromName(`lease-test:${crypto.randomUUID()}`));
    const held = await stub.claim([{ start: 0, end: 100 }], 60_000);
    expect(held.ok).toBe(true);
    expect((await stub.claim([{ start: 50, end: 150 }], 60_000)).ok).toBe(false);
    expect((await stub.claim([{ start: 100, end: 200 }], 60_000)).ok).toBe(true);
    // The first holder "crashed": nothing releases it, yet its range frees up when the lease runs out
    // (moved into the past here rather than waited for, so the outcome never depends on timing).
    await runInDurableObject(stub, (_: unknown, state: DurableObjectState) => {
      state.storage.sql.exec('UPDATE leases SET expires = ? WHERE token LIKE ?', Date.now() - 1, `${held.ok ? held.token : ''}:%`);
    });
    expect((await stub.claim([{ start: 150, end: 160 }], 60_000)).ok).toBe(false);
    const later = await stub.claim([{ start: 50, end: 99 }], 60_000);
    expect(later.ok).toBe(true);
    if (later.ok) await stub.release(later.token);
    expect((await stub.claim([{ start: 50, end: 99 }], 200)).ok).toBe(true);
  });

  it('claims asked to wait are held in the object until the overlapping lease is released, then go through one at a time', async () => {
    const { env } = await import('cloudflare:workers');
    const ns = (env as any).SLOT_LOCK as DurableObjectNamespace<import('../../src/durable-objects/slot-lock').SlotLock>;
    const stub = ns.get(ns.idFromName(`lease-wait:${crypto.randomUUID()}`));
    const held = await stub.claim([{ start: 0, end: 100 }], 60_000);
    if (!held.ok) throw new Error('not held');
    // Waiting far longer than the test may run: each can only go through because a release wakes it.
    const a = stub.claim([{ start: 50, end: 150 }], 60_000, 600_000).then((r) => ['a', r] as const);
    const b = stub.claim([{ start: 60, end: 70 }], 60_000, 600_000).then((r) => ['b', r] as const);
    // A claim that may wait only briefly gives up while the range is held.
    expect((await stub.claim([{ start: 50, end: 150 }], 60_000, 1)).ok).toBe(false);
    await stub.release(held.token);
    const [first, got] = await Promise.race([a, b]);
    if (!got.ok) throw new Error('not woken');
    // The two waiters overlap each other: the second goes through once the first is released.
    await stub.release(got.token);
    const [, then] = await (first === 'a' ? b : a);
    expect(then.ok).toBe(true);
  });

  it('a guarded claim is kept in memory (claiming and releasing it write nothing to storage); it and durable claims exclude each other', async () => {
    const { env } = await import('cloudflare:workers');
    const ns = (env as any).SLOT_LOCK as DurableObjectNamespace<import('../../src/durable-objects/slot-lock').SlotLock>;
    const stub = ns.get(ns.idFromName(`lease-memory:${crypto.randomUUID()}`));
    const stored = () =>
      runInDurableObject(
        stub,
        (_: unknown, state: DurableObjectState) => state.storage.sql.exec<{ n: number }>('SELECT count(*) AS n FROM leases').one().n,
      );
    const inMemory = await stub.claim([{ start: 0, end: 100 }], 60_000, 0, false);
    if (!inMemory.ok) throw new Error('not held');
    expect(await stored()).toBe(0);
    expect((await stub.claim([{ start: 50, end: 150 }], 60_000)).ok).toBe(false);
    expect((await stub.claim([{ start: 50, end: 150 }], 60_000, 0, false)).ok).toBe(false);
    await stub.release(inMemory.token);
    const durable = await stub.claim([{ start: 50, end: 150 }], 60_000);
    if (!durable.ok) throw new Error('not held');
    expect(await stored()).toBe(1);
    expect((await stub.claim([{ start: 100, end: 120 }], 60_000, 0, false)).ok).toBe(false);
    await stub.release(durable.token);
    expect(await stored()).toBe(0);
    expect((await stub.claim([{ start: 100, end: 120 }], 60_000, 0, false)).ok).toBe(true);
  });

  it('overlapping claims are granted in arrival order: a later one waits behind an earlier waiter even where nothing is held', async () => {
    const { env } = await import('cloudflare:workers');
    const ns = (env as any).SLOT_LOCK as DurableObjectNamespace<import('../../src/durable-objects/slot-lock').SlotLock>;
    const stub = ns.get(ns.idFromName(`lease-order:${crypto.randomUUID()}`));
    const held = await stub.claim([{ start: 0, end: 100 }], 60_000);
    if (!held.ok) throw new Error('not held');
    const order: string[] = [];
    const earlier = stub.claim([{ start: 50, end: 150 }], 60_000, 600_000).then((r) => {
      order.push('earlier');
      return r;
    });
    // Overlaps only the earlier waiter, not the held lease: it queues behind it.
    expect((await stub.claim([{ start: 120, end: 200 }], 60_000, 1)).ok).toBe(false);
    const later = stub.claim([{ start: 120, end: 200 }], 60_000, 600_000).then((r) => {
      order.push('later');
      return r;
    });
    // Disjoint from everything: granted at once.
    expect((await stub.claim([{ start: 300, end: 400 }], 60_000)).ok).toBe(true);
    await stub.release(held.token);
    const first = await earlier;
    if (!first.ok) throw new Error('not woken');
    expect(order).toEqual(['earlier']);
    await stub.release(first.token);
    expect((await later).ok).toBe(true);
    expect(order).toEqual(['earlier', 'later']);
  });
});
