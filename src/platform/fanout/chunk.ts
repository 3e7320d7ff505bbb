import type { Bindings } from '../../env';
import { nowIso, type Statement } from '../d1/db';
import { planOf, readAll, type ReadSpec } from '../d1/operation';
import { workspaceDb } from '../d1/shards';
import { countChanged, loadCampaign, renewLease, settleCampaign } from './campaign-row';
import type { Channel, FanoutCampaign, Link, PageMessage, RecipientOutcome } from './channel';
import { claimRecipients, settleRecipients } from './recipient-rows';

/**
 * One chunk of a page's recipients: claimed `queued` -> `sending` first (so a redelivered or
 * duplicated message sends nothing twice), in one batch with the campaign, the channel's reads and
 * the renewal of the campaign's lease, the channel's control-plane read alongside. The channel
 * builds and sends each claimed recipient's message and runs `settle` in the batch that records
 * the outcomes: the recipients settle `sent` or `failed`, the counters grow by exactly the rows
 * settled, and the campaign ends when nothing is left.
 */
export async function sendChunk<Row extends FanoutCampaign, P extends PageMessage, Context, Reads extends ReadSpec>(
  ch: Channel<Row, P, Context, Reads>,
  env: Bindings,
  link: Link<P>,
  contactIds: string[],
): Promise<void> {
  const db = await workspaceDb(env, link.workspace_id);
  if (!db) return;
  const now = nowIso();
  const [read, context] = await Promise.all([
    readAll(db, {
      claimed: claimRecipients(ch, db, link.campaign_id, contactIds, now),
      campaign: loadCampaign(ch, db, link.workspace_id, link.campaign_id),
      channel: planOf(ch.chunkReads(db, link, contactIds), (reads) => reads),
      lease: renewLease(ch, db, link.campaign_id, now),
    }),
    ch.chunkContext(env, link.workspace_id),
  ]);
  const { claimed } = read;
  const [campaign] = read.campaign as Row[];
  if (claimed.length === 0 || !campaign) return;
  const settleAs = (status: 'sent' | 'failed', outcomes: RecipientOutcome[], at: string) => [
    settleRecipients(ch, db, campaign.id, status, outcomes, at),
    countChanged(ch, db, campaign.id, status),
  ];
  const settle = (outcomes: RecipientOutcome[], at: string): Statement[] => [
    ...settleAs(
      'sent',
      outcomes.filter((o) => o.error === null),
      at,
    ),
    ...settleAs(
      'failed',
      outcomes.filter((o) => o.error !== null),
      at,
    ),
    settleCampaign(ch, db, campaign.id, at),
  ];
  await ch.send({ env, db, link, campaign, claimed, reads: await read.channel(), context, now, settle });
}
