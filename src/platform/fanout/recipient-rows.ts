import { sql } from 'drizzle-orm';
import type { Db } from '../d1/db';
import { rawAll, rawRun } from '../d1/raw-query';
import type { ChannelRows, ClaimedRecipient, RecipientOutcome } from './channel';

/**
 * Recipients still queued. SQLite uses a partial index (email's of open recipients) only for a
 * query that states its condition, hence the `IN` term; a plain index on status answers it too.
 */
export const QUEUED = sql`status IN ('queued', 'sending') AND status = 'queued'`;

/** The page's contacts as `queued` recipients, with the channel's own columns; the primary key ignores rows a redelivered page already wrote. */
export function targetRecipients(ch: ChannelRows, db: Db, campaignId: string, workspaceId: string, contactIds: string[], now: string) {
  const rows = contactIds.map((id) => ({
    c: id,
    ...Object.fromEntries(ch.recipientColumns.map(({ column, value }) => [column.name, value(workspaceId)])),
  }));
  const names = ch.recipientColumns.map(({ column }) => sql`, ${sql.identifier(column.name)}`);
  const values = ch.recipientColumns.map(({ column }) => sql`, value ->> ${column.name}`);
  return rawRun(
    db,
    sql`INSERT INTO ${ch.recipients} (campaign_id, contact_id, workspace_id, status${sql.join(names)}, created_at, updated_at)
      SELECT ${campaignId}, value ->> 'c', ${workspaceId}, 'queued'${sql.join(values)}, ${now}, ${now} FROM json_each(${JSON.stringify(rows)}) WHERE 1
      ON CONFLICT DO NOTHING`,
  );
}

/**
 * Claims a chunk's recipients `queued` -> `sending` while the campaign runs: a guarded update, so a
 * redelivered or duplicated message claims, and so sends, nobody twice.
 */
export function claimRecipients(ch: ChannelRows, db: Db, campaignId: string, contactIds: string[], now: string) {
  const own = ch.recipientColumns.map(({ column }) => sql`, ${sql.identifier(column.name)}`);
  return rawAll<ClaimedRecipient>(
    db,
    sql`UPDATE ${ch.recipients} SET status = 'sending', updated_at = ${now}
      WHERE campaign_id = ${campaignId} AND status = 'queued' AND contact_id IN (SELECT value FROM json_each(${JSON.stringify(contactIds)}))
        AND EXISTS (SELECT 1 FROM ${ch.campaigns} w WHERE w.id = ${campaignId} AND w.status = ${ch.running})
      RETURNING contact_id${sql.join(own)}`,
  );
}

/**
 * Settles claimed recipients as `status`, only those still `sending`. The list, materialized,
 * drives the update by primary key: joined to json_each directly, the planner walked every
 * recipient row of the campaign and matched each against it.
 */
export function settleRecipients(ch: ChannelRows, db: Db, campaignId: string, status: 'sent' | 'failed', outcomes: RecipientOutcome[], now: string) {
  const rows = outcomes.map((o) => ({ c: o.contactId, r: o.ref, e: o.error }));
  return rawRun(
    db,
    sql`WITH settled AS MATERIALIZED (SELECT value ->> 'c' AS c, value ->> 'r' AS r, value ->> 'e' AS e FROM json_each(${JSON.stringify(rows)}))
      UPDATE ${ch.recipients} SET status = ${status}, ${sql.identifier(ch.sentRef.name)} = settled.r, error = settled.e, updated_at = ${now}
      FROM settled WHERE ${ch.recipients}.campaign_id = ${campaignId} AND ${ch.recipients}.contact_id = settled.c
        AND ${ch.recipients}.status = 'sending'`,
  );
}

/** Up to `limit` of the campaign's still-queued recipients. */
export const queuedRecipients = (ch: ChannelRows, db: Db, campaignId: string, limit: number) =>
  rawAll<{ contact_id: string }>(db, sql`SELECT contact_id FROM ${ch.recipients} WHERE campaign_id = ${campaignId} AND ${QUEUED} LIMIT ${limit}`);

/** Recipients a worker claimed before `before` and never settled: `failed` with the channel's `givenUp`, never resent. */
export const giveUpSending = (ch: ChannelRows, db: Db, campaignId: string, before: string, now: string) =>
  rawRun(
    db,
    sql`UPDATE ${ch.recipients} SET status = 'failed', error = ${ch.givenUp}, updated_at = ${now}
      WHERE campaign_id = ${campaignId} AND status = 'sending' AND updated_at < ${before}`,
  );
