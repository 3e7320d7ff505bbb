import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import { sha256Hex } from '../../src/platform/ids';
import { BRIEF_LEASES, makeWorkspace, type TestWorkspace } from '../support/harness';

/**
 * Read-your-writes per API key on D1 sessions. Local D1 has no replicas, but
 * sessions and bookmarks work as in production: these tests watch which
 * constraint each request's session starts from.
 */

/** An env whose data databases record the constraint of every session opened on them. */
function recordingEnv(replication: string) {
  const constraints: string[] = [];
  const out: Record<string, unknown> = { ...env, ...BRIEF_LEASES, D1_READ_REPLICATION: replication };
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
  return { env: out, constraints };
}

/** A request through a freshly built app (nothing of an earlier request's app instance carries over but the bindings). */
async function send(ws: TestWorkspace, method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; replication?: string } = {}) {
  const recorder = recordingEnv(opts.replication ?? 'auto');
  const ctx = createExecutionContext();
  const res = await buildApp().fetch(
    new Request(`https://api.test${path}`, {
      method,
      headers: { authorization: `Bearer ${ws.key}`, 'cf-connecting-ip': ws.ip, 'content-type': 'application/json', ...opts.headers },
      body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    }),
    recorder.env,
    ctx,
  );
  const body = (await res.json()) as any;
  await waitOnExecutionContext(ctx);
  return { status: res.status, body, bookmark: res.headers.get('Bookmark'), constraints: recorder.constraints };
}

/** What the key's limiter holds (the hit also counts one request, harmless here). */
async function storedBookmark(ws: TestWorkspace): Promise<string | null> {
  const stub = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(`key:${await sha256Hex(ws.key)}`));
  return (await stub.hit(60_000)).bookmark;
}

describe('read-your-writes per API key, read replication on', () => {
  it('a key with no writes reads from any replica', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const read = await send(ws, 'GET', '/v1/contacts');
    expect(read.status).toBe(200);
    expect(read.constraints).toEqual(['first-unconstrained']);
    expect(read.bookmark).toMatch(/^[0-9a-f-]+$/);
  });

  it('writes run on the primary and record their bookmark with the key before answering', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const write = await send(ws, 'POST', '/v1/contacts', { body: { email: 'ryw@example.com' } });
    expect(write.status).toBe(201);
    expect(write.constraints).toEqual(['first-primary']);
    expect(write.bookmark).toMatch(/^[0-9a-f-]+$/);
    expect(await storedBookmark(ws)).toBe(write.bookmark);
  });

  it('the next read of the key, through another app instance, starts at that bookmark and sees the write', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const write = await send(ws, 'POST', '/v1/contacts', { body: { email: 'seen@example.com' } });
    const read = await send(ws, 'GET', `/v1/contacts/${write.body.id}`);
    expect(read.constraints).toEqual([write.bookmark]);
    expect(read.status).toBe(200);
    expect(read.body.email).toBe('seen@example.com');
    expect(read.bookmark! >= write.bookmark!).toBe(true);
  });

  it('bookmarks only move forward: a later write advances the key, a rejected one does not', async () => {
    const ws = await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false });
    const first = await send(ws, 'POST', '/v1/contacts', { body: { email: 'one@example.com' } });
    const second = await send(ws, 'POST', '/v1/contacts', { body: { email: 'two@example.com' } });
    expect(second.bookmark! > first.bookmark!).toBe(true);
    expect(await storedBookmark(ws)).toBe(second.bookmark);
    // Another workspace on the same shard moves the database on; this key's failed write must not claim that.
    const other = await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false });
    await send(other, 'POST', '/v1/contacts', { body: { email: 'elsewhere@example.com' } });
    const rejected = await send(ws, 'PATCH', `/v1/contacts/${crypto.randomUUID()}`, { body: { city: 'Oslo' } });
    expect(rejected.status).toBe(404);
    expect(rejected.bookmark! > second.bookmark!).toBe(true);
    expect(await storedBookmark(ws)).toBe(second.bookmark);
  });

  it('a client can carry a bookmark to another key with the Bookmark header', async () => {
    const writer = await makeWorkspace({}, { pipeline: false });
    const write = await send(writer, 'POST', '/v1/contacts', { body: { email: 'carried@example.com' } });
    const reader = await makeWorkspace({}, { pipeline: false });
    const read = await send(reader, 'GET', '/v1/contacts', { headers: { Bookmark: write.bookmark! } });
    expect(read.status).toBe(200);
    expect(read.constraints).toEqual([write.bookmark]);
  });

  it('refuses a Bookmark header this API never returned', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    for (const bad of ['latest', 'first-primary', "0000'; DROP TABLE contacts", 'x'.repeat(500)]) {
      const read = await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: bad } });
      expect(read.status, bad).toBe(400);
      expect(read.body).toEqual({ statusCode: 400, message: 'Invalid Bookmark header: send back a value this API returned', error: 'Bad Request' });
    }
  });
});

describe('read replication off (the default)', () => {
  it('reads start at the primary, so no bookmark is needed to see a write, and writes record none', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const write = await send(ws, 'POST', '/v1/contacts', { body: { email: 'primary@example.com' }, replication: 'disabled' });
    expect(write.status).toBe(201);
    expect(write.constraints).toEqual(['first-primary']);
    expect(write.bookmark).toMatch(/^[0-9a-f-]+$/);
    expect(await storedBookmark(ws)).toBeNull();

    const read = await send(ws, 'GET', `/v1/contacts/${write.body.id}`, { replication: 'disabled' });
    expect(read.constraints).toEqual(['first-primary']);
    expect(read.body.email).toBe('primary@example.com');
    expect(read.bookmark! >= write.bookmark!).toBe(true);
  });

  it('a sent Bookmark is still checked, and a valid one changes nothing', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const bad = await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: 'latest' }, replication: 'disabled' });
    expect(bad.status).toBe(400);
    const good = await send(ws, 'GET', '/v1/contacts', { headers: { Bookmark: bad.bookmark ?? '0000-0001' }, replication: 'disabled' });
    expect(good.status).toBe(200);
    expect(good.constraints).toEqual(['first-primary']);
  });
});
