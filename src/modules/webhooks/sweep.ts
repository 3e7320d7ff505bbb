import type { Bindings } from '../../env';
import type { Db } from '../../platform/d1/db';
import type { SweepResult } from '../../platform/manifest';
import { republishOutbox } from './publisher';
import { redriveDeliveries } from './redrive';

/**
 * `webhook-outbox`: the safety net under the queue. Outbox events that never reached it are
 * published again (`events`, `messages`), then every delivery whose message was lost (still
 * `pending` or `retrying`, due, held by no one) is sent again, once (`deliveries_redriven`).
 */
export async function sweepOutbox(env: Bindings, db: Db, now = Date.now()): Promise<SweepResult> {
  const published = await republishOutbox(env, db, now);
  return { ...published, ...(await redriveDeliveries(env, db, now)) };
}
