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
 * One instance per (workspace, email idempotency key). Calls to an instance
 * run one at a time, so of any number of concurrent claims exactly one gets
 * the key; the others see `processing` (a live lease) or the finished answer.
 * A holder that crashes leaves a lease that expires: the next claim after it
 * takes over (`recovered`). Release and completion need the holder's token,
 * so a holder whose lease was taken over cannot undo its successor's work.
 * The state lives in the object's SQLite storage and survives eviction.
 */
export class IdempotencyClaims extends DurableObject {
  claim(leaseMs: number): ClaimResult {
    const kv = this.ctx.storage.kv;
    const now = Date.now();
    const current = kv.get<Claim>('claim');
    if (current?.state === 'done') return { state: 'done', response: current.response, bookmark: current.bookmark ?? null };
    if (current?.state === 'processing' && current.leaseUntil > now) return { state: 'processing' };
    const token = crypto.randomUUID();
    kv.put('claim', { state: 'processing', token, leaseUntil: now + leaseMs } satisfies Claim);
    return { state: 'claimed', token, recovered: current?.state === 'processing' };
  }

  /** Gives the key back (a validation failure or pre-send error): the next claim starts afresh. */
  release(token: string): boolean {
    const kv = this.ctx.storage.kv;
    const current = kv.get<Claim>('claim');
    if (current?.state !== 'processing' || current.token !== token) return false;
    kv.delete('claim');
    return true;
  }

  /** Records the finished answer, and the D1 bookmark its write produced; later claims replay both. */
  complete(token: string, response: StoredSend, bookmark: string | null = null): boolean {
    const kv = this.ctx.storage.kv;
    const current = kv.get<Claim>('claim');
    if (current?.state !== 'processing' || current.token !== token) return false;
    kv.put('claim', { state: 'done', response, bookmark } satisfies Claim);
    return true;
  }
}
