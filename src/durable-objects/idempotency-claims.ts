import { DurableObject } from 'cloudflare:workers';

/** The answer a finished send gave, replayed verbatim for the same key. */
export type StoredSend = Record<string, unknown>;

export type ClaimResult =
  /** This caller holds the key now. `recovered`: an earlier holder's lease ran out (it crashed). */
  | { state: 'claimed'; token: string; recovered: boolean }
  /** Another caller holds a live lease. */
  | { state: 'processing' }
  /** The key finished: replay this; `bookmark` is where the data stood when it was recorded (null if unknown). */
  | { state: 'done'; response: StoredSend; bookmark: string | null };

type Claim = { state: 'processing'; token: string; leaseUntil: number } | { state: 'done'; response: StoredSend; bookmark?: string | null };

/**
 * The claims of one workspace's email idempotency keys, spread over a fixed
 * number of instances by a hash of the key (`claimInstanceName`). Calls to an
 * instance run one at a time and every method below completes without
 * awaiting, so of any number of concurrent claims on one key exactly one gets
 * it; the others see `processing` (a live lease) or the finished answer. A
 * holder that crashes leaves a lease that expires: the next claim after it
 * takes over (`recovered`). Release and completion need the holder's token,
 * so a holder whose lease was taken over cannot undo its successor's work.
 * The state lives in the object's SQLite storage and survives eviction.
 *
 * An instance serves many keys, so a new key costs a storage write in a live
 * object, not the creation of an object of its own.
 */
export class IdempotencyClaims extends DurableObject {
  claim(key: string, leaseMs: number): ClaimResult {
    const kv = this.ctx.storage.kv;
    const now = Date.now();
    const current = kv.get<Claim>(storageKey(key));
    if (current?.state === 'done') return { state: 'done', response: current.response, bookmark: current.bookmark ?? null };
    if (current?.state === 'processing' && current.leaseUntil > now) return { state: 'processing' };
    const token = crypto.randomUUID();
    kv.put(storageKey(key), { state: 'processing', token, leaseUntil: now + leaseMs } satisfies Claim);
    return { state: 'claimed', token, recovered: current?.state === 'processing' };
  }

  /** Gives the key back (a validation failure or pre-send error): the next claim starts afresh. */
  release(key: string, token: string): boolean {
    const kv = this.ctx.storage.kv;
    const current = kv.get<Claim>(storageKey(key));
    if (current?.state !== 'processing' || current.token !== token) return false;
    kv.delete(storageKey(key));
    return true;
  }

  /** Records the finished answer, and the D1 bookmark its write produced; later claims replay both. */
  complete(key: string, token: string, response: StoredSend, bookmark: string | null = null): boolean {
    const kv = this.ctx.storage.kv;
    const current = kv.get<Claim>(storageKey(key));
    if (current?.state !== 'processing' || current.token !== token) return false;
    kv.put(storageKey(key), { state: 'done', response, bookmark } satisfies Claim);
    return true;
  }
}

/** Where an instance stores a key's claim. */
export const storageKey = (key: string) => `claim:${key}`;

/**
 * How many instances hold one workspace's claims. Part of where claims are
 * stored: changing it moves keys to other instances, where a claim starts
 * afresh and the send row D1 holds for the key answers it instead.
 */
export const CLAIM_INSTANCES = 16;

/** The instance holding a key's claim: FNV-1a over the key's UTF-16 code units, modulo `CLAIM_INSTANCES`. */
export function claimInstanceName(workspaceId: string, key: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return `${workspaceId}:claims:${(hash >>> 0) % CLAIM_INSTANCES}`;
}
