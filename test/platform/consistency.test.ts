import { createExecutionContext, createMessageBatch, evictDurableObject, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import type { Bindings } from '../../src/env';
import type { DeliveryMessage } from '../../src/modules/webhooks/publisher';
import { deliverWebhooks } from '../../src/modules/webhooks/delivery';
import { wroteFor } from '../../src/platform/d1/floors';
import { rawAll } from '../../src/platform/d1/raw-query';
import { runSweep } from '../../src/sweeps/runner';
import { handleQueueBatch } from '../../src/wiring';
import { ADMIN_TOKEN, adminOk, BRIEF_LEASES, freshIp, makeWorkspace, type TestWorkspace } from '../support/harness';
import { captureFetch, deliveryMessage, fakeEvent, receiverUrl, registerEndpoint } from '../webhooks/support';

/**
 * Read-your-writes per workspace on D1 sessions. Local D1 has no replicas, but
 * sessions and bookmarks work as in production: these tests watch which
 * constraint each request's session starts from, and what the workspace's
 * floor object holds.
 */

let restore: (() => void) | undefined;
afterEach(() => restore?.());

const SIGNED = /^[0-9a-f]{1,32}(-[0-9a-f]{1,64}){1,8}\.[0-9a-f]{64}$/;
/** The D1 bookmark inside a `Bookmark` value. */
const d1Part = (bookmark: string | null) => bookmark!.split('.')[0];

const floorStub = (workspaceId: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`floor:${workspaceId}`));
const floorOf = (workspaceId: string) => floorStub(workspaceId).floor();

type Recorder = { env: Bindings; constraints: string[]; floorCalls: string[] };

/**
 * An env whose data databases record the constraint of every session opened on them,
 * and whose limiter namespace records each floor object reached (by name).
 */
function recordingEnv(replication: string, extra: Record<string, unknown> = {}): Recorder {
  const constraints: string[] = [];
  const floorCalls: string[] = [];
  const out: Record<string, unknown> = { ...env, ...BRIEF_LEASES, D1_READ_REPLICATION: replication, ...extra };
  for (const [name, value] of Object.entries(env as unknown as Record<string, unknown>)) {
    if (!/^SHARD_\d+$/.test(name)) continue;
    const real = value as D1Database;
    out[name] = {
      prepare: (q: string) => real.prepare(q),
      batch: (s: D1PreparedStatement[]) => real.batch(s),
      exec: (q: string) => real.exec(q),
      withSession: (constraint: string) => {
        constraints.push(constraint);
        return real.withSession(constraint);
      },
    };
  }
  out.RATE_LIMITER = {
    idFromName: (name: string) => {
      if (name.startsWith('floor:')) floorCalls.push(name);
      return env.RATE_LIMITER.idFromName(name);
    },
    get: (id: DurableObjectId) => env.RATE_LIMITER.get(id),
  };
  return { env: out as unknown as Bindings, constraints, floorCalls };
}

type Sent = { status: number; body: any; bookmark: string | null; constraints: string[]; floorCalls: string[] };

