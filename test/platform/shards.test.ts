/// <reference types="vite/client" />
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import type { Bindings } from '../../src/env';
import { deliverWebhooks } from '../../src/modules/webhooks/delivery';
import { runSweep } from '../../src/sweeps/runner';
import { wiring } from '../../src/wiring';
import { rowsIn, shardBindings } from '../support/db';
import { admin, adminOk, eventually, makeWorkspace, SHARDS } from '../support/harness';
import { deliveryMessage, emitEvent, fakeEvent, receiverUrl, recordingQueueEnv, registerEndpoint } from '../webhooks/support';

const bindings = env as unknown as Record<string, D1Database>;
const countIn = async (shard: string, table: string, workspaceId: string) =>
  (await bindings[shard].prepare(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`).bind(workspaceId).first<{ n: number }>())!.n;

describe('workspace placement', () => {
  it('runs every test with two data databases beside the control plane', () => {
    expect(shardBindings()).toEqual([...SHARDS]);
  });

  it('places a workspace on the shard the operator names, shows it, and never moves it', async () => {
    const ws = await adminOk('POST', '/workspaces', { name: 'Placed', shard: 'SHARD_1' });
    expect(ws.shard).toBe('SHARD_1');
    expect((await adminOk('GET', `/workspaces/${ws.id}`)).shard).toBe('SHARD_1');
    const patch = await admin('PATCH', `/workspaces/${ws.id}`, { shard: 'SHARD_0' });
    expect(patch.status).toBe(400);
    expect(JSON.stringify(patch.body.message)).toContain('shard');
  });

  it('refuses a shard that is not configured', async () => {
    for (const shard of ['SHARD_2', 'DB', 'shard_0', 'constructor', '']) {
      const res = await admin('POST', '/workspaces', { name: 'Nowhere', shard });
      expect(res.status, shard).toBe(400);
      expect(res.body.message).toBe(`Unknown shard "${shard}": must be one of SHARD_0, SHARD_1`);
    }
  });
});

describe("data lives in its workspace's shard only", () => {
  it.each(SHARDS)('a workspace on %s writes there and nowhere else, through /v1 and the operator API', async (shard) => {
    const other = SHARDS.find((s) => s !== shard)!;
    const ws = await makeWorkspace({ shard });
    const contact = await ws.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` });
    expect(contact.status).toBe(201);
    await adminOk('POST', `/workspaces/${ws.id}/users`, { name: 'Agent', email: `${crypto.randomUUID()}@example.com`, role: 'agent' });
    for (const table of ['contacts', 'event_outbox', 'pipelines', 'users']) {
      expect(await countIn(shard, table, ws.id), `${table} on ${shard}`).toBeGreaterThan(0);
      expect(await countIn(other, table, ws.id), `${table} on ${other}`).toBe(0);
    }
    expect((await ws.api('GET', `/v1/contacts/${contact.body.id}`)).status).toBe(200);
    // The request log is written after the response, to the workspace's shard.
    await eventually(
      () => countIn(shard, 'request_log', ws.id),
      (n) => n >= 2,
    );
    expect(await countIn(other, 'request_log', ws.id)).toBe(0);
    expect((await adminOk('GET', `/workspaces/${ws.id}/request-log`)).data.length).toBeGreaterThanOrEqual(2);
  });

  it('resolves a merge request on whichever shard holds it', async () => {
    const ws = await makeWorkspace({ shard: 'SHARD_1' }, { pipeline: false });
    await ws.api('POST', '/v1/contacts', { phone: '+14155550171' });
    await ws.api('POST', '/v1/contacts', { email: 'merge-on-shard@example.com' });
    const conflict = await ws.api('POST', '/v1/contacts', { phone: '+14155550171', email: 'merge-on-shard@example.com' });
    expect(conflict.status).toBe(409);
    const res = await admin('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    expect(res.status).toBe(200);
    expect((await rowsIn(ws.id, 'SELECT status FROM contact_merge_requests WHERE id = ?', conflict.body.merge_request_id))[0]).toEqual({
      status: 'merged',
    });
  });
});

describe('work that is not a request', () => {
  it('the outbox sweep runs on every shard and reports each', async () => {
    const [a, b] = await Promise.all([makeWorkspace({ shard: 'SHARD_0' }), makeWorkspace({ shard: 'SHARD_1' })]);
    await Promise.all([a, b].map((ws) => registerEndpoint(ws, { url: receiverUrl(), events: ['form.submitted'] })));
    const stale = await Promise.all([a, b].map((ws) => emitEvent(ws.id, 'form.submitted', { form_id: ws.id }, 60_000)));
    const q = recordingQueueEnv();
    const sweep = wiring.sweeps.get('webhook-outbox')!;
    const run = await runSweep(q.env, sweep);
    expect(Object.keys(run.shards).sort()).toEqual([...SHARDS]);
    expect(run.result.events).toBe((run.shards.SHARD_0 as { events: number }).events + (run.shards.SHARD_1 as { events: number }).events);
    const sentIds = q.sent.map((m) => m.event.id);
    for (const event of stale) expect(sentIds).toContain(event.id);
  });

  it('one failing shard does not stop the sweep on the others', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const seen: string[] = [];
    // The sweep sees only a handle: SHARD_1 is told apart by a table only it has.
    await bindings.SHARD_1.exec('CREATE TABLE sweep_probe (x INTEGER)');
    const run = await runSweep(env as unknown as Bindings, async (_env, db) => {
      const marked = await db.all<{ name: string }>(sql`SELECT name FROM sqlite_master WHERE name = 'sweep_probe'`);
      if (marked.length) throw new Error('shard down');
      seen.push('ok');
      return { done: 1 };
    }).finally(async () => {
      error.mockRestore();
      await bindings.SHARD_1.exec('DROP TABLE sweep_probe');
    });
    expect(run.shards.SHARD_1).toEqual({ error: 'shard down' });
    expect(run.shards.SHARD_0).toEqual({ done: 1 });
    expect(run.result).toEqual({ done: 1 });
    expect(seen).toEqual(['ok']);
  });

  it("the queue consumer finds the workspace's shard from the message, and drops messages of unknown workspaces", async () => {
    const ws = await makeWorkspace({ shard: 'SHARD_1' });
    const ep = await registerEndpoint(ws, { url: receiverUrl(), events: ['deal.created'] });
    const fetchSpy = vi.spyOn(globalThis, 'fetch').mockImplementation(async () => new Response(null, { status: 204 }));
    try {
      const event = fakeEvent();
      const message = deliveryMessage(ws.id, ep.id, event);
      await deliverWebhooks([message], env as unknown as Bindings);
      expect(message.ack).toHaveBeenCalled();
      expect(await countIn('SHARD_1', 'webhook_deliveries', ws.id)).toBe(1);
      const orphan = deliveryMessage(crypto.randomUUID(), ep.id, fakeEvent());
      await deliverWebhooks([orphan], env as unknown as Bindings);
      expect(orphan.ack).toHaveBeenCalled();
      expect(fetchSpy).toHaveBeenCalledTimes(1);
    } finally {
      fetchSpy.mockRestore();
    }
  });
});

describe('the unscoped path', () => {
  const sources = import.meta.glob('../../src/**/*.ts', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

  it('no file but the shard resolver names a D1 binding', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(20);
    const offenders = Object.entries(sources)
      .filter(([path]) => !path.endsWith('/platform/d1/shards.ts'))
      .filter(([, text]) => /\benv\.DB\b|\bSHARD_\d|withSession\(|\.DB\b/.test(text))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });
});
