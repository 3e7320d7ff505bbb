import { and, eq, sql } from 'drizzle-orm';
import type { Db, Statement } from '../d1/db';
import { rawRun } from '../d1/raw-query';
import type { ChannelRows } from './channel';
import { leaseFrom } from './lease';

export const loadCampaign = (ch: ChannelRows, db: Db, workspaceId: string, id: string) =>
  db
    .select()
    .from(ch.campaigns)
    .where(and(eq(ch.campaigns.workspaceId, workspaceId), eq(ch.campaigns.id, id)))
    .limit(1);

/**
 * Adds to a campaign counter the rows the batch's previous statement changed
 * (SQLite `changes()`: the guarded insert or update just before it in the same
 * transaction), so a redelivered message that changes nothing adds nothing.
 */
export const countChanged = (ch: ChannelRows, db: Db, campaignId: string, column: 'targeted' | 'sent' | 'failed') =>
  rawRun(db, sql`UPDATE ${ch.campaigns} SET ${sql.raw(column)} = ${sql.raw(column)} + changes() WHERE id = ${campaignId}`);

/**
 * The end state once every page was written and no recipient is queued or sending (the
 * recipients' index of open rows answers that): the channel's `ended`, stamped in its `endedAt`.
 * A batch of the fan-out renews the campaign's lease with it (`renew`); the re-drive's does not.
 */
export function settleCampaign(ch: ChannelRows, db: Db, campaignId: string, now: string, renew = true): Statement {
  const done = sql`(targeting_done_at IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM ${ch.recipients} r WHERE r.campaign_id = ${campaignId} AND r.status IN ('queued', 'sending')))`;
  const endedAt = ch.endedAt && sql.identifier(ch.endedAt.name);
  return rawRun(
    db,
    sql`UPDATE ${ch.campaigns} SET status = CASE WHEN ${done} THEN ${ch.ended} ELSE status END,
      ${endedAt ? sql`${endedAt} = CASE WHEN ${done} THEN ${now} ELSE ${endedAt} END, ` : sql``}updated_at = ${now},
      lease_until = ${renew ? leaseFrom(now) : sql`lease_until`}
      WHERE id = ${campaignId} AND status = ${ch.running}`,
  );
}

/** The counters recounted from the recipient rows (the re-drive's, after it settled lost sends without counting them), then the end state. */
export function recountCampaign(ch: ChannelRows, db: Db, campaignId: string, now: string): Statement[] {
  const count = (status?: string) =>
    sql`(SELECT count(*) FROM ${ch.recipients} r WHERE r.campaign_id = ${campaignId}${status ? sql` AND r.status = ${status}` : sql``})`;
  return [
    rawRun(
      db,
      sql`UPDATE ${ch.campaigns} SET targeted = ${count()}, sent = ${count('sent')}, failed = ${count('failed')}
        WHERE id = ${campaignId} AND status = ${ch.running}`,
    ),
    settleCampaign(ch, db, campaignId, now, false),
  ];
}

/** Renews a running campaign's lease: a statement for a batch a chunk writes anyway. */
export const renewLease = (ch: ChannelRows, db: Db, campaignId: string, now: string) =>
  rawRun(db, sql`UPDATE ${ch.campaigns} SET lease_until = ${leaseFrom(now)} WHERE id = ${campaignId} AND status = ${ch.running}`);

/** Marks the campaign's last page targeted: it can end once no recipient is queued or sending. */
export const targetingDone = (ch: ChannelRows, db: Db, campaignId: string, now: string) =>
  rawRun(db, sql`UPDATE ${ch.campaigns} SET targeting_done_at = ${now} WHERE id = ${campaignId}`);