/** A request through a freshly built app (nothing of an earlier request's app instance carries over but the bindings). */
async function send(
  auth: { key: string; ip: string } | 'operator',
  method: string,
  path: string,
  opts: { body?: unknown; headers?: Record<string, string>; replication?: string; env?: Record<string, unknown> } = {},
): Promise<Sent> {
  const recorder = recordingEnv(opts.replication ?? 'auto', opts.env);
  const ctx = createExecutionContext();
  const credentials =
    auth === 'operator'
      ? { authorization: `Bearer ${ADMIN_TOKEN}`, 'cf-connecting-ip': freshIp() }
      : { authorization: `Bearer ${auth.key}`, 'cf-connecting-ip': auth.ip };
  const res = await buildApp().fetch(
    new Request(`https://api.test${path}`, {
      method,
      headers: { ...credentials, 'content-type': 'application/json', ...opts.headers },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    recorder.env,
    ctx,
  );
  const body = (await res.json()) as any;
  await waitOnExecutionContext(ctx);
  return { status: res.status, body, bookmark: res.headers.get('Bookmark'), constraints: recorder.constraints, floorCalls: recorder.floorCalls };
}

/** Another API key of the same workspace. */
async function secondKey(ws: TestWorkspace): Promise<{ key: string; ip: string }> {
  const created = await adminOk('POST', `/workspaces/${ws.id}/api-keys`, { name: 'second key' });
  return { key: created.key, ip: freshIp() };
}

const INVALID = { statusCode: 400, message: 'Invalid Bookmark header: send back a value this API returned', error: 'Bad Request' };

describe('read-your-writes per workspace, read replication on', () => {
  it('a workspace with no writes reads from any replica; answers carry a signed Bookmark', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const read = await send(ws, 'GET', '/v1/contacts');
    expect(read.status).toBe(200);
    expect(read.constraints).toEqual(['first-unconstrained']);
    expect(read.bookmark).toMatch(SIGNED);
  });

  it('a write runs on the primary and raises the workspace floor before answering: one floor call', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const write = await send(ws, 'POST', '/v1/contacts', { body: { email: 'ryw@example.com' } });
    expect(write.status).toBe(201);
    expect(write.constraints).toEqual(['first-primary']);
    expect(write.floorCalls).toEqual([`floor:${ws.id}`]);
    expect(await floorOf(ws.id)).toBe(d1Part(write.bookmark));
  });

  it("another key of the workspace reads at the first key's write: one floor call per read", async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const write = await send(ws, 'POST', '/v1/contacts', { body: { email: 'seen@example.com' } });
    const read = await send(await secondKey(ws), 'GET', `/v1/contacts/${write.body.id}`);
    expect(read.constraints).toEqual([d1Part(write.bookmark)]);
    expect(read.floorCalls).toEqual([`floor:${ws.id}`]);
    expect(read.status).toBe(200);
    expect(read.body.email).toBe('seen@example.com');
    expect(d1Part(read.bookmark) >= d1Part(write.bookmark)).toBe(true);
  });

  it('the floor only moves forward, and a request that wrote nothing leaves it', async () => {
    const ws = await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false });
    const first = await send(ws, 'POST', '/v1/contacts', { body: { email: 'one@example.com' } });
    const second = await send(ws, 'POST', '/v1/contacts', { body: { email: 'two@example.com' } });
    expect(d1Part(second.bookmark) > d1Part(first.bookmark)).toBe(true);
    expect(await floorOf(ws.id)).toBe(d1Part(second.bookmark));
    // Another workspace on the same shard moves the database on; this workspace's reads claim none of it.
    const other = await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false });
    await send(other, 'POST', '/v1/contacts', { body: { email: 'elsewhere@example.com' } });
    const read = await send(ws, 'GET', '/v1/contacts');
    expect(d1Part(read.bookmark) > d1Part(second.bookmark)).toBe(true);
    expect(await floorOf(ws.id)).toBe(d1Part(second.bookmark));
    expect(await floorStub(ws.id).raise(d1Part(first.bookmark))).toBe(d1Part(second.bookmark));
  });

  it('an operator write raises the workspace floor, and the next read of a key starts there', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const created = await send('operator', 'POST', `/admin/v1/workspaces/${ws.id}/pipelines`, {
      body: { name: 'Operator pipeline', stages: [{ name: 'New' }] },
    });
    expect(created.status).toBe(201);
    const floor = await floorOf(ws.id);
    expect(floor).toMatch(/^[0-9a-f-]+$/);
    const read = await send(ws, 'GET', '/v1/pipelines');
    expect(read.constraints).toEqual([floor]);
    expect(read.body.map((p: { name: string }) => p.name)).toContain('Operator pipeline');
  });

  it('a queue consumer raises the floor once per batch and workspace, however many rows it wrote', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const endpoint = await registerEndpoint(ws, { url: receiverUrl() });
    const fetches = captureFetch();
    restore = fetches.restore;
    const recorder = recordingEnv('auto');
    const batch = createMessageBatch(
      'workspace-api-events',
      Array.from({ length: 3 }, (_, i) => ({
        id: `m-${i}`,
        timestamp: new Date(),
        attempts: 1,
        body: deliveryMessage(ws.id, endpoint.id, fakeEvent()).body,
      })),
    );
    expect(await floorOf(ws.id)).toBeNull();
    await handleQueueBatch(batch, recorder.env);
    expect(fetches.calls).toHaveLength(3);
    expect(recorder.floorCalls).toEqual([`floor:${ws.id}`]);
    const floor = await floorOf(ws.id);
    expect(floor).toMatch(/^[0-9a-f-]+$/);
    expect((await send(ws, 'GET', '/v1/contacts')).constraints).toEqual([floor]);
  });

  it('a sweep raises the floor of each workspace it names, once per run', async () => {
    const [a, b] = [await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false }), await makeWorkspace({ shard: 'SHARD_1' }, { pipeline: false })];
    for (const ws of [a, b, a]) expect((await ws.api('POST', '/v1/contacts', { name: 'Swept' })).status).toBe(201);
    const recorder = recordingEnv('auto');
    // Every shard's pass names the workspaces whose rows it changed, row by row.
    await runSweep(recorder.env, async (_env, db) => {
      const touched = await rawAll<{ workspace_id: string }>(
        db,
        sql`UPDATE contacts SET updated_at = updated_at WHERE workspace_id IN (${a.id}, ${b.id}) RETURNING workspace_id`,
      );
      for (const row of touched) wroteFor(db, [row.workspace_id]);
      return {};
    });
    expect(recorder.floorCalls.sort()).toEqual([`floor:${a.id}`, `floor:${b.id}`].sort());
    expect(await floorOf(a.id)).toMatch(/^[0-9a-f-]+$/);
  });

  it('the floor survives a restart of its object', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const write = await send(ws, 'POST', '/v1/contacts', { body: { email: 'restart@example.com' } });
    await evictDurableObject(floorStub(ws.id));
    expect(await floorOf(ws.id)).toBe(d1Part(write.bookmark));
    const read = await send(await secondKey(ws), 'GET', `/v1/contacts/${write.body.id}`);
    expect(read.constraints).toEqual([d1Part(write.bookmark)]);
  });

  it('a sent Bookmark newer than the floor wins, from any workspace of the same shard', async () => {
    const writer = await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false });
    const write = await send(writer, 'POST', '/v1/contacts', { body: { email: 'carried@example.com' } });
    const reader = await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false });
    const read = await send(reader, 'GET', '/v1/contacts', { headers: { Bookmark: write.bookmark! } });
    expect(read.status).toBe(200);
    expect(read.constraints).toEqual([d1Part(write.bookmark)]);
  });
});

