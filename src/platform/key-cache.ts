import { instanceCache } from './instance-cache';
import { locationCache } from './location-cache';

/**
 * The API key look-up's tiers, nearest first: the instance's memory (5 s), the location's Cache
 * API (fresh for 10 s, served stale while one instance reads it again, gone at 20 s), then the
 * control plane. So a key seen in a location in the last 20 s costs no control-plane round trip
 * on any instance there. What a look-up answers (the workspace's plan, limits, shard and schema)
 * is at most 20 s old: below a move's old-copy lifetime (`MOVE_CLEAR_AFTER_SECONDS`, 30 s) and
 * the schema check's minute. Revoking a key or changing a workspace through the operator API
 * drops every look-up of the instance at once and of the location as the answer leaves; other
 * instances of the location keep theirs up to 5 s, other locations up to 20 s.
 */
export const KEY_CACHE_SECONDS = { instance: 5, fresh: 10, location: 20 } as const;

type Held<V> = { value: V; readAt: number };

const instance = instanceCache<Held<unknown>>('api-keys', { max: 1_000, ttlMs: KEY_CACHE_SECONDS.instance * 1000 });
const location = locationCache<unknown>('api-keys', { freshMs: KEY_CACHE_SECONDS.fresh * 1000, maxAgeMs: KEY_CACHE_SECONDS.location * 1000 });

let generation = 0;
/** Keys this instance is reading again for its location, so a burst of stale hits reads once. */
const refreshing = new Set<string>();

/** Drops every cached look-up of this instance, and of its location once the promise settles. */
export function invalidateKeyCache(): Promise<void> {
  generation++;
  instance.clear();
  return location.invalidate();
}

/**
 * `keyHash`'s look-up through the tiers; `lookUp` reads the control plane. A found key is kept in
 * both tiers (the location's write handed to `waitUntil`); a key not found is not kept, so a key
 * created a moment ago is found on its first use. A look-up that overlapped an invalidation is
 * answered, not kept.
 */
export async function cachedKeyLookUp<V>(
  keyHash: string,
  lookUp: () => Promise<V | null>,
  waitUntil: (work: Promise<unknown>) => void,
): Promise<V | null> {
  const held = instance.get(keyHash);
  if (held && Date.now() - held.readAt < KEY_CACHE_SECONDS.location * 1000) return held.value as V;
  const seen = generation;
  const shared = await location.get(keyHash).catch(() => undefined);
  if (shared) {
    if (seen === generation) instance.set(keyHash, { value: shared.value, readAt: shared.readAt });
    if (shared.stale) waitUntil(refresh(keyHash, lookUp));
    return shared.value as V;
  }
  const readAt = Date.now();
  const value = await lookUp();
  if (value !== null && seen === generation) {
    instance.set(keyHash, { value, readAt });
    waitUntil(location.put(keyHash, value, readAt).catch(() => undefined));
  }
  return value;
}

async function refresh<V>(keyHash: string, lookUp: () => Promise<V | null>): Promise<void> {
  if (refreshing.has(keyHash)) return;
  refreshing.add(keyHash);
  try {
    const seen = generation;
    const readAt = Date.now();
    const value = await lookUp();
    if (seen !== generation) return;
    if (value === null) {
      instance.delete(keyHash);
      await location.delete(keyHash);
    } else {
      instance.set(keyHash, { value, readAt });
      await location.put(keyHash, value, readAt);
    }
  } catch (err) {
    console.error('api key look-up: refresh failed', err);
  } finally {
    refreshing.delete(keyHash);
  }
}
