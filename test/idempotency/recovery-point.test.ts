import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import type { MiddlewareHandler } from 'hono';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { V1_MIDDLEWARE } from '../../src/app';
import type { AppEnv } from '../../src/platform/app-env';
import { renderError } from '../../src/platform/errors';
import { createRouter } from '../../src/platform/validation';
import { wiring } from '../../src/wiring';
import { rowsIn } from '../support/db';
import { makeWorkspace, type TestWorkspace } from '../support/harness';

/**
 * A request killed between its effect and its stored answer. The app here is the Worker's `/v1`
 * chain and routers with one step more, run between the route and the `Idempotency-Key`
 * middleware's answer: `crashAfterRoute` throws what no error handler catches (a non-Error), so the
 * request ends as a dying isolate ends it, with its effect committed and nothing after it run.
 */
const CRASH = { crashed: true };

function appWith(step: MiddlewareHandler<AppEnv>) {
  const app = createRouter();
  app.onError(renderError);
  app.use('/v1/*', ...V1_MIDDLEWARE, step);
  for (const router of wiring.routes) app.route('/v1', router);
  return app;
}

const crashAfterRoute: MiddlewareHandler<AppEnv> = async (_c, next) => {
  await next();
  throw CRASH;
};

async function post(app: ReturnType<typeof appWith>, ws: TestWorkspace, path: string, body: unknown, key: string) {
  const ctx = createExecutionContext();
  try {
    const res = await app.fetch(
      new Request(`https://api.test${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.key}`, 'cf-connecting-ip': ws.ip, 'content-type': 'application/json', 'Idempotency-Key': key },
        body: JSON.stringify(body),
      }),
      env,
      ctx,
    );
    return { status: res.status, body: (await res.json()) as any, headers: res.headers };
  } finally {
    await waitOnExecutionContext(ctx);
  }
}

const withKey = (key: string) => ({ headers: { 'Idempotency-Key': key } });
const keyRow = async (ws: TestWorkspace, key: string) =>
  (await rowsIn<{ state: string }>(ws.id, 'SELECT state FROM idempotency_keys WHERE workspace_id = ?1 AND key = ?2', ws.id, key))[0];
/** The lease of the key's claim ran out: what two minutes without its request do, without waiting them. */
const leaseLapsed = (ws: TestWorkspace, key: string) =>
  rowsIn(
    ws.id,
    "UPDATE idempotency_keys SET lease_until = '2000-01-01T00:00:00.000Z' WHERE workspace_id = ?1 AND key = ?2 RETURNING key",
    ws.id,
    key,
  );

const ANSWER_LOST = {
  statusCode: 409,
  error: 'Conflict',
  error_code: 'IDEMPOTENCY_KEY_ANSWER_LOST',
  message: 'The request with this Idempotency-Key was carried out, but its answer was lost: read the resource to see the outcome',
};

/** Routes whose effect commits each way a route writes: a batch, one raw statement, one builder statement. */
const EFFECTS = [
  {
    name: 'a contact (a write batch)',
    request: async () => ({ path: '/v1/contacts', body: { email: `${crypto.randomUUID()}@example.com` } }),
    count: (ws: TestWorkspace) => rowsIn(ws.id, 'SELECT id FROM contacts WHERE workspace_id = ?1', ws.id),
  },
  {
    name: 'a note (one raw statement)',
    request: async (ws: TestWorkspace) => {
      const contact = (await ws.api('POST', '/v1/contacts', { email: `${crypto.randomUUID()}@example.com` })).body;
      return { path: `/v1/contacts/${contact.id}/notes`, body: { body: 'Call back on Monday' } };
    },
    count: (ws: TestWorkspace) => rowsIn(ws.id, 'SELECT id FROM contact_notes WHERE workspace_id = ?1', ws.id),
  },
  {
    name: 'a tag (one builder statement)',
    request: async () => ({ path: '/v1/tags', body: { name: `vip-${crypto.randomUUID().slice(0, 8)}` } }),
    count: (ws: TestWorkspace) => rowsIn(ws.id, 'SELECT id FROM tags WHERE workspace_id = ?1', ws.id),
  },
];

afterEach(() => vi.restoreAllMocks());

