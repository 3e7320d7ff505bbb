import { sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { nowIso, runBatch, type Db, type Statement } from '../d1/db';
import type { ReadSpec } from '../d1/operation';
import { rawAll } from '../d1/raw-query';
import { workspaceDb } from '../d1/shards';
import { countChanged, loadCampaign, settleCampaign, targetingDone } from './campaign-row';
import type { Channel, ChannelRows, Cursor, FanoutCampaign, Link, PageMessage } from './channel';
import { sendChunk } from './chunk';
import { leaseFrom } from './lease';
import { queuedRecipients, targetRecipients } from './recipient-rows';

/** Recipients a page hands to the channel at once, per chunk. */
export const SEND_CHUNK = 50;

type Page<P extends PageMessage> = { ids: string[]; next: P | null };

/**
 * One step of a campaign's fan-out, and the only message the campaign keeps on the send queue: a
 * page's recipients are handed to the provider before the next page is enqueued, so however large
 * the campaign, it holds one message in the queue at a time, and a send launched later (any
 * workspace's) waits behind at most one message per send in progress instead of behind a backlog.
 * A page runs only in the campaign's drive (`heldDrive`): after a re-drive, the older chain's next
 * page stops, so one chain of pages carries the campaign on.
 * A targeting page writes the next `pageSize` eligible contacts after its cursor (keyset on
 * creation time and id, so no invocation holds the whole audience and every page costs the same)
 * as (campaign, contact) rows, the targeted counter growing by the rows written; the last one marks
 * targeting done. A drain page (the re-drive of a campaign) takes up to `pageSize` recipients still
 * queued. Either way the page's chunks are sent at once, each claimed before it goes out, so a page
 * the queue retries sends nobody twice; one that keeps failing leaves its campaign to the re-drive.
 */
export async function handlePage<Row extends FanoutCampaign, P extends PageMessage, Context, Reads extends ReadSpec>(
  ch: Channel<Row, P, Context, Reads>,
  env: Bindings,
  body: P,
): Promise<void> {
  // Less its own place in the walk, the message is what the page hands its chunks and the next page (a channel's pages carry more).
  const { kind: _kind, after, after_created_at, drain, drive: chain = 0, ...link } = body;
  const db = await workspaceDb(env, link.workspace_id);
  if (!db) return;
  const [campaign] = (await loadCampaign(ch, db, link.workspace_id, link.campaign_id)) as Row[];
  if (campaign?.status !== ch.running) return;
  const drive = await heldDrive(ch, db, campaign, chain);
  if (drive === null) return;
  const cursor = after === null ? null : { id: after, createdAt: after_created_at ?? null };
  const { ids, next } = drain ? await queuedPage(ch, db, link, campaign, drive) : await targetPage(ch, env, db, link, campaign, cursor, drive);
  await sendPage(ch, env, link, ids);
  if (next) await env.SEND_QUEUE.send(next);
}

/**
 * The drive a page runs in: its own while it is the campaign's. A page of another drive runs only
 * when the campaign's lease lapsed (nothing moved it for `LEASE_MS`, ./lease.ts: its chain died, or
 * this page waited that long in the queue): it takes the campaign over with a guarded update (of
 * two pages racing, one wins) and carries it on in the next drive. Otherwise (another chain holds
 * the campaign) null, and the page stops.
 */
async function heldDrive(ch: ChannelRows, db: Db, campaign: FanoutCampaign, drive: number): Promise<number | null> {
  if (campaign.drive === drive) return drive;
  const now = nowIso();
  if (campaign.leaseUntil !== null && campaign.leaseUntil >= now) return null;
  const [taken] = await rawAll<{ drive: number }>(
    db,
    sql`UPDATE ${ch.campaigns} SET drive = drive + 1, lease_until = ${leaseFrom(now)}
      WHERE id = ${campaign.id} AND status = ${ch.running} AND drive = ${campaign.drive} AND (lease_until IS NULL OR lease_until < ${now})
      RETURNING drive`,
  );
  return taken?.drive ?? null;
}

/** A page message of the campaign's, in `drive`. */
const pageOf = <P extends PageMessage>(kind: P['kind'], link: Link<P>, fields: Partial<PageMessage>, drive: number) =>
  ({ kind, ...link, after: null, ...fields, drive }) as unknown as P;

async function targetPage<Row extends FanoutCampaign, P extends PageMessage, Context, Reads extends ReadSpec>(
  ch: Channel<Row, P, Context, Reads>,
  env: Bindings,
  db: Db,
  link: Link<P>,
  campaign: Row,
  after: Cursor | null,
  drive: number,
): Promise<Page<P>> {
  const { page, ids } = await ch.eligible(env, db, campaign, { after, limit: ch.pageSize });
  const last = page.length < ch.pageSize;
  const now = nowIso();
  const statements: Statement[] = [];
  if (ids.length)
    statements.push(targetRecipients(ch, db, campaign.id, campaign.workspaceId, ids, now), countChanged(ch, db, campaign.id, 'targeted'));
  if (last) statements.push(targetingDone(ch, db, campaign.id, now));
  statements.push(settleCampaign(ch, db, campaign.id, now));
  await runBatch(db, statements);
  const end = page[page.length - 1];
  return { ids, next: last ? null : pageOf(ch.pageKind, link, { after: end.id, after_created_at: end.created_at }, drive) };
}

/**
 * Up to a page of the campaign's still-queued recipients. A full page is followed by another; the
 * last one by targeting from the first page when targeting never finished.
 */
async function queuedPage<Row extends FanoutCampaign, P extends PageMessage, Context, Reads extends ReadSpec>(
  ch: Channel<Row, P, Context, Reads>,
  db: Db,
  link: Link<P>,
  campaign: Row,
  drive: number,
): Promise<Page<P>> {
  const ids = (await queuedRecipients(ch, db, campaign.id, ch.pageSize)).map((r) => r.contact_id);
  if (ids.length === ch.pageSize) return { ids, next: pageOf(ch.pageKind, link, { drain: true }, drive) };
  return { ids, next: campaign.targetingDoneAt ? null : pageOf(ch.pageKind, link, {}, drive) };
}

/**
 * A page's chunks, all at once (as many in flight as the send queue's batches held before pages
 * sent their own); every chunk runs to its end before a failure retries the page.
 */
async function sendPage<Row extends FanoutCampaign, P extends PageMessage, Context, Reads extends ReadSpec>(
  ch: Channel<Row, P, Context, Reads>,
  env: Bindings,
  link: Link<P>,
  ids: string[],
): Promise<void> {
  const chunks: Promise<void>[] = [];
  for (let i = 0; i < ids.length; i += SEND_CHUNK) chunks.push(sendChunk(ch, env, link, ids.slice(i, i + SEND_CHUNK)));
  const failed = (await Promise.allSettled(chunks)).find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
}
