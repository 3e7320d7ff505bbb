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

type ClaimRow = { token: string | null; lease_until: number; claims: number; response: string | null; bookmark: string | null };

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
 * An instance serves many keys, so a new key costs a row in a live object,
 * not the creation of an object of its own; each method is one statement
 * (a storage operation was most of a claim's cost).
 */
export class IdempotencyClaims extends DurableObject {
  private ready = false;

  /** `response` is null while the key is claimed; `claims` counts its holders so far (more than one: a lease was taken over). */
  private table() {
    if (this.ready) return this.ctx.storage.sql;
    this.ctx.storage.sql.exec(
      'CREATE TABLE IF NOT EXISTS claims (key TEXT PRIMARY KEY, token TEXT, lease_until INTEGER NOT NULL, claims INTEGER NOT NULL, response TEXT, bookmark TEXT) WITHOUT ROWID',
    );
    this.ready = true;
    return this.ctx.storage.sql;
  }

  claim(key: string, leaseMs: number): ClaimResult {
    const sql = this.table();
    const now = Date.now();
    const token = crypto.randomUUID();
    // Taken when the key is new, or when its holder's lease ran out before it finished.
    const [taken] = sql
      .exec<Pick<ClaimRow, 'claims'>>(
        `INSERT INTO claims (key, token, lease_until, claims) VALUES (?1, ?2, ?3, 1)
          ON CONFLICT (key) DO UPDATE SET token = ?2, lease_until = ?3, claims = claims + 1 WHERE response IS NULL AND lease_until <= ?4
          RETURNING claims`,
        key,
        token,
        now + leaseMs,
        now,
      )
      .toArray();
    if (taken) return { state: 'claimed', token, recovered: taken.claims > 1 };
    const [current] = sql.exec<Pick<ClaimRow, 'response' | 'bookmark'>>('SELECT response, bookmark FROM claims WHERE key = ?', key).toArray();
    if (current.response === null) return { state: 'processing' };
    return { state: 'done', response: JSON.parse(current.response) as StoredSend, bookmark: current.bookmark };
  }

  /** Gives the key back (a validation failure or pre-send error): the next claim starts afresh. */
  release(key: string, token: string): boolean {
    return this.table().exec('DELETE FROM claims WHERE key = ? AND token = ? AND response IS NULL', key, token).rowsWritten > 0;
  }

  /** Records the finished answer, and the D1 bookmark its write produced; later claims replay both. */
  complete(key: string, token: string, response: StoredSend, bookmark: string | null = null): boolean {
    return (
      this.table().exec(
        'UPDATE claims SET response = ?, bookmark = ?, token = NULL WHERE key = ? AND token = ? AND response IS NULL',
        JSON.stringify(response),
        bookmark,
        key,
        token,
      ).rowsWritten > 0
    );
  }
}

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