describe('Bookmark values are verified', () => {
  it('refuses garbled and forged values: a bare D1 bookmark, an altered signature, another secret', async () => {
    const ws = await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false });
    const issued = (await send(ws, 'GET', '/v1/contacts')).bookmark!;
    const [d1, mac] = issued.split('.');
    const altered = `${d1}.${mac.slice(0, -1)}${mac.endsWith('0') ? '1' : '0'}`;
    const later = `${d1.slice(0, -1)}${d1.endsWith('f') ? 'e' : 'f'}.${mac}`;
    for (const bad of ['latest', 'first-primary', "0000'; DROP TABLE contacts", 'x'.repeat(500), d1, altered, later, issued.toUpperCase()]) {
      for (const replication of ['auto', 'disabled']) {
        const read = await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: bad }, replication });
        expect(read.status, `${bad} (${replication})`).toBe(400);
        expect(read.body).toEqual(INVALID);
      }
    }
    // Signed with another secret: refused; signed with the same one: accepted.
    const secret = { BOOKMARK_SECRET: 'another-bookmark-secret' };
    expect((await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: issued }, env: secret })).status).toBe(400);
    const own = (await send(ws, 'GET', '/v1/contacts', { env: secret })).bookmark!;
    expect((await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: own }, env: secret })).status).toBe(200);
    expect((await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: issued } })).status).toBe(200);
  });

  it("refuses another shard's bookmark", async () => {
    const there = await makeWorkspace({ shard: 'SHARD_1' }, { pipeline: false });
    const issued = (await send(there, 'POST', '/v1/contacts', { body: { email: 'far@example.com' } })).bookmark!;
    const here = await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false });
    for (const replication of ['auto', 'disabled']) {
      const read = await send(here, 'GET', '/v1/contacts', { headers: { Bookmark: issued }, replication });
      expect(read.status).toBe(400);
      expect(read.body).toEqual(INVALID);
    }
  });
});

