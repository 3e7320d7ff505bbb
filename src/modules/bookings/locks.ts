import type { Bindings } from '../../env';
import { BookingErrors } from './errors';

export type HostClaim = { host: string; start: number; end: number };

/**
 * How a service holds slot locks: the SlotLock Durable Objects in production and tests. `guarded`: the
 * holder's write is guarded on what it read, so its leases need not survive an eviction of the object.
 */
export type SlotLocks = { hold<T>(workspaceId: string, claims: HostClaim[], work: () => Promise<T>, opts?: { guarded?: boolean }): Promise<T> };

/** A lease outlives any write it guards by far; a crashed holder blocks its range this long at most. */
export const LEASE_MS = 15_000;
/** How long a claim waits for overlapping claims to finish before it gives up with SLOT_TAKEN. */
const WAIT_MS = 8_000;

/**
 * Claims each host's range on that host's SlotLock instance (keyed by
 * workspace and host, taken in host order), runs `work`, and releases every
 * claim, also when `work` fails. A claim that overlaps another holder waits
 * in the object for its release, up to `WAIT_MS`. Given the request's
 * context, the answer does not wait for the release (kept alive by `waitUntil`): once
 * `work` is over its write has committed or failed, so a claim waiting on the
 * range sees the outcome whenever the release lands (a lost release ends with
 * the lease).
 */
export function durableSlotLocks(env: Pick<Bindings, 'SLOT_LOCK'>, request?: Pick<ExecutionContext, 'waitUntil'>): SlotLocks {
  return {
    async hold(workspaceId, claims, work, opts = {}) {
      const held: { stub: DurableObjectStub<import('../../durable-objects/slot-lock').SlotLock>; token: string }[] = [];
      const sorted = [...claims].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
      try {
        for (const claim of sorted) {
          const stub = env.SLOT_LOCK.get(env.SLOT_LOCK.idFromName(`${workspaceId}:${claim.host}`));
          // The object holds the claim until the range is free (or the wait is over).
          const result = await stub.claim([{ start: claim.start, end: claim.end }], LEASE_MS, WAIT_MS, !opts.guarded);
          if (!result.ok) throw BookingErrors.slotTaken.requested();
          held.push({ stub, token: result.token });
        }
        return await work();
      } finally {
        const released = Promise.all(held.map((h) => h.stub.release(h.token).catch(() => undefined)));
        if (request) request.waitUntil(released);
        else await released;
      }
    },
  };
}
