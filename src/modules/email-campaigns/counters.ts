import { sql } from 'drizzle-orm';
import { nowIso, type Db, type Statement } from '../../platform/d1/db';
import { rawRun } from '../../platform/d1/raw-query';
import type { FactCounter } from '../emails';

const COLUMN = { delivered: 'delivered', opened: 'opened', clicked: 'clicked', bounced: 'bounced', complained: 'complained' } as const;

/** A provider fact about a campaign email (the send's `metadata.campaign_id`) counts once on its campaign. */
export const countCampaignFact: FactCounter = (db, send, fact) => {
  const campaignId = (send.metadata as { campaign_id?: unknown } | null)?.campaign_id;
  if (typeof campaignId !== 'string') return null;
  const column = sql.raw(COLUMN[fact.type]);
  return rawRun(
    db,
    sql`UPDATE email_campaigns SET ${column} = ${column} + 1, updated_at = ${nowIso()} WHERE workspace_id = ${send.workspace_id} AND id = ${campaignId}`,
  );
};

/** Counts an unsubscribe through the campaign's link. */
export const countUnsubscribe = (db: Db, workspaceId: string, campaignId: string): Statement =>
  rawRun(
    db,
    sql`UPDATE email_campaigns SET unsubscribed = unsubscribed + 1, updated_at = ${nowIso()} WHERE workspace_id = ${workspaceId} AND id = ${campaignId}`,
  );
