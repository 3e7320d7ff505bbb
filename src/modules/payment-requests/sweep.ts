import { and, asc, eq, lte, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { nowIso, runBatch, type Db } from '../../platform/d1/db';
import { publishCommitted } from '../../platform/outbox';
import { wroteFor } from '../../platform/d1/floors';
import { uuidv7 } from '../../platform/ids';
import { rawRun } from '../../platform/d1/raw-query';
import { eventOutbox } from '../../platform/schema';
import { paymentProvider, type PaymentProviderName } from '../../providers/payments';
import type { SweepResult } from '../../platform/manifest';
import { paymentRequestEventData } from './read';
import { paymentRequests, type PaymentRequestRow } from './schema';
import { expireCheckoutQuietly } from './status-changes';
import { settledHere } from '../../platform/d1/workspace-moves/settled';

/** Links per chunk (one read, one write batch) and chunks per shard and run: a run expires at most 2,000 links per shard. */
export const EXPIRY_CHUNK = 250;
export const EXPIRY_CHUNKS_PER_RUN = 8;

/**
 * `expire-payment-requests`: every pending link past `expires_at` becomes
 * `expired` with one `payment_request.expired`. Each chunk is one write batch:
 * a set-based UPDATE that moves only rows still pending and stamps them with
 * the chunk's claim, then the events, inserted only for rows carrying that
 * claim. A link expired meanwhile by an opener (lazy expiry), or by an
 * overlapping run, is not pending any more, so it is neither claimed nor
 * announced twice.
 */
export async function sweepExpiredPaymentRequests(env: Bindings, db: Db, opts: { chunk?: number; maxChunks?: number } = {}): Promise<SweepResult> {
  let expired = 0;
  for (let i = 0; i < (opts.maxChunks ?? EXPIRY_CHUNKS_PER_RUN); i++) {
    const now = nowIso();
    const due = await db
      .select()
      .from(paymentRequests)
      .where(and(eq(paymentRequests.status, 'pending'), lte(paymentRequests.expiresAt, now), settledHere(paymentRequests.workspaceId)))
      .orderBy(asc(paymentRequests.expiresAt), asc(paymentRequests.id))
      .limit(opts.chunk ?? EXPIRY_CHUNK);
    if (due.length === 0) break;
    const claim = uuidv7();
    const events = due.map((r) => ({
      event_id: uuidv7(),
      request_id: r.id,
      workspace_id: r.workspaceId,
      data: JSON.stringify(paymentRequestEventData({ ...r, status: 'expired', updatedAt: now })),
    }));
    const field = (name: string) => sql.raw(`json_extract(j.value, '$.${name}')`);
    const [, , claimed] = (await runBatch(db, [
      rawRun(
        db,
        sql`UPDATE payment_requests SET status = 'expired', updated_at = ${now}, sweep_claim = ${claim}
            WHERE id IN (SELECT value FROM json_each(${JSON.stringify(due.map((r) => r.id))})) AND status = 'pending' AND expires_at <= ${now}`,
      ),
      rawRun(
        db,
        sql`INSERT INTO ${eventOutbox} (id, workspace_id, type, data, created_at, enqueued_at, attempts)
            SELECT ${field('event_id')}, ${field('workspace_id')}, 'payment_request.expired', ${field('data')}, ${now}, NULL, 0
            FROM json_each(${JSON.stringify(events)}) AS j JOIN payment_requests p ON p.id = ${field('request_id')}
            WHERE p.sweep_claim = ${claim}`,
      ),
      db
        .select({ id: paymentRequests.id, provider: paymentRequests.provider, providerSessionId: paymentRequests.providerSessionId })
        .from(paymentRequests)
        .where(eq(paymentRequests.sweepClaim, claim)),
    ])) as [unknown, unknown, Pick<PaymentRequestRow, 'id' | 'provider' | 'providerSessionId'>[]];
    const claimedIds = new Set(claimed.map((r) => r.id));
    expired += claimed.length;
    const announced = events.filter((e) => claimedIds.has(e.request_id));
    wroteFor(db, new Set(announced.map((e) => e.workspace_id)));
    await publishCommitted(
      env,
      db,
      announced.map((e) => e.event_id),
    );
    // Checkouts still open at the provider can no longer be paid (best effort).
    await Promise.all(
      claimed
        .filter((r) => r.providerSessionId)
        .map((r) => expireCheckoutQuietly(paymentProvider(env, r.provider as PaymentProviderName), r.providerSessionId!)),
    );
    if (due.length < (opts.chunk ?? EXPIRY_CHUNK)) break;
  }
  return { payment_requests_expired: expired };
}
