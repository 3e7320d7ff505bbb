import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { nowIso } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { idempotencyKeys } from './schema';

/** How long a claim holds its key: past it, a request that died mid-way no longer blocks the key. */
const LEASE_MS = 120_000;

export type KeyRow = typeof idempotencyKeys.$inferSelect;
export type Claim = { owned: true; claim: string } | { owned: false; row: KeyRow };

/**
 * Claims `key` for a request, or finds who holds it: one round trip. The insert wins a new key;
 * a claim whose lease lapsed is taken over; any other row is left as it is and read back.
 */
export async function claimKey(db: Db, workspaceId: string, key: string, fingerprint: string): Promise<Claim> {
  const now = new Date();
  const claim = uuidv7(now.getTime());
  const createdAt = now.toISOString();
  const leaseUntil = new Date(now.getTime() + LEASE_MS).toISOString();
  const [, [row]] = await db.batch([
    db
      .insert(idempotencyKeys)
      .values({ workspaceId, key, fingerprint, state: 'executing', claim, leaseUntil, createdAt })
      .onConflictDoUpdate({
        target: [idempotencyKeys.workspaceId, idempotencyKeys.key],
        set: { fingerprint, claim, leaseUntil, createdAt },
        setWhere: sql`${idempotencyKeys.state} = 'executing' AND ${idempotencyKeys.leaseUntil} < ${createdAt}`,
      }),
    db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.workspaceId, workspaceId), eq(idempotencyKeys.key, key))),
  ]);
  return row.claim === claim ? { owned: true, claim } : { owned: false, row };
}

const ownClaim = (workspaceId: string, key: string, claim: string) =>
  and(eq(idempotencyKeys.workspaceId, workspaceId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.claim, claim));

/** Stores the answer a claim's request gave: from now on the key replays it. */
export async function storeAnswer(
  db: Db,
  workspaceId: string,
  key: string,
  claim: string,
  answer: { status: number; body: string; type: string | null },
) {
  await db
    .update(idempotencyKeys)
    .set({ state: 'done', responseStatus: answer.status, responseBody: answer.body, responseType: answer.type, leaseUntil: nowIso() })
    .where(ownClaim(workspaceId, key, claim));
}

/** Gives the key back (an answer that is not kept): the next request with it executes. */
export async function releaseKey(db: Db, workspaceId: string, key: string, claim: string) {
  await db.delete(idempotencyKeys).where(ownClaim(workspaceId, key, claim));
}
