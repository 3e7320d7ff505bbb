import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { dbFor } from '../../src/platform/d1/db';
import { RECURRING_SWEEP_CHUNK, sweepRecurringPayments } from '../../src/modules/payments/sweep';
import { admin, adminOk, makeWorkspace } from '../support/harness';
import { rowsIn, rowsOnShards, shardOf } from '../support/db';
import { createPayment, expectMessage } from './helpers';

const bindings = env as any;
const sweepShardOf = async (workspaceId: string) => dbFor(await shardOf(workspaceId));
const entriesOf = async (ws: { api: any }, id: string) => (await ws.api('GET', `/v1/payments/${id}`)).body;

describe('recurring plans', () => {
  it('records the first cycle, defaults to monthly with auto-generation, and stamps the VAT pair', async () => {
    const ws = await makeWorkspace({ vat: { mode: 'inclusive', rate: 25 } });
    const p = await createPayment(ws, { type: 'recurring', amount: 12, purchase_date: '2026-01-31' });
    expect(p).toMatchObject({
      type: 'recurring',
      arrangement_status: 'active',
      recurring_interval: 'monthly',
      recurring_auto_generate: true,
      recurring_next_due_at: '2026-02-28T00:00:00.000Z',
      recurring_cancelled_at: null,
      vat_mode: 'inclusive',
      vat_rate: 25,
    });
    expect(p.entries).toHaveLength(1);
    expect(p.entries[0]).toMatchObject({ sequence: 1, status: 'completed', amount: 12, recognized_amount: 12, due_date: '2026-01-31' });
    // Later workspace changes never reach a stamped plan.
    await adminOk('PATCH', `/workspaces/${ws.id}`, { vat: { mode: 'exclusive', rate: 10 } });
    expect(await entriesOf(ws, p.id)).toMatchObject({ vat_mode: 'inclusive', vat_rate: 25 });
    const product = (await ws.api('POST', '/v1/products', { name: 'Box', price: 5, vat_mode: 'exclusive', vat_rate: 7 })).body;
    expect(await createPayment(ws, { type: 'recurring', product_id: product.id })).toMatchObject({ vat_mode: 'exclusive', vat_rate: 7 });
    expect(await createPayment(ws, { type: 'recurring', product_id: product.id, vat_mode: 'inclusive', vat_rate: 19.5 })).toMatchObject({
      vat_mode: 'inclusive',
      vat_rate: 19.5,
    });
    expect(await createPayment(ws, { type: 'recurring' })).toMatchObject({ vat_mode: 'exclusive', vat_rate: 10 });
  });

  it('skips the first cycle when asked, and creates completed a plan that can produce no further cycle', async () => {
    const ws = await makeWorkspace({ timezone: 'Asia/Tokyo' });
    const later = await createPayment(ws, {
      type: 'recurring',
      record_first_payment: false,
      purchase_date: '2026-05-01',
      interval: 'weekly',
      auto_generate: false,
    });
    expect(later).toMatchObject({
      arrangement_status: 'active',
      recurring_next_due_at: '2026-04-30T15:00:00.000Z',
      recurring_auto_generate: false,
      entries: [],
    });
    const once = await createPayment(ws, { type: 'recurring', recurring_max_occurrences: 1 });
    expect(once).toMatchObject({ arrangement_status: 'completed', recurring_next_due_at: null });
    const ends = await createPayment(ws, { type: 'recurring', purchase_date: '2026-01-10', recurring_end_at: '2026-02-09' });
    expect(ends).toMatchObject({ arrangement_status: 'completed', recurring_end_at: '2026-02-09T14:59:59.999Z' });
    const oneMore = await createPayment(ws, { type: 'recurring', purchase_date: '2026-01-10', recurring_end_at: '2026-02-10', interval: 'monthly' });
    expect(oneMore).toMatchObject({ arrangement_status: 'active', recurring_next_due_at: '2026-02-09T15:00:00.000Z' });
  });

  it('takes date-only recurring_end_at as the end of that day west of UTC', async () => {
    const ws = await makeWorkspace({ timezone: 'America/Los_Angeles' });
    const p = await createPayment(ws, { type: 'recurring', purchase_date: '2026-07-01', recurring_end_at: '2026-12-31' });
    expect(p.purchase_date).toBe('2026-07-01T07:00:00.000Z');
    expect(p.recurring_end_at).toBe('2027-01-01T07:59:59.999Z');
  });

  it('PATCH: shortening end conditions completes, extending never reactivates; a VAT pair re-prices, a lone leg or null is refused', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { type: 'recurring', purchase_date: '2026-01-15' });
    expectMessage(
      await ws.api('PATCH', `/v1/payments/${p.id}`, { recurring_end_at: '2026-01-01' }),
      400,
      'recurringEndAt must be after the purchase date',
    );
    expectMessage(await ws.api('PATCH', `/v1/payments/${p.id}`, { recurring_end_at: 'soon' }), 400, 'recurringEndAt is not a valid date');
    expectMessage(
      await ws.api('PATCH', `/v1/payments/${p.id}`, { recurring_max_occurrences: 0 }),
      400,
      'recurringMaxOccurrences must be a whole number of at least 1',
    );
    expectMessage(await ws.api('PATCH', `/v1/payments/${p.id}`, { vat_mode: 'inclusive' }), 400, 'vat_mode and vat_rate must be provided together');
    expectMessage(await ws.api('PATCH', `/v1/payments/${p.id}`, { vat_rate: 5 }), 400, 'vat_mode and vat_rate must be provided together');
    expectMessage(
      await ws.api('PATCH', `/v1/payments/${p.id}`, { vat_mode: null, vat_rate: null }),
      400,
      'vat_mode and vat_rate must be provided together',
    );
    const vat = await ws.api('PATCH', `/v1/payments/${p.id}`, { vat_mode: 'inclusive', vat_rate: 8.5, amount: 99, status: 'failed' });
    expect(vat.body).toMatchObject({ vat_mode: 'inclusive', vat_rate: 8.5, total_amount: 10, arrangement_status: 'active' });
    const shortened = await ws.api('PATCH', `/v1/payments/${p.id}`, { recurring_max_occurrences: 1 });
    expect(shortened.body).toMatchObject({ arrangement_status: 'completed', recurring_next_due_at: null, recurring_max_occurrences: 1 });
    const extended = await ws.api('PATCH', `/v1/payments/${p.id}`, { recurring_max_occurrences: null, recurring_end_at: null });
    expect(extended.body).toMatchObject({ arrangement_status: 'completed', recurring_max_occurrences: null, recurring_end_at: null });
    const q = await createPayment(ws, { type: 'recurring', purchase_date: '2026-01-15' });
    const byDate = await ws.api('PATCH', `/v1/payments/${q.id}`, { recurring_end_at: '2026-02-01' });
    expect(byDate.body).toMatchObject({ arrangement_status: 'completed' });
  });

  it('cancel: recurring only; sets cancelled_at, turns generation off, clears the next due date, leaves entries', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { type: 'recurring' });
    const res = await ws.api('POST', `/v1/payments/${p.id}/cancel`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ arrangement_status: 'cancelled', recurring_auto_generate: false, recurring_next_due_at: null });
    expect(res.body.recurring_cancelled_at).not.toBeNull();
    expect(res.body.entries).toEqual(p.entries);
    const one = await createPayment(ws);
    expectMessage(await ws.api('POST', `/v1/payments/${one.id}/cancel`, {}), 400, 'Only recurring payments can be cancelled');
    expectMessage(await ws.api('POST', `/v1/payments/${crypto.randomUUID()}/cancel`, {}), 404, 'Payment not found');
  });
});