describe('webhook deliveries carry the Bookmark of their write', () => {
  it('the delivery of an event a request wrote carries a Bookmark a GET of the workspace accepts', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    await registerEndpoint(ws, { url: receiverUrl(), events: ['contact.created'] });
    const sent: DeliveryMessage[] = [];
    const queue = {
      sendBatch: async (batch: { body: DeliveryMessage }[]) => void sent.push(...batch.map((m) => m.body)),
      send: async () => undefined,
    };
    const write = await send(ws, 'POST', '/v1/contacts', { body: { email: 'hooked@example.com' }, env: { EVENTS_QUEUE: queue } });
    expect(write.status).toBe(201);
    expect(sent).toHaveLength(1);

    const fetches = captureFetch();
    restore = fetches.restore;
    const message = deliveryMessage(ws.id, sent[0].endpoint_id, {
      id: sent[0].event.id,
      type: sent[0].event.type as never,
      createdAt: sent[0].event.created_at,
      data: sent[0].event.data,
    });
    Object.assign(message.body as DeliveryMessage, { bookmark: sent[0].bookmark });
    await deliverWebhooks([message], env as unknown as Bindings);
    const bookmark = fetches.calls[0].headers.bookmark;
    expect(bookmark).toMatch(SIGNED);
    expect(d1Part(bookmark) >= d1Part(write.bookmark)).toBe(true);

    for (const replication of ['auto', 'disabled']) {
      const read = await send(ws, 'GET', `/v1/contacts/${write.body.id}`, { headers: { Bookmark: bookmark }, replication });
      expect(read.status).toBe(200);
      expect(read.body.email).toBe('hooked@example.com');
      if (replication === 'auto') expect(read.constraints[0] >= d1Part(bookmark)).toBe(true);
    }
  });

  it('a delivery re-sent without its write bookmark (the outbox sweep) still carries one, read after the write', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const endpoint = await registerEndpoint(ws, { url: receiverUrl() });
    const fetches = captureFetch();
    restore = fetches.restore;
    await deliverWebhooks([deliveryMessage(ws.id, endpoint.id, fakeEvent())], env as unknown as Bindings);
    const bookmark = fetches.calls[0].headers.bookmark;
    expect(bookmark).toMatch(SIGNED);
    expect((await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: bookmark } })).status).toBe(200);
  });
});

describe('read replication off (the default)', () => {
  it('reads start at the primary, writes record no floor, and no floor object is called', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const write = await send(ws, 'POST', '/v1/contacts', { body: { email: 'primary@example.com' }, replication: 'disabled' });
    expect(write.status).toBe(201);
    expect(write.constraints).toEqual(['first-primary']);
    expect(write.bookmark).toMatch(SIGNED);
    expect(write.floorCalls).toEqual([]);
    expect(await floorOf(ws.id)).toBeNull();

    const read = await send(ws, 'GET', `/v1/contacts/${write.body.id}`, { replication: 'disabled' });
    expect(read.constraints).toEqual(['first-primary']);
    expect(read.floorCalls).toEqual([]);
    expect(read.body.email).toBe('primary@example.com');
    expect(d1Part(read.bookmark) >= d1Part(write.bookmark)).toBe(true);

    const operator = await send('operator', 'POST', `/admin/v1/workspaces/${ws.id}/pipelines`, {
      body: { name: 'Quiet', stages: [{ name: 'New' }] },
      replication: 'disabled',
    });
    expect(operator.status).toBe(201);
    expect(operator.floorCalls).toEqual([]);
    expect(operator.constraints).toEqual([]);
  });

  it('a sent Bookmark is still checked, and a valid one changes nothing', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const bad = await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: 'latest' }, replication: 'disabled' });
    expect(bad.status).toBe(400);
    const issued = (await send(ws, 'GET', '/v1/contacts', { replication: 'disabled' })).bookmark!;
    const good = await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: issued }, replication: 'disabled' });
    expect(good.status).toBe(200);
    expect(good.constraints).toEqual(['first-primary']);
  });
});
