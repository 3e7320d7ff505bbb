import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';
import { rowsIn, rowsOnShards, shardOf } from '../support/db';
import { createPayment, expectMessage } from './helpers';

describe('POST /v1/payments/{id}/refund', () => {
  it('records partial and full refunds as negative refund entries; a fully refunded one-time header is cancelled', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { amount: 50 });
    const charge = p.entries[0];
    const partial = await ws.api('POST', `/v1/payments/${p.id}/refund`, { amount: 20, note: ' goodwill ' });
    expect(partial.status).toBe(201);
    expect(partial.body.arrangement_status).toBe('completed');
    expect(partial.body.entries).toHaveLength(2);
    expect(partial.body.entries[1]).toMatchObject({
      sequence: 2,
      kind: 'refund',
      amount: -20,
      recognized_amount: -20,
      status: 'refunded',
      refunds_entry_id: charge.id,
      note: 'goodwill',
      provider_refund_ref: null,
      refund_idempotency_key: null,
      credit_document: null,
    });
    expect(partial.body.entries[0]).toMatchObject({ status: 'completed', amount: 50 });
    expectMessage(
      await ws.api('POST', `/v1/payments/${p.id}/refund`, { amount: 30.01 }),
      400,
      'Refund amount exceeds the refundable balance (30.00)',
    );
    const rest = await ws.api('POST', `/v1/payments/${p.id}/refund`, {});
    expect(rest.body.entries[2]).toMatchObject({ amount: -30, sequence: 3, refunds_entry_id: charge.id });
    expect(rest.body.arrangement_status).toBe('cancelled');
    expectMessage(await ws.api('POST', `/v1/payments/${p.id}/refund`, {}), 400, 'This charge is already fully refunded');
  });

  it('answers every refund guard exactly', async () => {
    const ws = await makeWorkspace();
    const pending = await createPayment(ws, { status: 'pending' });
    expectMessage(await ws.api('POST', `/v1/payments/${pending.id}/refund`, {}), 400, 'Only a completed (recognized) charge can be refunded');
    const failed = await createPayment(ws, { status: 'failed' });
    expectMessage(await ws.api('POST', `/v1/payments/${failed.id}/refund`, {}), 400, 'This charge is no longer refundable');
    const marked = await createPayment(ws);
    await ws.api('POST', `/v1/payments/${marked.id}/entries/${marked.entries[0].id}/mark`, { status: 'refunded' });
    expectMessage(await ws.api('POST', `/v1/payments/${marked.id}/refund`, {}), 400, 'This charge is no longer refundable');
    const inst = await createPayment(ws, { type: 'installments', amount: 30, installment_count: 3 });
    expectMessage(await ws.api('POST', `/v1/payments/${inst.id}/refund`, {}), 400, 'entryId is required to refund a payment with multiple charges');
    expectMessage(
      await ws.api('POST', `/v1/payments/${inst.id}/refund`, { entry_id: inst.entries[0].id }),
      400,
      'Only a completed (recognized) charge can be refunded',
    );
    const ok = await createPayment(ws, { amount: 10 });
    for (const amount of [0, -5, 0.001])
      expectMessage(await ws.api('POST', `/v1/payments/${ok.id}/refund`, { amount }), 400, 'Refund amount must be a positive number');
    expectMessage(await ws.api('POST', `/v1/payments/${ok.id}/refund`, { entry_id: crypto.randomUUID() }), 404, 'Payment entry not found');
    expectMessage(await ws.api('POST', `/v1/payments/${ok.id}/refund`, { entry_id: inst.entries[0].id }), 404, 'Payment entry not found');
    expectMessage(await ws.api('POST', `/v1/payments/${crypto.randomUUID()}/refund`, {}), 404, 'Payment not found');
    const refunded = (await ws.api('POST', `/v1/payments/${ok.id}/refund`, { amount: 1 })).body;
    expectMessage(
      await ws.api('POST', `/v1/payments/${ok.id}/refund`, { entry_id: refunded.entries[1].id }),
      400,
      'Only a completed (recognized) charge can be refunded',
    );
    // A completed charge whose revenue was never recognized (legacy rows).
    const legacy = await createPayment(ws);
    await rowsOnShards('UPDATE payment_entries SET recognized_cents = NULL WHERE id = ?', legacy.entries[0].id);
    expectMessage(
      await ws.api('POST', `/v1/payments/${legacy.id}/refund`, {}),
      400,
      'This charge is not recognized as revenue yet and cannot be refunded',
    );
  });

  it('never over-refunds under parallel refunds', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    const p = await createPayment(ws, { amount: 100 });
    const answers = await Promise.all(Array.from({ length: 10 }, () => ws.api('POST', `/v1/payments/${p.id}/refund`, { amount: 15 })));
    const ok = answers.filter((r) => r.status === 201);
    expect(ok).toHaveLength(6);
    for (const r of answers.filter((a) => a.status !== 201)) expect(r.body.message).toBe('Refund amount exceeds the refundable balance (10.00)');
    const [row] = await rowsIn<{ refunded: number; sum: number }>(
      ws.id,
      "SELECT (SELECT refunded_cents FROM payment_entries WHERE id = ?1) AS refunded, (SELECT -sum(amount_cents) FROM payment_entries WHERE payment_id = ?2 AND kind = 'refund') AS sum",
      p.entries[0].id,
      p.id,
    );
    expect(row).toEqual({ refunded: 9000, sum: 9000 });
    const full = await Promise.all(Array.from({ length: 8 }, () => ws.api('POST', `/v1/payments/${p.id}/refund`, {})));
    expect(full.filter((r) => r.status === 201)).toHaveLength(1);
    const after = (await ws.api('GET', `/v1/payments/${p.id}`)).body;
    expect(after.entries.filter((e: any) => e.kind === 'refund').reduce((s: number, e: any) => s + e.amount, 0)).toBe(-100);
    expect(after.arrangement_status).toBe('cancelled');
    expect(new Set(after.entries.map((e: any) => e.sequence)).size).toBe(after.entries.length);
  });

  it('a refund entry applies itself however it is written: an insert that would over-refund fails, one that exhausts the charge cancels the header', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { amount: 10 });
    const charge = p.entries[0];
    const db = await shardOf(ws.id);
    const insertRefund = (sequence: number, cents: number, at: string) =>
      db
        .prepare(
          `INSERT INTO payment_entries (id, payment_id, workspace_id, contact_id, sequence, amount_cents, currency, status, recognized_cents, refunded_cents, kind, refunds_entry_id, created_at, updated_at)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'refunded', ?6, 0, 'refund', ?8, ?9, ?9)`,
        )
        .bind(crypto.randomUUID(), p.id, ws.id, p.contact_id, sequence, -cents, charge.currency, charge.id, at)
        .run();
    await insertRefund(2, 400, '2026-01-02T00:00:00.000Z');
    await expect(insertRefund(3, 601, '2026-01-03T00:00:00.000Z')).rejects.toThrow('NOT NULL constraint failed: payment_entries.refunded_cents');
    let read = (await ws.api('GET', `/v1/payments/${p.id}`)).body;
    expect([read.entries.length, read.arrangement_status, read.updated_at]).toEqual([2, 'completed', '2026-01-02T00:00:00.000Z']);
    const [partly] = await rowsOnShards('SELECT refunded_cents, updated_at FROM payment_entries WHERE id = ?', charge.id);
    expect(partly).toEqual({ refunded_cents: 400, updated_at: '2026-01-02T00:00:00.000Z' });
    await insertRefund(3, 600, '2026-01-04T00:00:00.000Z');
    read = (await ws.api('GET', `/v1/payments/${p.id}`)).body;
    expect([read.arrangement_status, read.updated_at]).toEqual(['cancelled', '2026-01-04T00:00:00.000Z']);
    expectMessage(await ws.api('POST', `/v1/payments/${p.id}/refund`, {}), 400, 'This charge is already fully refunded');
  });

  it('keeps recurring and installment headers when a charge is refunded in full', async () => {
    const ws = await makeWorkspace();
    const plan = await createPayment(ws, { type: 'recurring', amount: 9 });
    const res = await ws.api('POST', `/v1/payments/${plan.id}/refund`, {});
    expect(res.status).toBe(201);
    expect(res.body.arrangement_status).toBe('active');
  });
});