describe('the recurring-payments sweep', () => {
  it('records due cycles, advances with month-end clamping, completes at the end conditions, and is idempotent', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { type: 'recurring', amount: 7, purchase_date: '2025-10-31', recurring_max_occurrences: 3 });
    const db = await sweepShardOf(ws.id);
    const at = (iso: string) => ({ now: iso });
    // Two overlapping runs at the same moment record cycle 2 once.
    await Promise.all([
      sweepRecurringPayments(bindings, db, at('2025-12-01T00:00:00.000Z')),
      sweepRecurringPayments(bindings, db, at('2025-12-01T00:00:00.000Z')),
    ]);
    let body = await entriesOf(ws, p.id);
    expect(body.entries.map((e: any) => [e.sequence, e.due_date, e.amount, e.status])).toEqual([
      [1, '2025-10-31', 7, 'completed'],
      [2, '2025-11-30', 7, 'completed'],
    ]);
    expect(body).toMatchObject({ arrangement_status: 'active', recurring_next_due_at: '2025-12-31T00:00:00.000Z' });
    await sweepRecurringPayments(bindings, db, at('2025-12-01T00:00:00.000Z'));
    expect((await entriesOf(ws, p.id)).entries).toHaveLength(2);
    await sweepRecurringPayments(bindings, db, at('2026-01-01T00:00:00.000Z'));
    body = await entriesOf(ws, p.id);
    expect(body.entries.map((e: any) => e.due_date)).toEqual(['2025-10-31', '2025-11-30', '2025-12-31']);
    expect(body).toMatchObject({ arrangement_status: 'completed', recurring_next_due_at: null });
    await sweepRecurringPayments(bindings, db, at('2027-01-01T00:00:00.000Z'));
    expect((await entriesOf(ws, p.id)).entries).toHaveLength(3);
  });

  it('skips plans with generation off and cancelled plans; runs through the operator route', async () => {
    const ws = await makeWorkspace();
    const off = await createPayment(ws, { type: 'recurring', purchase_date: '2020-01-01', auto_generate: false });
    const cancelled = await createPayment(ws, { type: 'recurring', purchase_date: '2020-01-01' });
    await ws.api('POST', `/v1/payments/${cancelled.id}/cancel`);
    const due = await createPayment(ws, { type: 'recurring', purchase_date: '2020-01-01' });
    const run = await admin('POST', '/sweeps/recurring-payments');
    expect(run.status).toBe(200);
    expect(run.body.result.recurring_cycles_recorded).toBeGreaterThanOrEqual(1);
    expect((await entriesOf(ws, off.id)).entries).toHaveLength(1);
    expect((await entriesOf(ws, cancelled.id)).entries).toHaveLength(1);
    expect((await entriesOf(ws, due.id)).entries).toHaveLength(2);
  });

  it('works off a backlog of 1,250 due plans in bounded chunks across runs (the last one partial)', async () => {
    const BACKLOG = 2.5 * RECURRING_SWEEP_CHUNK;
    const ws = await makeWorkspace();
    const contact = (await ws.api('POST', '/v1/contacts', { email: 'backlog@example.com' })).body;
    const d1 = await shardOf(ws.id);
    await d1
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?3)
         INSERT INTO payments (id, workspace_id, contact_id, type, currency, total_cents, arrangement_status, purchase_date, recurring_interval,
           recurring_next_due_at, recurring_auto_generate, recurring_cycles, recurring_max_occurrences, source, created_at, updated_at)
         SELECT printf('backlog-%05d-%s', i, ?1), ?1, ?2, 'recurring', 'USD', 100, 'active', '2000-01-01T00:00:00.000Z', 'monthly',
           '2000-02-01T00:00:00.000Z', 1, 1, 2, 'api', '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z' FROM n`,
      )
      .bind(ws.id, contact.id, BACKLOG)
      .run();
    const db = dbFor(d1);
    const remaining = async () =>
      (await rowsIn<{ n: number }>(ws.id, "SELECT count(*) AS n FROM payments WHERE workspace_id = ?1 AND arrangement_status = 'active'", ws.id))[0]
        .n;
    // The shard may hold other workspaces' due plans (placement is by free bytes): the backlog, due first, is counted until done.
    let runs = 0;
    while ((await remaining()) > 0 && runs <= BACKLOG / RECURRING_SWEEP_CHUNK) {
      const result = await sweepRecurringPayments(bindings, db);
      runs++;
      expect(result.recurring_cycles_recorded).toBeLessThanOrEqual(RECURRING_SWEEP_CHUNK);
      if (runs === 1) {
        // Exactly the entries inserted, never the rows the insert's triggers wrote as well.
        expect(result.recurring_cycles_recorded).toBe(RECURRING_SWEEP_CHUNK);
        expect(await remaining()).toBe(BACKLOG - RECURRING_SWEEP_CHUNK);
      }
    }
    expect(runs).toBe(Math.ceil(BACKLOG / RECURRING_SWEEP_CHUNK));
    expect(await remaining()).toBe(0);
    const [{ n }] = await rowsIn<{ n: number }>(ws.id, 'SELECT count(*) AS n FROM payment_entries WHERE workspace_id = ?1 AND cycle = 2', ws.id);
    expect(n).toBe(BACKLOG);
    await rowsOnShards('DELETE FROM payment_entries WHERE workspace_id = ?', ws.id);
    await rowsOnShards('DELETE FROM payments WHERE workspace_id = ?', ws.id);
  });
});
