import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import { sweepExpiredPaymentRequests } from '../../src/modules/payment-requests/sweep';
import { dbFor } from '../../src/platform/d1/db';
import { admin, adminOk, makeWorkspace } from '../support/harness';
import { rowsIn, shardOf } from '../support/db';
import { backdate, mint, openPage, requestEvents } from './helpers';

const runSweep = () => admin('POST', '/sweeps/expire-payment-requests');

describe('expire-payment-requests sweep', () => {
  it('expires every pending link past expires_at once, with one payment_request.expired each, and leaves the others', async () => {
    const ws = await makeWorkspace();
    const due = [await mint(ws), await mint(ws), await mint(ws)];
    const future = await mint(ws);
    const paid = await mint(ws);
    await admin('POST', `/payment-requests/${paid.id}/complete`);
    for (const r of [...due, paid]) await backdate(ws.id, r.id);
    const first = await runSweep();
    expect(first.status).toBe(200);
    expect(first.body.result.payment_requests_expired).toBeGreaterThanOrEqual(3);
    for (const r of due) {
      const now = (await ws.api('GET', `/v1/payment-requests/${r.id}`)).body;
      expect(now.status).toBe('expired');
      const events = (await requestEvents(ws.id, r.id)).filter((e) => e.type === 'payment_request.expired');
      expect(events).toHaveLength(1);
      const { id, workspace_id, provider_session_id, provider_payment_ref, updated_at, ...snapshot } = now;
      expect(events[0].data).toEqual(snapshot);
    }
    expect((await ws.api('GET', `/v1/payment-requests/${future.id}`)).body.status).toBe('pending');
    expect((await ws.api('GET', `/v1/payment-requests/${paid.id}`)).body.status).toBe('paid');
    // A second run finds nothing of this workspace to do.
    await runSweep();
    expect((await requestEvents(ws.id)).filter((e) => e.type === 'payment_request.expired')).toHaveLength(3);
  });

  it('works in bounded chunks: a backlog larger than a chunk is worked off over chunks, each link once', async () => {
    const ws = await makeWorkspace();
    const links = await Promise.all(Array.from({ length: 7 }, () => mint(ws)));
    for (const r of links) await backdate(ws.id, r.id);
    const db = dbFor(await shardOf(ws.id));
    const first = await sweepExpiredPaymentRequests(env as unknown as Bindings, db, { chunk: 3, maxChunks: 1 });
    expect(first.payment_requests_expired).toBe(3);
    const rest = await sweepExpiredPaymentRequests(env as unknown as Bindings, db, { chunk: 3, maxChunks: 5 });
    expect(rest.payment_requests_expired).toBeGreaterThanOrEqual(4);
    const events = (await requestEvents(ws.id)).filter((e) => e.type === 'payment_request.expired');
    expect(events.map((e) => e.data.payment_request_id).sort()).toEqual(links.map((l) => l.id).sort());
  });

  it('a sweep racing lazy opens fires one payment_request.expired per link', async () => {
    const ws = await makeWorkspace();
    const links = await Promise.all(Array.from({ length: 4 }, () => mint(ws)));
    for (const r of links) await backdate(ws.id, r.id);
    await Promise.all([runSweep(), ...links.flatMap((r) => [openPage(r.pay_url), openPage(r.pay_url)]), runSweep()]);
    for (const r of links) {
      expect((await requestEvents(ws.id, r.id)).filter((e) => e.type === 'payment_request.expired')).toHaveLength(1);
      expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).body.status).toBe('expired');
    }
    expect(await rowsIn(ws.id, "SELECT id FROM payment_requests WHERE workspace_id = ?1 AND status <> 'expired'", ws.id)).toHaveLength(0);
  });

  it("runs with the other sweeps in its shard's cron message", async () => {
    const { runShardSweeps } = await import('../../src/sweeps/runner');
    const { wiring } = await import('../../src/wiring');
    const ws = await makeWorkspace();
    const r = await mint(ws);
    await backdate(ws.id, r.id);
    const { shard } = await adminOk('GET', `/workspaces/${ws.id}`);
    const runs = await runShardSweeps(env as unknown as Bindings, shard, wiring.sweeps);
    expect(runs['expire-payment-requests']).toMatchObject({ payment_requests_expired: 1 });
    expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).body.status).toBe('expired');
  });
});
