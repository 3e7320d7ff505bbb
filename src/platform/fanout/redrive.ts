import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { failedOn, guardOf } from '../d1/constraints';
import { guarded, nowIso, type Db } from '../d1/db';
import { wroteFor } from '../d1/floors';
import { settledHere } from '../d1/workspace-moves/settled';
import { rawAll, rawRun } from '../d1/raw-query';
import { writeThenRead } from '../d1/write-then-read';
import { recountCampaign } from './campaign-row';
import type { Channel, ChannelRows, FanoutCampaign, PageMessage } from './channel';
import { giveUpSending, QUEUED } from './recipient-rows';

/** Recipients a worker claimed (`sending`) this long ago and never settled are settled `failed` by the re-drive, never resent. */
const SENDING_GIVEN_UP_MS = 10 * 60_000;

/** Whether the campaign still has recipients to send or pages to target: read in the re-drive's batch. */
const hasWork = (ch: ChannelRows, db: Db, campaignId: string) =>
  rawAll<{ work: number }>(
    db,
    sql`SELECT (targeting_done_at IS NULL OR EXISTS (SELECT 1 FROM ${ch.recipients} r WHERE r.campaign_id = ${campaignId} AND ${QUEUED})) AS work
      FROM ${ch.campaigns} WHERE id = ${campaignId} AND status = ${ch.running}`,
  );

/**
 * Re-drives running campaigns whose lease lapsed (a lost page message, a dead worker, a message
 * waiting longer than the lease): each is taken with a guarded update of its drive (of two sweeps
 * one takes it, and its older chain's next page stops, `heldDrive`), which does not renew the lease;
 * recipients left `sending` for `SENDING_GIVEN_UP_MS` by a worker that died after the provider
 * hand-off are settled `failed` (never resent: a campaign reaches a contact at most once), the
 * counters and end state are recounted, and a campaign with work left gets one drain page in the new
 * drive: its still-queued recipients page by page, then, when targeting never finished, targeting
 * from the first page (recipient rows already written are kept). A campaign the channel has no
 * page for (`redriven`) waits. Returns the campaigns given a page.
 */
export async function redriveStaleCampaigns<Row extends FanoutCampaign, P extends PageMessage, Context>(
  ch: Channel<Row, P, Context>,
  env: Bindings,
  db: Db,
  now = nowIso(),
  limit = 20,
): Promise<number> {
  const givenUpBefore = new Date(Date.parse(now) - SENDING_GIVEN_UP_MS).toISOString();
  const { campaigns } = ch;
  const stale = (await db
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.status, ch.running), or(isNull(campaigns.leaseUntil), lt(campaigns.leaseUntil, now)), settledHere(campaigns.workspaceId)))
    .limit(limit)) as Row[];
  let redriven = 0;
  for (const c of stale) {
    const carried = ch.redriven(env, c);
    if (!carried) continue;
    let work: { work: number }[];
    try {
      ({ work } = await writeThenRead(
        db,
        [
          rawRun(
            db,
            sql`UPDATE ${campaigns} SET drive = ${guarded(
              sql`drive = ${c.drive} AND status = ${ch.running} AND (lease_until IS NULL OR lease_until < ${now})`,
              sql`drive + 1`,
            )} WHERE id = ${c.id}`,
          ),
          giveUpSending(ch, db, c.id, givenUpBefore, now),
          ...recountCampaign(ch, db, c.id, now),
        ],
        { work: hasWork(ch, db, c.id) },
      ));
    } catch (err) {
      // Another sweep took it, or its fan-out moved meanwhile.
      if (failedOn(err, guardOf(campaigns.drive))) continue;
      throw err;
    }
    if (!work[0]?.work) continue;
    redriven++;
    await env.SEND_QUEUE.send({
      kind: ch.pageKind,
      workspace_id: c.workspaceId,
      campaign_id: c.id,
      ...carried,
      after: null,
      drain: true,
      drive: c.drive + 1,
    });
  }
  wroteFor(db, new Set(stale.map((c) => c.workspaceId)));
  return redriven;
}
