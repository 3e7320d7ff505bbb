import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app';
import { KEY_CACHE_SECONDS } from '../../src/platform/key-cache';
import { configureInstanceCaches, resetInstanceCaches } from '../../src/platform/instance-cache';
import { locationCacheStats } from '../../src/platform/location-cache';
import { admin, BRIEF_LEASES, freshIp, makeWorkspace } from '../support/harness';

const app = buildApp();

/** The control plane's look-ups of API keys, counted on their way to D1. */
function countingControl() {
  const seen = { keyLookUps: 0 };
  const counting = (db: D1Database | D1DatabaseSession): typeof db =>
    new Proxy(db, {
      get(target, name) {
        if (name === 'prepare')
          return (query: string) => {
            if (query.includes('"api_keys"')) seen.keyLookUps++;
            return target.prepare(query);
          };
        if (name === 'withSession') return (constraint: string) => counting((target as D1Database).withSession(constraint));
        const value = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return { seen, DB: counting(env.DB) as D1Database };
}

/**
 * A request to a fresh instance (`INSTANCE_CACHES=location`: its own memory holds nothing) in
 * a location whose cache is shared; the work it hands to `waitUntil` is awaited with it.
 */
async function onFreshInstance(key: string, control = countingControl()) {
  const pending: Promise<unknown>[] = [];
  const ctx = { waitUntil: (p: Promise<unknown>) => pending.push(p), passThroughOnException: () => {} } as unknown as ExecutionContext;
  const request = new Request('https://api.test/v1/pipelines', { headers: { authorization: `Bearer ${key}`, 'cf-connecting-ip': freshIp() } });
  const res = await app.fetch(request, { ...env, ...BRIEF_LEASES, DB: control.DB, INSTANCE_CACHES: 'location' }, ctx);
  await res.text();
  await Promise.all(pending);
  return { status: res.status, keyLookUps: control.seen.keyLookUps };
}

/** A key the nearest replica does not know is asked of the primary too. */
const UNKNOWN_KEY_LOOK_UPS = 2;

const stats = () => locationCacheStats().find((s) => s.namespace === 'api-keys');

describe('the location tier of the API key look-up', () => {
  afterEach(() => {
    vi.useRealTimers();
    configureInstanceCaches(env.INSTANCE_CACHES);
    resetInstanceCaches();
  });

  it('answers a fresh instance from the location without a control-plane round trip, once the location saw the key', async () => {
    const ws = await makeWorkspace();
    resetInstanceCaches();
    const first = await onFreshInstance(ws.key);
    expect(first).toEqual({ status: 200, keyLookUps: 1 });
    const second = await onFreshInstance(ws.key);
    expect(second).toEqual({ status: 200, keyLookUps: 0 });
    expect(stats()).toMatchObject({ hits: 1, misses: 1 });
  });

  it('refuses a key revoked through the operator API at once in the revoking location', async () => {
    const ws = await makeWorkspace();
    expect((await onFreshInstance(ws.key)).status).toBe(200);
    expect((await onFreshInstance(ws.key)).keyLookUps).toBe(0);
    expect((await admin('POST', `/api-keys/${ws.keyId}/revoke`)).status).toBe(200);
    expect(await onFreshInstance(ws.key)).toEqual({ status: 401, keyLookUps: UNKNOWN_KEY_LOOK_UPS });
  });

  it('refuses a key revoked elsewhere within the stated lifetime, and serves it stale while refreshing it before that', async () => {
    const ws = await makeWorkspace();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    expect((await onFreshInstance(ws.key)).status).toBe(200);
    // Revoked without this location hearing of it, as a revocation in another location is.
    await env.DB.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').bind(new Date().toISOString(), ws.keyId).run();
    expect(await onFreshInstance(ws.key)).toEqual({ status: 200, keyLookUps: 0 });
    vi.setSystemTime(Date.now() + KEY_CACHE_SECONDS.location * 1000);
    expect(await onFreshInstance(ws.key)).toEqual({ status: 401, keyLookUps: UNKNOWN_KEY_LOOK_UPS });
  });

  it('refreshes a stale entry after answering from it, so a key in use stays cached and a revoked one goes', async () => {
    const ws = await makeWorkspace();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    expect((await onFreshInstance(ws.key)).status).toBe(200);
    vi.setSystemTime(Date.now() + KEY_CACHE_SECONDS.fresh * 1000);
    const before = stats()!;
    // Stale: answered from the location, read again afterwards.
    expect(await onFreshInstance(ws.key)).toEqual({ status: 200, keyLookUps: 1 });
    expect(stats()).toMatchObject({ stale: before.stale + 1, misses: before.misses });
    vi.setSystemTime(Date.now() + (KEY_CACHE_SECONDS.location - 1) * 1000);
    expect(await onFreshInstance(ws.key)).toEqual({ status: 200, keyLookUps: 1 });
    await env.DB.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ?').bind(new Date().toISOString(), ws.keyId).run();
    vi.setSystemTime(Date.now() + KEY_CACHE_SECONDS.fresh * 1000);
    // The refresh finds the key revoked and drops it: the next request looks it up and is refused.
    expect(await onFreshInstance(ws.key)).toEqual({ status: 200, keyLookUps: UNKNOWN_KEY_LOOK_UPS });
    expect(await onFreshInstance(ws.key)).toEqual({ status: 401, keyLookUps: UNKNOWN_KEY_LOOK_UPS });
  });

  it('keeps nothing in the location under INSTANCE_CACHES=off', async () => {
    const ws = await makeWorkspace();
    const run = async () => {
      const control = countingControl();
      const res = await app.fetch(
        new Request('https://api.test/v1/pipelines', { headers: { authorization: `Bearer ${ws.key}`, 'cf-connecting-ip': freshIp() } }),
        { ...env, DB: control.DB, INSTANCE_CACHES: 'off' },
        { waitUntil: () => {}, passThroughOnException: () => {} } as unknown as ExecutionContext,
      );
      expect(res.status).toBe(200);
      return control.seen.keyLookUps;
    };
    expect(await run()).toBe(1);
    expect(await run()).toBe(1);
  });
});