describe('POST /v1/payments/{id}/entries/{entryId}/mark', () => {
  it('marks entries: completed stamps paid_at and recognizes; a one-time header mirrors; installment headers stay', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { status: 'pending' });
    const done = await ws.api('POST', `/v1/payments/${p.id}/entries/${p.entries[0].id}/mark`, { status: 'completed' });
    expect(done.status).toBe(201);
    expect(done.body.arrangement_status).toBe('completed');
    expect(done.body.entries[0]).toMatchObject({ status: 'completed', recognized_amount: 10 });
    expect(done.body.entries[0].paid_at).not.toBeNull();
    const back = await ws.api('POST', `/v1/payments/${p.id}/entries/${p.entries[0].id}/mark`, { status: 'pending' });
    expect(back.body.arrangement_status).toBe('active');
    const inst = await createPayment(ws, { type: 'installments', amount: 30, installment_count: 3 });
    const paid = await ws.api('POST', `/v1/payments/${inst.id}/entries/${inst.entries[1].id}/mark`, { status: 'completed' });
    expect(paid.body.arrangement_status).toBe('active');
    expect(paid.body.entries[1]).toMatchObject({ status: 'completed', recognized_amount: 10 });
    const refunded = await ws.api('POST', `/v1/payments/${inst.id}/refund`, { entry_id: inst.entries[1].id, amount: 1 });
    expect(refunded.status).toBe(201);
  });

  it('answers every mark guard exactly', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { amount: 10 });
    const refunded = (await ws.api('POST', `/v1/payments/${p.id}/refund`, { amount: 2 })).body;
    const message = 'This charge already has refunds; reverse those instead of marking it refunded/failed';
    for (const status of ['refunded', 'failed']) {
      expectMessage(await ws.api('POST', `/v1/payments/${p.id}/entries/${p.entries[0].id}/mark`, { status }), 400, message);
      expectMessage(await ws.api('PATCH', `/v1/payments/${p.id}`, { status }), 400, message);
    }
    expectMessage(
      await ws.api('POST', `/v1/payments/${p.id}/entries/${refunded.entries[1].id}/mark`, { status: 'completed' }),
      400,
      'Refund entries cannot be marked directly',
    );
    const other = await createPayment(ws);
    expectMessage(
      await ws.api('POST', `/v1/payments/${p.id}/entries/${other.entries[0].id}/mark`, { status: 'completed' }),
      404,
      'Payment entry not found',
    );
    expectMessage(
      await ws.api('POST', `/v1/payments/${p.id}/entries/${crypto.randomUUID()}/mark`, { status: 'completed' }),
      404,
      'Payment entry not found',
    );
    expectMessage(
      await ws.api('POST', `/v1/payments/${crypto.randomUUID()}/entries/${p.entries[0].id}/mark`, { status: 'completed' }),
      404,
      'Payment not found',
    );
    expect((await ws.api('POST', `/v1/payments/${p.id}/entries/${p.entries[0].id}/mark`, { status: 'paid' })).status).toBe(400);
    expect((await ws.api('POST', `/v1/payments/${p.id}/entries/${p.entries[0].id}/mark`, {})).status).toBe(400);
  });
});
