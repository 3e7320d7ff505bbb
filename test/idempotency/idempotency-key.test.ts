import { env } from 'cloudflare:workers';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/env';
import type { AppEnv } from '../../src/platform/app-env';
import { idempotentPosts } from '../../src/modules/idempotency-keys/middleware';
import { dbFor } from '../../src/platform/d1/db';
import { renderError } from '../../src/platform/errors';
import { wiring } from '../../src/wiring';
import { rowsIn, shardOf } from '../support/db';
import { call, makeWorkspace, type TestWorkspace } from '../support/harness';

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });
const email = () => `${crypto.randomUUID()}@example.com`;
const contactsWith = async (ws: TestWorkspace, address: string) =>
  rowsIn(ws.id, 'SELECT id FROM contacts WHERE workspace_id = ?1 AND email = ?2', ws.id, address);
const eventsOf = async (ws: TestWorkspace, type: string) =>
  rowsIn(ws.id, 'SELECT id FROM event_outbox WHERE workspace_id = ?1 AND type = ?2', ws.id, type);

describe('Idempotency-Key on POST', () => {
  it('replays the first answer verbatim, runs nothing again and fires no second event', async () => {
    const ws = await makeWorkspace();
    const address = email();
    const first = await ws.api('POST', '/v1/contacts', { email: address, name: 'Ada' }, withKey('create-ada'));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await ws.api('POST', '/v1/contacts', { name: 'Ada', email: address }, withKey('create-ada'));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await contactsWith(ws, address)).toHaveLength(1);
    expect(await eventsOf(ws, 'contact.created')).toHaveLength(1);
  });

  it('answers 422 for the same key with another body or path, and keeps a 4xx answer like any other', async () => {
    const ws = await makeWorkspace();
    const first = await ws.api('POST', '/v1/contacts', { email: email() }, withKey('k-1'));
    expect(first.status).toBe(201);
    for (const [path, body] of [
      ['/v1/contacts', { email: email() }],
      ['/v1/tags', { name: 'vip' }],
    ] as const) {
      const res = await ws.api('POST', path, body, withKey('k-1'));
      expect(res.status, path).toBe(422);
      expect(res.body).toMatchObject({ statusCode: 422, error: 'Unprocessable Entity', error_code: 'IDEMPOTENCY_KEY_REUSED' });
    }
    const invalid = await ws.api('POST', '/v1/contacts', { email: 'not an email' }, withKey('k-2'));
    expect(invalid.status).toBe(400);
    const replayed = await ws.api('POST', '/v1/contacts', { email: 'not an email' }, withKey('k-2'));
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(invalid.body);
  });

  it('refuses a key that is empty, too long or not printable ASCII', async () => {
    const ws = await makeWorkspace();
    for (const key of ['', 'x'.repeat(256), 'tab\there', 'bell\x07']) {
      const res = await ws.api('POST', '/v1/contacts', { email: email() }, withKey(key));
      expect(res.status, JSON.stringify(key)).toBe(400);
      expect(res.body).toEqual({
        statusCode: 400,
        error: 'Bad Request',
        error_code: 'INVALID_IDEMPOTENCY_KEY',
        message: 'Idempotency-Key must be 1 to 255 printable ASCII characters',
      });
    }
    expect((await ws.api('POST', '/v1/contacts', { email: email() }, withKey('x'.repeat(255)))).status).toBe(201);
  });

  it('runs once under 10 parallel identical requests: every answer is that result or 409 in use', async () => {
    const ws = await makeWorkspace();
    const address = email();
    const answers = await Promise.all(Array.from({ length: 10 }, () => ws.api('POST', '/v1/contacts', { email: address }, withKey('race'))));
    const created = answers.filter((a) => a.status === 201);
    const busy = answers.filter((a) => a.status === 409);
    expect(created.length + busy.length).toBe(10);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((a) => a.body.id)).size).toBe(1);
    expect(created.filter((a) => a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const a of busy) {
      expect(a.body).toMatchObject({ statusCode: 409, error: 'Conflict', error_code: 'IDEMPOTENCY_KEY_IN_USE' });
      expect(a.headers.get('retry-after')).toBe('1');
    }
    expect(await contactsWith(ws, address)).toHaveLength(1);
    expect(await eventsOf(ws, 'contact.created')).toHaveLength(1);
  });

  it('is scoped to the workspace, and changes nothing without the header', async () => {
    const [a, b] = await Promise.all([makeWorkspace(), makeWorkspace()]);
    const address = email();
    expect((await a.api('POST', '/v1/contacts', { email: address }, withKey('shared'))).headers.get('idempotent-replayed')).toBeNull();
    expect((await b.api('POST', '/v1/contacts', { email: address }, withKey('shared'))).headers.get('idempotent-replayed')).toBeNull();
    expect(await contactsWith(b, address)).toHaveLength(1);
    const contact = (await a.api('POST', '/v1/contacts', { email: email() })).body;
    await a.api('POST', `/v1/contacts/${contact.id}/notes`, { body: 'One' });
    await a.api('POST', `/v1/contacts/${contact.id}/notes`, { body: 'One' });
    expect(await rowsIn(a.id, 'SELECT id FROM contact_notes WHERE workspace_id = ?1 AND contact_id = ?2', a.id, contact.id)).toHaveLength(2);
  });

  it('takes over a claim whose request died (lease lapsed)', async () => {
    const ws = await makeWorkspace();
    const address = email();
    const shard = await shardOf(ws.id);
    const { requestFingerprint } = await import('../../src/modules/idempotency-keys/fingerprint');
    await shard
      .prepare(
        "INSERT INTO idempotency_keys (workspace_id, key, fingerprint, state, claim, lease_until, created_at) VALUES (?, 'stale', ?, 'executing', 'dead', '2000-01-01T00:00:00.000Z', '2000-01-01T00:00:00.000Z')",
      )
      .bind(ws.id, await requestFingerprint('POST', '/v1/contacts', { email: address }))
      .run();
    const res = await ws.api('POST', '/v1/contacts', { email: address }, withKey('stale'));
    expect(res.status).toBe(201);
    expect(res.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('answers that leave the key usable', () => {
  it('a 5xx, a 401 and a 429 are not kept: the next request with the key runs', async () => {
    const ws = await makeWorkspace();
    const shard = await shardOf(ws.id);
    const statuses = [500, 401, 429, 201];
    let runs = 0;
    const app = new Hono<AppEnv>();
    app.onError(renderError);
    app.use('*', async (c, next) => {
      c.set('db', dbFor(shard));
      c.set('workspace', { id: ws.id } as never);
      await next();
    });
    app.use('*', idempotentPosts);
    app.post('/thing', (c) => c.json({ run: ++runs }, statuses[runs - 1] as never));
    const post = () =>
      app.fetch(
        new Request('https://api.test/thing', {
          method: 'POST',
          headers: { 'Idempotency-Key': 'flaky', 'content-type': 'application/json' },
          body: '{}',
        }),
        env as unknown as Bindings,
      );
    for (const status of statuses) expect((await post()).status).toBe(status);
    const replay = await post();
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual({ run: 4 });
    expect(runs).toBe(4);
  });
});

describe('retention', () => {
  it('forgets keys two days old and keeps younger ones', async () => {
    const ws = await makeWorkspace();
    const shard = await shardOf(ws.id);
    const at = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000).toISOString();
    for (const [key, hours] of [
      ['old', 49],
      ['young', 25],
    ] as const) {
      await shard
        .prepare(
          "INSERT INTO idempotency_keys (workspace_id, key, fingerprint, state, claim, lease_until, created_at) VALUES (?, ?, 'f', 'done', 'c', ?, ?)",
        )
        .bind(ws.id, key, at(hours), at(hours))
        .run();
    }
    const result = await wiring.sweeps.get('idempotency-keys')!(env as unknown as Bindings, dbFor(shard));
    expect(result.idempotency_keys_forgotten).toBeGreaterThanOrEqual(1);
    expect((await rowsIn(ws.id, 'SELECT key FROM idempotency_keys WHERE workspace_id = ?1 ORDER BY key', ws.id)).map((r) => r.key)).toEqual([
      'young',
    ]);
  });
});

describe('every POST', () => {
  it('documents the header and the answers it adds', async () => {
    const doc = (
      await call<{
        paths: Record<
          string,
          Record<string, { parameters?: { name: string; in: string }[]; responses: Record<string, unknown>; security?: unknown }>
        >;
      }>('GET', '/v1/openapi.json')
    ).body;
    const posts = Object.entries(doc.paths).flatMap(([path, item]) =>
      item.post && item.post.security !== undefined && path.startsWith('/v1/') ? [[path, item.post] as const] : [],
    );
    expect(posts.length).toBeGreaterThanOrEqual(37);
    for (const [path, op] of posts) {
      expect(
        op.parameters?.some((p) => p.name === 'Idempotency-Key' && p.in === 'header'),
        path,
      ).toBe(true);
      expect(Object.keys(op.responses), path).toEqual(expect.arrayContaining(['409', '422']));
    }
  });

  it('makes a retried payment request one link, not two', async () => {
    const ws = await makeWorkspace();
    const body = { amount: 25, email: email(), title: 'Invoice 7' };
    const [first, retry] = [
      await ws.api('POST', '/v1/payment-requests', body, withKey('invoice-7')),
      await ws.api('POST', '/v1/payment-requests', body, withKey('invoice-7')),
    ];
    expect(first.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await rowsIn(ws.id, 'SELECT id FROM payment_requests WHERE workspace_id = ?1', ws.id)).toHaveLength(1);
  });
});
