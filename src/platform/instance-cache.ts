import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env';
import { configureLocationCaches, forgetLocationCaches } from './location-cache';

/**
 * Every value a Worker instance keeps in memory from one request for the next goes through
 * here: a named namespace with a size cap (the entry used longest ago goes first), an optional
 * lifetime, and hit/miss counters. Production spreads one key's requests over many instances, so
 * nothing here may be needed for a rule to hold: with `INSTANCE_CACHES=off` every namespace
 * misses and keeps nothing, which is what a fresh instance pays on each request.
 */
export type InstanceCache<V> = {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
  clear(): void;
};

export type InstanceCacheStats = { namespace: string; size: number; max: number; hits: number; misses: number };

type Namespace = Omit<InstanceCacheStats, 'size'> & { entries: Map<string, { value: unknown; expires: number }>; ttlMs: number | null };

const namespaces = new Map<string, Namespace>();
let enabled = true;
/** Namespaces turned off alone, to measure what each buys (the benchmark). */
let without = new Set<string>();

/**
 * Reads the switch (`INSTANCE_CACHES`): `off` turns every namespace off, the location's
 * (./location-cache.ts) too, as a fresh instance in a location that saw nothing pays; `location`
 * turns only the instance's off (a fresh instance in a location that saw the request's key).
 * Entries kept while the instance's were on are dropped when they go off.
 */
export function configureInstanceCaches(setting: string | undefined): void {
  const mode = setting?.trim().toLowerCase();
  configureLocationCaches(mode === 'off' ? 'off' : 'on');
  const wanted = mode !== 'off' && mode !== 'location';
  if (wanted === enabled) return;
  enabled = wanted;
  if (!wanted) for (const ns of namespaces.values()) ns.entries.clear();
}

/** Applies the environment's switch before anything a request does. */
export const instanceCacheSwitch: MiddlewareHandler<AppEnv> = (c, next) => {
  configureInstanceCaches(c.env.INSTANCE_CACHES);
  return next();
};

/** Turns the named namespaces off while the others stay as the switch says (the benchmark's measure of each). */
export function instanceCachesWithout(names: Iterable<string>): void {
  without = new Set(names);
  for (const name of without) namespaces.get(name)?.entries.clear();
}

const on = (ns: Namespace) => enabled && !without.has(ns.namespace);

/** A namespace's handle; a name declared again is the same namespace. */
export function instanceCache<V>(namespace: string, options: { max: number; ttlMs?: number }): InstanceCache<V> {
  const ns: Namespace = namespaces.get(namespace) ?? {
    namespace,
    max: options.max,
    hits: 0,
    misses: 0,
    entries: new Map(),
    ttlMs: options.ttlMs ?? null,
  };
  namespaces.set(namespace, ns);
  return {
    get(key) {
      const entry = on(ns) ? ns.entries.get(key) : undefined;
      if (entry === undefined || entry.expires <= Date.now()) {
        if (entry !== undefined) ns.entries.delete(key);
        ns.misses++;
        return undefined;
      }
      ns.entries.delete(key);
      ns.entries.set(key, entry);
      ns.hits++;
      return entry.value as V;
    },
    set(key, value) {
      if (!on(ns)) return;
      ns.entries.delete(key);
      if (ns.entries.size >= ns.max) ns.entries.delete(ns.entries.keys().next().value!);
      ns.entries.set(key, { value, expires: ns.ttlMs === null ? Infinity : Date.now() + ns.ttlMs });
    },
    delete(key) {
      ns.entries.delete(key);
    },
    clear() {
      ns.entries.clear();
    },
  };
}

/** Each namespace's size and counters since the last reset. */
export const instanceCacheStats = (): InstanceCacheStats[] =>
  [...namespaces.values()].map(({ namespace, entries, max, hits, misses }) => ({ namespace, size: entries.size, max, hits, misses }));

/** Empties every namespace and zeroes its counters, and forgets what the location holds (tests, and the benchmark between its modes). */
export function resetInstanceCaches(): void {
  forgetLocationCaches();
  for (const ns of namespaces.values()) {
    ns.entries.clear();
    ns.hits = 0;
    ns.misses = 0;
  }
}
