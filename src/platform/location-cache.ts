/**
 * Values shared by every instance of one location (a Cloudflare data centre) through the Cache
 * API: a fresh instance of a location that saw the value moments ago skips its source. A value
 * is fresh for `freshMs` after its source was read, then served stale while the instance that
 * found it stale reads the source again, until `maxAgeMs`, when it is gone. `invalidate()` makes
 * every value stored before it miss in this location at once (a mark each read checks beside its
 * entry); other locations keep theirs until `maxAgeMs` at most. Nothing here may be needed for a
 * rule to hold: with `INSTANCE_CACHES=off` every namespace misses and stores nothing. (On a
 * `workers.dev` host the Cache API stores nothing either: there every read misses.)
 */
export type LocationHit<V> = { value: V; readAt: number; stale: boolean };

export type LocationCache<V> = {
  get(key: string): Promise<LocationHit<V> | undefined>;
  /** Stores `value` as read from its source at `readAt` (when the read started, so one overlapping an invalidation misses). */
  put(key: string, value: V, readAt: number): Promise<void>;
  delete(key: string): Promise<void>;
  invalidate(): Promise<void>;
};

export type LocationCacheStats = { namespace: string; hits: number; stale: number; misses: number };

type Stored<V> = { value: V; readAt: number };

const ORIGIN = 'https://location-cache.invalid';
const counters = new Map<string, LocationCacheStats>();
let enabled = true;
/** Raised by `forgetLocationCaches`: each value names a location cache that saw nothing yet. */
let generation = 0;

/** On or off, as `INSTANCE_CACHES` says (./instance-cache.ts). */
export function configureLocationCaches(setting: string | undefined): void {
  enabled = setting?.trim().toLowerCase() !== 'off';
}

const storedFor = (seconds: number) => ({ 'cache-control': `max-age=${Math.max(1, Math.ceil(seconds))}` });

/** A namespace's handle; a name declared again counts into the same counters. */
export function locationCache<V>(namespace: string, options: { freshMs: number; maxAgeMs: number }): LocationCache<V> {
  const stats = counters.get(namespace) ?? { namespace, hits: 0, stale: 0, misses: 0 };
  counters.set(namespace, stats);
  const url = (key: string) => `${ORIGIN}/${namespace}/${encodeURIComponent(key)}`;
  const mark = `${ORIGIN}/${namespace}/~invalidated`;
  let opened: { generation: number; cache: Promise<Cache> } | null = null;
  const cache = () => {
    if (opened?.generation !== generation) opened = { generation, cache: caches.open(`location:${namespace}:${generation}`) };
    return opened.cache;
  };
  const miss = () => {
    stats.misses++;
    return undefined;
  };
  return {
    async get(key) {
      if (!enabled) return miss();
      const c = await cache();
      const [entry, invalidation] = await Promise.all([c.match(url(key)), c.match(mark)]);
      if (!entry) return miss();
      const stored = await entry.json<Stored<V>>();
      const invalidatedAt = invalidation ? Number(await invalidation.text()) : 0;
      const age = Date.now() - stored.readAt;
      if (stored.readAt <= invalidatedAt || age >= options.maxAgeMs) return miss();
      const stale = age >= options.freshMs;
      if (stale) stats.stale++;
      else stats.hits++;
      return { value: stored.value, readAt: stored.readAt, stale };
    },
    async put(key, value, readAt) {
      if (!enabled) return;
      const left = (options.maxAgeMs - (Date.now() - readAt)) / 1000;
      if (left <= 0) return;
      const body = JSON.stringify({ value, readAt } satisfies Stored<V>);
      await (await cache()).put(url(key), new Response(body, { headers: { 'content-type': 'application/json', ...storedFor(left) } }));
    },
    async delete(key) {
      await (await cache()).delete(url(key));
    },
    async invalidate() {
      // Kept as long as an entry it outdates could live; the mark itself is the moment.
      await (await cache()).put(mark, new Response(String(Date.now()), { headers: storedFor(options.maxAgeMs / 1000) }));
    },
  };
}

/** Each namespace's counters since the last reset. */
export const locationCacheStats = (): LocationCacheStats[] => [...counters.values()].map((s) => ({ ...s }));

/** This instance sees every namespace as a location that saw nothing yet does, and counters restart (tests, and the benchmark between its modes). */
export function forgetLocationCaches(): void {
  generation++;
  for (const s of counters.values()) {
    s.hits = 0;
    s.stale = 0;
    s.misses = 0;
  }
}
