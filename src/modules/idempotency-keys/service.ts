import { and, eq, sql } from 'drizzle-orm';
import type { Carried } from '../../platform/d1/carried';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import type { Db } from '../../platform/d1/db';
import { guarded, nowIso, runBatch } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { SharedErrors } from '../../platform/shared-errors';
import { idempotencyKeys } from './schema';

/** How long a claim holds its key: past it, a request that died before committing anything no longer blocks the key. */
const LEASE_MS = 120_000;

export type KeyRow = typeof idempotencyKeys.$inferSelect;
/** `lapsed`: the row's lease had run out when it was read (a `committed` one: its request died after its effect). */
export type Claim = { owned: true; claim: string } | { owned: false; row: KeyRow; lapsed: boolean };

/**
 * Claims `key` for a request, or finds who holds it: one round trip. The insert wins a new key;
 * a claim still `executing` whose lease lapsed is taken over (its request committed nothing, so
 * running it is right); any other row (`committed`, `done`, or a live claim) is left as it is and
 * read back.
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
  return row.claim === claim ? { owned: true, claim } : { owned: false, row, lapsed: row.leaseUntil < createdAt };
}

const ownClaim = (workspaceId: string, key: string, claim: string) =>
  and(eq(idempotencyKeys.workspaceId, workspaceId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.claim, claim));

/**
 * The recovery point, carried by every write of the claim's request (`carryingEveryWrite`): the
 * batch that commits the request's effect moves its key from `executing` to `committed` with it,
 * so a takeover can never find the effect without the key saying so. It is guarded on the claim
 * still being this request's: a request whose claim was taken over (it outlived its lease before
 * writing) fails that batch whole (`state` set to NULL), so a slow original and its takeover never
 * both commit; the failure answers 409 `IDEMPOTENCY_KEY_IN_USE` (the takeover's answer is the
 * key's). A key already `committed` or `done` by this claim keeps its state.
 */
export function recoveryPoint(db: Db, workspaceId: string, key: string, claim: string): Carried {
  const state = guarded(
    sql`${idempotencyKeys.claim} = ${claim}`,
    sql`CASE WHEN ${idempotencyKeys.state} = 'executing' THEN 'committed' ELSE ${idempotencyKeys.state} END`,
  );
  const query = db
    .update(idempotencyKeys)
    .set({ state: state as never })
    .where(and(eq(idempotencyKeys.workspaceId, workspaceId), eq(idempotencyKeys.key, key)))
    .toSQL();
  return { query, refused: (err) => (failedOn(err, guardOf(idempotencyKeys.state)) ? SharedErrors.idempotencyKeyInUse() : null) };
}

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

/**
 * Gives the key back (an answer that is not kept): the next request with it executes. With
 * `committed` kept (the request failed unexpectedly), a key its request already committed stays at
 * its recovery point instead, its lease ended (set back to when it was claimed), so the next request with it answers 409
 * `IDEMPOTENCY_KEY_ANSWER_LOST` at once rather than running again; one that committed nothing goes.
 */
export async function releaseKey(db: Db, workspaceId: string, key: string, claim: string, keep: { committed: boolean }) {
  const own = ownClaim(workspaceId, key, claim);
  if (!keep.committed) {
    await db.delete(idempotencyKeys).where(own);
    return;
  }
  await runBatch(db, [
    db.delete(idempotencyKeys).where(and(own, eq(idempotencyKeys.state, 'executing'))),
    db
      .update(idempotencyKeys)
      .set({ leaseUntil: sql`${idempotencyKeys.createdAt}` })
      .where(and(own, eq(idempotencyKeys.state, 'committed'))),
  ]);
}
