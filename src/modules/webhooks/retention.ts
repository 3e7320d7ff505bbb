import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { rawRun } from '../../platform/d1/raw-query';
import { eventOutbox } from '../../platform/schema';
import { settledHere } from '../../platform/d1/workspace-moves/settled';
import { EVENT_RETENTION_DAYS } from './events-api';
import { webhookDeliveries } from './schema';

/** Rows forgotten per table and pass: a backlog never makes one long statement. */
const PASS = 2_000;

/**
 * Forgets events and finished deliveries older than the retention (30 days): events already
 * handed to the queue, deliveries no longer pending or retrying. Each by its creation-time index.
 */
export async function forgetOldEvents(_env: unknown, db: Db) {
  const cutoff = new Date(Date.now() - EVENT_RETENTION_DAYS * 86_400_000).toISOString();
  const [events, deliveries] = await db.batch([
    rawRun(
      db,
      sql`DELETE FROM ${eventOutbox} WHERE rowid IN (SELECT rowid FROM ${eventOutbox} WHERE created_at < ${cutoff} AND enqueued_at IS NOT NULL AND ${settledHere(eventOutbox.workspaceId)} LIMIT ${PASS})`,
    ),
    rawRun(
      db,
      sql`DELETE FROM webhook_deliveries WHERE rowid IN (SELECT rowid FROM webhook_deliveries INDEXED BY webhook_deliveries_created WHERE created_at < ${cutoff} AND state NOT IN ('pending', 'retrying') AND ${settledHere(webhookDeliveries.workspaceId)} LIMIT ${PASS})`,
    ),
  ]);
  return { events_forgotten: events.meta.changes, deliveries_forgotten: deliveries.meta.changes };
}
