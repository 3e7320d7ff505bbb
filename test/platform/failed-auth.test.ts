import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { countingEnv, type Counter } from '../../bench/counting-d1';
import { buildApp } from '../../src/app';
import type { Bindings } from '../../src/env';
import { FailedAttempts } from '../../src/platform/failed-auth';
import { ADMIN_TOKEN, BRIEF_LEASES, call, freshIp, instanceCachesOn, makeWorkspace } from '../support/harness';
import { inOneRateWindow } from '../support/rate-windows';

const app = buildApp();

/** A request to the app whose D1 round trips are counted (read when the response is ready). */
async function counted(path: string, opts: { key?: string; ip: string; vars?: Record<string, string> }) {
  const counter: Counter = { queries: 0, statements: 0 };
  const headers: Record<string, string> = { 'cf-connecting-ip': opts.ip };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`https://api.test${path}`, { headers }),
    countingEnv({ ...env, ...BRIEF_LEASES, ...opts.vars }, counter),
    ctx,
  );
  const body = (await res.json()) as any;
  const queries = counter.control;
  await waitOnExecutionContext(ctx);
  return { status: res.status, body, headers: res.headers, queries };
}

const unknownKey = () => `wsk_${crypto.randomUUID().replace(/-/g, '')}${crypto.randomUUID().replace(/-/g, '').slice(0, 11)}`;

const expectFailedAuth429 = (res: { status: number; body: any; headers: Headers }) => {
  expect(res.status).toBe(429);
  expect(res.body).toEqual({
    statusCode: 429,
    error: 'Too Many Requests',
    message: expect.stringMatching(/^Too many failed authentication attempts from this source IP\. Retry after \d+ seconds\.$/),
  });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers.get('retry-after'))).toBeLessThanOrEqual(60);
};

describe('failed API keys per source IP', () => {
  it('30 unknown keys answer 401, each looked up; then the IP answers 429 without a look-up, a valid key too; other IPs are unaffected', async () => {
    await inOneRateWindow(async () => {
      const ws = await makeWorkspace();
      const ip = freshIp();
      for (let i = 0; i < 30; i++) {
        const res = await counted('/v1/pipelines', { key: unknownKey(), ip });
        expect(res.status).toBe(401);
        expect(res.body.message).toBe('Invalid API key');
        expect(res.queries).toBeGreaterThan(0);
      }
      // An instance that counted the budget spent refuses before any look-up; a fresh one learns it from the limiter.
      const refused = await counted('/v1/pipelines', { key: unknownKey(), ip });
      expectFailedAuth429(refused);
      if (instanceCachesOn) expect(refused.queries).toBe(0);
      // A valid key is refused where the spent budget is known; a fresh instance asks the limiter only at a failure (a guess never succeeds).
      const valid = await counted('/v1/pipelines', { key: ws.key, ip });
      if (instanceCachesOn) {
        expectFailedAuth429(valid);
        expect(valid.queries).toBe(0);
      } else expect(valid.status).toBe(200);

      const elsewhere = freshIp();
      expect((await counted('/v1/pipelines', { key: ws.key, ip: elsewhere })).status).toBe(200);
      expect((await counted('/v1/pipelines', { key: unknownKey(), ip: elsewhere })).status).toBe(401);
    });
  });

  it('RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE sets the budget; a missing key is not an attempt', async () => {
    await inOneRateWindow(async () => {
      const ip = freshIp();
      const vars = { RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE: '3' };
      for (let i = 0; i < 5; i++) expect((await counted('/v1/pipelines', { ip, vars })).body.message).toBe('Missing API key');
      for (const key of ['not-a-key', 'wsk_short', unknownKey()]) expect((await counted('/v1/pipelines', { key, ip, vars })).status).toBe(401);
      expectFailedAuth429(await counted('/v1/pipelines', { key: unknownKey(), ip, vars }));
    });
  });

  it('an isolate that did not count the failures learns them from the limiter at the next failure', async () => {
    await inOneRateWindow(async () => {
      const ip = freshIp();
      const vars = { RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE: '2' };
      for (let i = 0; i < 2; i++) expect((await counted('/v1/pipelines', { key: unknownKey(), ip, vars })).status).toBe(401);
      const another = new FailedAttempts('failed-auth', () => 2, 'failed-auth-refusals of another instance');
      expect(another.known(ip)).toBeNull();
      expect((await another.fail(env as unknown as Bindings, ip))?.status).toBe(429);
      expect(another.known(ip)?.status).toBe(instanceCachesOn ? 429 : undefined);
    });
  });

  it('an IP over its request budget is refused whatever its key', async () => {
    await inOneRateWindow(async () => {
      const ws = await makeWorkspace();
      const ip = freshIp();
      const vars = { RATE_LIMIT_PER_IP_PER_MINUTE: '2' };
      for (let i = 0; i < 2; i++) expect((await counted('/v1/pipelines', { key: ws.key, ip, vars })).status).toBe(200);
      const refused = await counted('/v1/pipelines', { key: unknownKey(), ip, vars });
      expect(refused.status).toBe(429);
      expect(refused.body.message).toMatch(/^Rate limit exceeded: 2 requests per minute per source IP\./);
    });
  });
});

describe('failed operator tokens per source IP', () => {
  const operator = (ip: string, token: string | null, wsId: string) => call('GET', `/admin/v1/workspaces/${wsId}`, { key: token, ip });

  it('10 wrong tokens answer 401; then every call from the IP answers 429, the right token too; other IPs pass', async () => {
    await inOneRateWindow(async () => {
      const ws = await makeWorkspace({}, { pipeline: false });
      const ip = freshIp();
      for (let i = 0; i < 10; i++) expect((await operator(ip, `wrong-${i}`, ws.id)).status).toBe(401);
      expectFailedAuth429(await operator(ip, ADMIN_TOKEN, ws.id));
      expectFailedAuth429(await operator(ip, 'wrong-again', ws.id));
      expect((await operator(freshIp(), ADMIN_TOKEN, ws.id)).status).toBe(200);
      // Another isolate refuses the right token from that IP too: it asks the limiter before admitting it.
      expect(
        (
          await new FailedAttempts('failed-operator-auth', () => 10, 'failed-operator-auth-refusals of another instance').admit(
            env as unknown as Bindings,
            ip,
          )
        )?.status,
      ).toBe(429);
    });
  });

  it('successful calls and missing tokens are not counted; RATE_LIMIT_OPERATOR_FAILED_AUTH_PER_IP_PER_MINUTE sets the budget', async () => {
    await inOneRateWindow(async () => {
      const ws = await makeWorkspace({}, { pipeline: false });
      const ip = freshIp();
      for (let i = 0; i < 30; i++) expect((await operator(ip, ADMIN_TOKEN, ws.id)).status).toBe(200);
      for (let i = 0; i < 15; i++) expect((await operator(ip, null, ws.id)).status).toBe(401);
      for (let i = 0; i < 9; i++) expect((await operator(ip, `wrong-${i}`, ws.id)).status).toBe(401);
      expect((await operator(ip, ADMIN_TOKEN, ws.id)).status).toBe(200);

      const strict = freshIp();
      const vars = { RATE_LIMIT_OPERATOR_FAILED_AUTH_PER_IP_PER_MINUTE: '2' };
      const path = `/admin/v1/workspaces/${ws.id}`;
      for (let i = 0; i < 2; i++) expect((await counted(path, { key: `wrong-${i}`, ip: strict, vars })).status).toBe(401);
      expectFailedAuth429(await counted(path, { key: ADMIN_TOKEN, ip: strict, vars }));
    });
  });
});
