import { afterEach, describe, expect, it } from 'vitest';
import { configureInstanceCaches, instanceCache, instanceCacheStats, resetInstanceCaches } from '../../src/platform/instance-cache';
import { env } from 'cloudflare:workers';
import { buildApp } from '../../src/app';
import { instanceCachesOn, makeWorkspace } from '../support/harness';

const stats = (namespace: string) => instanceCacheStats().find((n) => n.namespace === namespace)!;

describe('instance caches', () => {
  afterEach(() => configureInstanceCaches(instanceCachesOn ? undefined : 'off'));

  it('keep at most their cap, dropping the entry used longest ago, and count hits and misses', () => {
    configureInstanceCaches(undefined);
    const cache = instanceCache<number>('test: capped', { max: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([1, undefined, 3]);
    expect(stats('test: capped')).toMatchObject({ size: 2, max: 2, hits: 3, misses: 1 });
    resetInstanceCaches();
    expect(stats('test: capped')).toMatchObject({ size: 0, hits: 0, misses: 0 });
  });

  it('forget an entry once its lifetime is over', async () => {
    configureInstanceCaches(undefined);
    const cache = instanceCache<string>('test: lifetime', { max: 10, ttlMs: 20 });
    cache.set('k', 'v');
    expect(cache.get('k')).toBe('v');
    await new Promise((r) => setTimeout(r, 40));
    expect(cache.get('k')).toBeUndefined();
    expect(stats('test: lifetime').size).toBe(0);
  });

  it('keep nothing and answer nothing while INSTANCE_CACHES=off, and drop what they kept when it goes off', () => {
    configureInstanceCaches(undefined);
    const cache = instanceCache<string>('test: switch', { max: 10 });
    cache.set('kept', 'before');
    configureInstanceCaches('off');
    expect(stats('test: switch').size).toBe(0);
    cache.set('k', 'v');
    expect(cache.get('k')).toBeUndefined();
    expect(cache.get('kept')).toBeUndefined();
    expect(stats('test: switch')).toMatchObject({ size: 0, misses: 2, hits: 0 });
    configureInstanceCaches('on');
    cache.set('k', 'v');
    expect(cache.get('k')).toBe('v');
  });

  it('share one namespace between handles of the same name', () => {
    configureInstanceCaches(undefined);
    instanceCache<number>('test: shared', { max: 5 }).set('x', 1);
    expect(instanceCache<number>('test: shared', { max: 5 }).get('x')).toBe(1);
  });

  it('follow the environment: a request under INSTANCE_CACHES=off leaves no key kept, one under the default keeps it', async () => {
    const ws = await makeWorkspace();
    const app = buildApp();
    const get = (vars: Record<string, string>) =>
      app.fetch(new Request('https://api.test/v1/pipelines', { headers: { authorization: `Bearer ${ws.key}` } }), { ...env, ...vars }, {
        waitUntil: () => {},
        passThroughOnException: () => {},
      } as unknown as ExecutionContext);
    resetInstanceCaches();
    expect((await get({ INSTANCE_CACHES: 'off' })).status).toBe(200);
    expect(stats('api-keys')).toMatchObject({ size: 0, hits: 0 });
    expect((await get({ INSTANCE_CACHES: '' })).status).toBe(200);
    expect((await get({ INSTANCE_CACHES: '' })).status).toBe(200);
    expect(stats('api-keys')).toMatchObject({ size: 1, hits: 1 });
  });
});