describe('a request killed between its effect and its answer', () => {
  for (const effect of EFFECTS) {
    it(`is not carried out again once its lease lapsed: ${effect.name}`, async () => {
      const ws = await makeWorkspace({}, { pipeline: false });
      const { path, body } = await effect.request(ws);
      await expect(post(appWith(crashAfterRoute), ws, path, body, 'crash')).rejects.toBe(CRASH);
      expect(await effect.count(ws)).toHaveLength(1);
      // The effect's own batch moved the key to its recovery point.
      expect(await keyRow(ws, 'crash')).toEqual({ state: 'committed' });

      // Within the lease the request may still be answering: the key is in use.
      const early = await ws.api('POST', path, body, withKey('crash'));
      expect(early.status).toBe(409);
      expect(early.body.error_code).toBe('IDEMPOTENCY_KEY_IN_USE');

      await leaseLapsed(ws, 'crash');
      for (let retry = 0; retry < 2; retry++) {
        const res = await ws.api('POST', path, body, withKey('crash'));
        expect(res.status).toBe(409);
        expect(res.body).toEqual(ANSWER_LOST);
        expect(res.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(await effect.count(ws)).toHaveLength(1);
      // Another key is another request: it runs.
      const other = await effect.request(ws);
      expect((await ws.api('POST', other.path, other.body, withKey('another'))).status).toBe(201);
    });
  }

  it('answers that the answer was lost at once when the request failed unexpectedly after its effect (a 500)', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const [, note] = EFFECTS;
    const { path, body } = await note.request(ws);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const failing = appWith(async (_c, next) => {
      await next();
      throw new Error('the answer could not be shaped');
    });
    const first = await post(failing, ws, path, body, 'failed-answer');
    expect(first.status).toBe(500);
    expect(logged).toHaveBeenCalledWith('unhandled error', 'POST', path, expect.stringMatching(/^request_id=/), expect.any(Error));
    const retry = await ws.api('POST', path, body, withKey('failed-answer'));
    expect(retry.status).toBe(409);
    expect(retry.body).toEqual(ANSWER_LOST);
    expect(await note.count(ws)).toHaveLength(1);
  });

  it('runs a request whose claim lapsed with nothing committed: running it is right', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const [, note] = EFFECTS;
    const { path, body } = await note.request(ws);
    const crashBeforeRoute: MiddlewareHandler<AppEnv> = async () => {
      throw CRASH;
    };
    await expect(post(appWith(crashBeforeRoute), ws, path, body, 'died-early')).rejects.toBe(CRASH);
    expect(await keyRow(ws, 'died-early')).toEqual({ state: 'executing' });
    expect(await note.count(ws)).toHaveLength(0);
    await leaseLapsed(ws, 'died-early');
    const retry = await ws.api('POST', path, body, withKey('died-early'));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(await note.count(ws)).toHaveLength(1);
    const replay = await ws.api('POST', path, body, withKey('died-early'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(retry.body);
  });

  it('refuses the writes of a slow original whose claim was taken over: one of the two commits', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const [, note] = EFFECTS;
    const { path, body } = await note.request(ws);
    let holdReached!: () => void;
    let release!: () => void;
    const claimed = new Promise<void>((resolve) => (holdReached = resolve));
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The original holds its claim and stalls before the route writes.
    const slow = appWith(async (_c, next) => {
      holdReached();
      await gate;
      await next();
    });
    const original = post(slow, ws, path, body, 'slow');
    await claimed;
    await leaseLapsed(ws, 'slow');
    const takeover = await ws.api('POST', path, body, withKey('slow'));
    expect(takeover.status).toBe(201);
    expect(takeover.headers.get('idempotent-replayed')).toBeNull();
    release();
    const late = await original;
    expect(late.status).toBe(409);
    expect(late.body.error_code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await note.count(ws)).toHaveLength(1);
    // The key answers what the takeover did.
    const replay = await ws.api('POST', path, body, withKey('slow'));
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(takeover.body);
  });

  it('still runs one of parallel requests with one key, and the others answer it or 409 in use', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const [, note] = EFFECTS;
    const { path, body } = await note.request(ws);
    const answers = await Promise.all(Array.from({ length: 8 }, () => ws.api('POST', path, body, withKey('parallel'))));
    expect(answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    for (const a of answers) if (a.status !== 201) expect(a.body.error_code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await note.count(ws)).toHaveLength(1);
  });
});
