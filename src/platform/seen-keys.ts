import { Lru } from './lru';

/**
 * Keys this instance has seen held (a workspace's `external_reference` of an order, say), at most
 * `max`, the oldest forgotten first. A create sent along with its reads (see `RowGuard`) is
 * skipped for a key seen held, since its guard would fail and its statements would run for
 * nothing. Only a hint: a key that stopped being held costs a round trip, never a wrong write.
 */
export function seenKeys(max = 10_000) {
  const keys = new Lru<true>(max);
  const key = (workspaceId: string, value: string) => `${workspaceId} ${value}`;
  return {
    has: (workspaceId: string, value: string) => keys.get(key(workspaceId, value)) === true,
    add: (workspaceId: string, value: string | null | undefined) => {
      if (value !== null && value !== undefined) keys.set(key(workspaceId, value), true);
    },
  };
}
