import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { Db } from '../../platform/d1/db';
import { bookmarkOf, wroteFor } from '../../platform/d1/floors';
import { declaredIndex } from '../../platform/d1/indexes';
import { settledHere, workspaceIdOf } from '../../platform/d1/workspace-moves/settled';
import { inJsonList } from '../../platform/d1/bound-parameters';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { eventOutbox } from '../../platform/schema';
import { TEST_EVENT_TYPE } from './delivery-log';
import { DELIVERY_KIND, type DeliveryMessage, type Envelope, sendMessages } from './publisher';
import { webhookDeliveries } from './schema';

/**
 * How long past its due time a delivery nobody holds waits before the sweep sends its message again:
 * until then its own message (the fan-out's, a retry the queue holds) is expected. With the sweep
 * every minute, a delivery whose message was lost is attempted again within two minutes of its time.
 */
export const REDRIVE_GRACE_MS = 30_000;
/**
 * How long a re-sent delivery is left to its new message: meanwhile no sweep sends it again. The mark
 * is a hold by no one (`held_until` alone), which stops sweeps and no consumer: whichever of its
 * messages comes first (the new one, or the old one if it was late rather than lost) takes the
 * delivery, and the other finds it held, finished or not yet due. When it ends unused (the new message
 * was lost too, in a crash), the next sweep sends another: a minute, like every other lease, so a
 * delivery is back within two minutes of each crash. A queue slower than that costs a message, never
 * an attempt: the consumer's claim is the one that attempts.
 */
export const REDRIVE_HOLD_MS = 60_000;
/** Deliveries one pass re-sends (one queue call), and passes per sweep run. */
const PASS = 100;
const PASSES = 5;

const DUE_INDEX = declaredIndex(webhookDeliveries, 'webhook_deliveries_due');

type Taken = { id: string; workspace_id: string; event_id: string; event_type: string; endpoint_id: string; created_at: string };

/**
 * Re-sends the message of every delivery still to make (`pending`, `retrying`) on the shard that is
 * due since `REDRIVE_GRACE_MS`, held by no one (no consumer attempting it, no re-sent message
 * pending), whose endpoint is active and whose workspace is settled here, `PASS` at a time (at most
 * `PASSES` passes). Each pass marks its deliveries re-sent in one statement, which takes only
 * deliveries still unheld, so two sweeps running together, or one after the other while the re-sent
 * message is still queued, send one message per delivery. A delivery whose event is no longer kept
 * (30 days) cannot be sent again and is dead-lettered.
 */
export async function redriveDeliveries(
  env: Bindings,
  db: Db,
  now = Date.now(),
): Promise<{ deliveries_redriven: number; deliveries_dead_lettered: number }> {
  let redriven = 0;
  let deadLettered = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    const done = await redrivePass(env, db, now);
    redriven += done.redriven;
    deadLettered += done.deadLettered;
    if (done.taken < PASS) break;
  }
  return { deliveries_redriven: redriven, deliveries_dead_lettered: deadLettered };
}

async function redrivePass(env: Bindings, db: Db, now: number) {
  const at = new Date(now).toISOString();
  const until = new Date(now + REDRIVE_HOLD_MS).toISOString();
  const taken = await rawAll<Taken>(
    db,
    sql`UPDATE webhook_deliveries SET held_until = ${until}, held_by = NULL
      WHERE id IN (SELECT d.id FROM webhook_deliveries d INDEXED BY ${sql.raw(DUE_INDEX)}
          WHERE d.state IN ('pending', 'retrying') AND coalesce(d.next_attempt_at, d.updated_at) <= ${new Date(now - REDRIVE_GRACE_MS).toISOString()}
            AND (d.held_until IS NULL OR d.held_until <= ${at}) AND ${settledHere(workspaceIdOf('d'))}
            AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = d.endpoint_id AND e.workspace_id = d.workspace_id AND e.is_active = 1)
          ORDER BY coalesce(d.next_attempt_at, d.updated_at) LIMIT ${PASS})
        AND state IN ('pending', 'retrying') AND (held_until IS NULL OR held_until <= ${at})
      RETURNING id, workspace_id, event_id, event_type, endpoint_id, created_at`,
  );
  if (taken.length === 0) return { taken: 0, redriven: 0, deadLettered: 0 };
  const stored = taken.filter((t) => t.event_type !== TEST_EVENT_TYPE);
  const events = stored.length
    ? await db
        .select()
        .from(eventOutbox)
        .where(
          inJsonList(
            eventOutbox.id,
            stored.map((t) => t.event_id),
          ),
        )
    : [];
  const eventOf = new Map(events.map((e) => [e.id, e]));
  const envelopeOf = (t: Taken): Envelope | null => {
    if (t.event_type === TEST_EVENT_TYPE)
      return { id: t.event_id, type: TEST_EVENT_TYPE, created_at: t.created_at, data: { endpoint_id: t.endpoint_id } };
    const event = eventOf.get(t.event_id);
    return event && event.workspaceId === t.workspace_id ? { id: event.id, type: event.type, created_at: event.createdAt, data: event.data } : null;
  };
  // What read the events has seen their writes: its bookmark is at least theirs.
  const bookmark = bookmarkOf(db);
  const messages: DeliveryMessage[] = [];
  const gone: string[] = [];
  for (const t of taken) {
    const event = envelopeOf(t);
    if (!event) gone.push(t.id);
    else
      messages.push({
        kind: DELIVERY_KIND,
        workspace_id: t.workspace_id,
        endpoint_id: t.endpoint_id,
        event,
        ...(bookmark ? { bookmark } : {}),
      });
  }
  if (gone.length)
    await rawRun(
      db,
      sql`UPDATE webhook_deliveries SET state = 'dead', last_error = 'event no longer kept: not sent again', next_attempt_at = NULL,
          held_until = NULL, held_by = NULL, updated_at = ${at}
        WHERE ${inJsonList(sql`id`, gone)} AND held_by IS NULL AND held_until = ${until} AND state IN ('pending', 'retrying')`,
    );
  await sendMessages(env, messages);
  wroteFor(
    db,
    taken.map((t) => t.workspace_id),
  );
  return { taken: taken.length, redriven: messages.length, deadLettered: gone.length };
}
