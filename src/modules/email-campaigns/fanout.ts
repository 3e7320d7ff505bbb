import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { wroteFor } from '../../platform/d1/floors';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import { guarded, nowIso, runBatch, type Db, type Statement } from '../../platform/d1/db';
import { keptLinkOrigin } from '../../platform/public-base';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { workspaceDb } from '../../platform/d1/shards';
import { emailEligibleIds, emailEligiblePage, withoutPlatformListed } from '../contacts';
import { sendEmailBatch, type BulkEmail, type BulkOutcome } from '../emails';
import { newUnsubscribeToken, personalEmail } from '../content';
import { workspaceContext } from '../workspaces';
import { PAGE_KIND, type PageMessage } from './launch';
import { leaseFrom } from './lease';
import { emailCampaigns, type EmailCampaignRow } from './schema';
import { recipientNarrowing } from './service';
import { settledHere } from '../../platform/d1/moves/settled';

/** Recipients per page message, rendered and handed to the provider in chunks of `SEND_CHUNK` at once. */
export const PAGE_SIZE = 500;
export const SEND_CHUNK = 50;

/** Recipients a worker claimed (`sending`) this long ago and never settled are settled `failed` by the re-drive, never resent. */
export const SENDING_GIVEN_UP_MS = 10 * 60_000;

/**
 * Adds to a campaign counter the rows the batch's previous statement changed
 * (SQLite `changes()`: the guarded insert or update just before it in the same
 * transaction), so a redelivered message that changes nothing adds nothing.
 */
const countChanged = (db: Db, campaignId: string, column: 'targeted' | 'sent' | 'failed') =>
  rawRun(db, sql`UPDATE email_campaigns SET ${sql.raw(column)} = ${sql.raw(column)} + changes() WHERE id = ${campaignId}`);

/**
 * The end state once every page was written and no recipient is queued or
 * sending (the partial index on open recipients answers that): `sent`, or
 * `failed` when recipients were targeted and none could be handed to the provider.
 * A batch of the fan-out renews the campaign's lease with it (`renew`); the re-drive's does not.
 */
function settleCampaign(db: Db, campaignId: string, now: string, renew = true): Statement {
  return rawRun(
    db,
    sql`UPDATE email_campaigns SET updated_at = ${now}, lease_until = ${renew ? leaseFrom(now) : sql`lease_until`},
      status = CASE WHEN targeting_done_at IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM email_campaign_recipients r WHERE r.campaign_id = ${campaignId} AND r.status IN ('queued', 'sending'))
        THEN (CASE WHEN sent = 0 AND targeted > 0 THEN 'failed' ELSE 'sent' END) ELSE status END
      WHERE id = ${campaignId} AND status = 'sending'`,
  );
}

/** The counters recounted from the recipient rows (the re-drive, after it settled lost sends), then the end state. */
function recountCampaign(db: Db, campaignId: string, now: string): Statement[] {
  const count = (status?: string) =>
    sql`(SELECT count(*) FROM email_campaign_recipients r WHERE r.campaign_id = ${campaignId}${status ? sql` AND r.status = ${status}` : sql``})`;
  return [
    rawRun(db, sql`UPDATE email_campaigns SET targeted = ${count()}, sent = ${count('sent')}, failed = ${count('failed')} WHERE id = ${campaignId}`),
    settleCampaign(db, campaignId, now, false),
  ];
}

/** Renews a sending campaign's lease: a statement for a batch a chunk writes anyway. */
const renewLease = (db: Db, campaignId: string, now: string) =>
  rawRun(db, sql`UPDATE email_campaigns SET lease_until = ${leaseFrom(now)} WHERE id = ${campaignId} AND status = 'sending'`);

/**
 * Settles claimed recipients (`c` contact id, `id` send id, `e` error) as `status`, only those still
 * `sending`. The list, materialized, drives the update by primary key: joined to json_each
 * directly, the planner walked every recipient row of the campaign and matched each against it.
 */
function settleRecipients(
  db: Db,
  campaignId: string,
  status: 'sent' | 'failed',
  rows: { c: string; id: string | null; e: string | null }[],
  now: string,
): Statement {
  return rawRun(
    db,
    sql`WITH settled AS MATERIALIZED (SELECT value ->> 'c' AS c, value ->> 'id' AS id, value ->> 'e' AS e FROM json_each(${JSON.stringify(rows)}))
      UPDATE email_campaign_recipients SET status = ${status}, send_id = settled.id, error = settled.e, updated_at = ${now}
      FROM settled WHERE email_campaign_recipients.campaign_id = ${campaignId} AND email_campaign_recipients.contact_id = settled.c
        AND email_campaign_recipients.status = 'sending'`,
  );
}

const loadCampaign = (db: Db, workspaceId: string, id: string) =>
  db
    .select()
    .from(emailCampaigns)
    .where(and(eq(emailCampaigns.workspaceId, workspaceId), eq(emailCampaigns.id, id)))
    .limit(1);

/**
 * One step of a campaign's fan-out, and the only message the campaign keeps on the send queue: a
 * page's recipients are handed to the provider before the next page is enqueued, so however large
 * the campaign, it holds one message in the queue at a time, and a send launched later (any
 * workspace's) waits behind at most one message per send in progress instead of behind a backlog.
 * A page runs only in the campaign's drive (`heldDrive`): after a re-drive, the older chain's next
 * page stops, so one chain of pages carries the campaign on.
 * A targeting page writes the next `PAGE_SIZE` eligible contacts after its cursor (keyset on
 * creation time and id, so no invocation holds the whole audience and every page costs the same),
 * less those on the platform list (one control-plane statement for the page), as
 * (campaign, contact) rows with their unsubscribe tokens (the primary key ignores rows a redelivered
 * page already wrote); the last one marks targeting done. A drain page (the re-drive of a campaign
 * whose targeting finished) takes up to `PAGE_SIZE` recipients still queued. Either way the page's
 * chunks are sent at once, each claimed before it goes out, so a page the queue retries sends
 * nobody twice; one that keeps failing leaves its campaign to the re-drive.
 */
export async function handlePage(env: Bindings, body: PageMessage): Promise<void> {
  const db = await workspaceDb(env, body.workspace_id);
  if (!db) return;
  const [campaign] = await loadCampaign(db, body.workspace_id, body.campaign_id);
  if (campaign?.status !== 'sending') return;
  const drive = await heldDrive(db, campaign, body.drive ?? 0);
  if (drive === null) return;
  const link = { workspace_id: body.workspace_id, campaign_id: campaign.id, base_url: body.base_url };
  const { ids, next } = body.drain ? await queuedPage(db, link, campaign, drive) : await targetPage(env, db, body, campaign, drive);
  await sendPage(env, link, ids);
  if (next) await env.SEND_QUEUE.send(next);
}

/**
 * The drive a page runs in: its own while it is the campaign's. A page of another drive runs only
 * when the campaign's lease lapsed (nothing moved it for `LEASE_MS`, ./lease.ts: its chain died, or this page
 * waited that long in the queue): it takes the campaign over with a guarded update (of two pages
 * racing, one wins) and carries it on in the next drive. Otherwise (another chain holds the
 * campaign) null, and the page stops.
 */
async function heldDrive(db: Db, campaign: EmailCampaignRow, drive: number): Promise<number | null> {
  if (campaign.drive === drive) return drive;
  const now = nowIso();
  if (campaign.leaseUntil !== null && campaign.leaseUntil >= now) return null;
  const [taken] = await rawAll<{ drive: number }>(
    db,
    sql`UPDATE email_campaigns SET drive = drive + 1, lease_until = ${leaseFrom(now)}
      WHERE id = ${campaign.id} AND status = 'sending' AND drive = ${campaign.drive} AND (lease_until IS NULL OR lease_until < ${now})
      RETURNING drive`,
  );
  return taken?.drive ?? null;
}

type Link = { workspace_id: string; campaign_id: string; base_url: string };
type Page = { ids: string[]; next: PageMessage | null };

async function targetPage(env: Bindings, db: Db, body: PageMessage, campaign: EmailCampaignRow, drive: number): Promise<Page> {
  const after = body.after === null ? null : { id: body.after, createdAt: body.after_created_at ?? null };
  const page = await emailEligibleIds(db, body.workspace_id, await recipientNarrowing(db, body.workspace_id, campaign), { after, limit: PAGE_SIZE });
  const ids = (await withoutPlatformListed(env, page)).map((c) => c.id);
  const last = page.length < PAGE_SIZE;
  const now = nowIso();
  const statements: Statement[] = [];
  if (ids.length) {
    const rows = ids.map((id) => ({ c: id, t: newUnsubscribeToken(body.workspace_id, 'campaign') }));
    statements.push(
      rawRun(
        db,
        sql`INSERT INTO email_campaign_recipients (campaign_id, contact_id, workspace_id, status, unsubscribe_token, created_at, updated_at)
          SELECT ${campaign.id}, value ->> 'c', ${body.workspace_id}, 'queued', value ->> 't', ${now}, ${now} FROM json_each(${JSON.stringify(rows)}) WHERE 1
          ON CONFLICT DO NOTHING`,
      ),
      countChanged(db, campaign.id, 'targeted'),
    );
  }
  if (last) statements.push(db.update(emailCampaigns).set({ targetingDoneAt: now }).where(eq(emailCampaigns.id, campaign.id)));
  statements.push(settleCampaign(db, campaign.id, now));
  await runBatch(db, statements);
  const end = page[page.length - 1];
  return {
    ids,
    next: last
      ? null
      : {
          kind: PAGE_KIND,
          workspace_id: body.workspace_id,
          campaign_id: campaign.id,
          base_url: body.base_url,
          after: end.id,
          after_created_at: end.created_at,
          drive,
        },
  };
}

/**
 * Up to a page of the campaign's still-queued recipients, read from the partial index of open
 * recipients (which SQLite uses only for a query stating its condition, hence the `IN` term). A
 * full page is followed by another; the last one by targeting from the first page when targeting
 * never finished.
 */
async function queuedPage(db: Db, link: Link, campaign: EmailCampaignRow, drive: number): Promise<Page> {
  const rows = await rawAll<{ contact_id: string }>(
    db,
    sql`SELECT contact_id FROM email_campaign_recipients
      WHERE campaign_id = ${link.campaign_id} AND status IN ('queued', 'sending') AND status = 'queued' LIMIT ${PAGE_SIZE}`,
  );
  const ids = rows.map((r) => r.contact_id);
  if (ids.length === PAGE_SIZE) return { ids, next: { kind: PAGE_KIND, ...link, after: null, drain: true, drive } };
  return { ids, next: campaign.targetingDoneAt ? null : { kind: PAGE_KIND, ...link, after: null, drive } };
}

/**
 * A page's chunks, all at once (as many in flight as the send queue's batches held before pages
 * sent their own); every chunk runs to its end before a failure retries the page.
 */
async function sendPage(env: Bindings, link: Link, ids: string[]): Promise<void> {
  const chunks: Promise<void>[] = [];
  for (let i = 0; i < ids.length; i += SEND_CHUNK) chunks.push(sendChunk(env, link, ids.slice(i, i + SEND_CHUNK)));
  const failed = (await Promise.allSettled(chunks)).find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * One chunk of a page's recipients: claimed `queued` -> `sending` first (a guarded
 * update, so a redelivered or duplicated message sends nothing twice; the claim's
 * batch renews the campaign's lease), each
 * contact re-checked against the eligibility baseline (consent can change
 * between page and send), rendered with its own tokens and unsubscribe link,
 * and handed to the bulk send path (source `campaign`, opens and clicks
 * tracked), whose settle batch also settles the recipients `sent` or `failed`
 * and adds exactly those to the campaign's counters.
 */
export async function sendChunk(env: Bindings, body: Link, contactIds: string[]): Promise<void> {
  const db = await workspaceDb(env, body.workspace_id);
  if (!db) return;
  const now = nowIso();
  // The claim and the campaign in one batch, the workspace (control plane) alongside.
  const [[claimedRows, campaignRows], ctx] = await Promise.all([
    runBatch(db, [
      rawAll<{ contact_id: string; unsubscribe_token: string }>(
        db,
        sql`UPDATE email_campaign_recipients SET status = 'sending', updated_at = ${now}
          WHERE campaign_id = ${body.campaign_id} AND status = 'queued' AND contact_id IN (SELECT value FROM json_each(${JSON.stringify(contactIds)}))
            AND EXISTS (SELECT 1 FROM email_campaigns w WHERE w.id = ${body.campaign_id} AND w.status = 'sending')
          RETURNING contact_id, unsubscribe_token`,
      ),
      loadCampaign(db, body.workspace_id, body.campaign_id),
      renewLease(db, body.campaign_id, now),
    ]),
    workspaceContext(env, body.workspace_id),
  ]);
  const claimed = claimedRows as { contact_id: string; unsubscribe_token: string }[];
  const [campaign] = campaignRows as EmailCampaignRow[];
  if (claimed.length === 0 || !campaign) return;
  const ids = claimed.map((r) => r.contact_id);
  const narrowing = await recipientNarrowing(db, body.workspace_id, campaign);
  const inChunk = sql`c.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
  const contacts = await emailEligiblePage(
    db,
    body.workspace_id,
    { filters: narrowing.filters, extra: narrowing.extra ? sql`${narrowing.extra} AND ${inChunk}` : inChunk, listed: true },
    { limit: ids.length },
  );
  const byId = new Map(contacts.map((c) => [c.id, c]));
  const source = { subject: campaign.subject ?? '', html: campaign.compiledHtml ?? '', text: campaign.plainText };
  const emails: BulkEmail[] = [];
  const ineligible: BulkOutcome[] = [];
  for (const r of claimed) {
    const contact = byId.get(r.contact_id);
    if (!contact) ineligible.push({ ref: r.contact_id, status: 'failed', error: 'not_eligible' });
    else
      emails.push({
        ref: contact.id,
        to: contact.email,
        message: personalEmail(source, contact, { baseUrl: body.base_url, token: r.unsubscribe_token }),
      });
  }
  const settle = (outcomes: BulkOutcome[]): Statement[] => {
    const done = nowIso();
    const rows = [...ineligible, ...outcomes].map((o) => ({
      c: o.ref,
      id: o.sendId ?? null,
      e: o.status === 'suppressed' ? 'suppressed' : (o.error ?? null),
    }));
    const settleAs = (status: 'sent' | 'failed') =>
      settleRecipients(
        db,
        campaign.id,
        status,
        rows.filter((r) => (r.e === null) === (status === 'sent')),
        done,
      );
    return [
      settleAs('sent'),
      countChanged(db, campaign.id, 'sent'),
      settleAs('failed'),
      countChanged(db, campaign.id, 'failed'),
      settleCampaign(db, campaign.id, done),
    ];
  };
  await sendEmailBatch(
    { ...ctx, env, baseUrl: body.base_url },
    {
      senderProfileId: campaign.senderProfileId ?? undefined,
      tracking: { opens: true, clicks: true },
      metadata: { campaign_id: campaign.id },
      source: 'campaign',
    },
    emails,
    settle,
  );
}

/** Whether the campaign still has recipients to send or pages to target: read in the re-drive's batch. */
const hasWork = (db: Db, campaignId: string) =>
  rawAll<{ work: number }>(
    db,
    sql`SELECT (targeting_done_at IS NULL OR EXISTS (SELECT 1 FROM email_campaign_recipients r
        WHERE r.campaign_id = ${campaignId} AND r.status IN ('queued', 'sending') AND r.status = 'queued')) AS work
      FROM email_campaigns WHERE id = ${campaignId} AND status = 'sending'`,
  );

/**
 * Re-drives sending campaigns whose lease lapsed (a lost page message, a dead worker, a message
 * waiting longer than the lease): each is taken with a guarded update of its drive (of two sweeps
 * one takes it, and its older chain's next page stops, `heldDrive`), which does not renew the lease;
 * recipients left `sending` for `SENDING_GIVEN_UP_MS` by a worker that died after the provider
 * hand-off are settled `failed` (never resent: a campaign reaches a contact at most once), the
 * counters and end state are recounted, and a campaign with work left gets one drain page in the new
 * drive: its still-queued recipients page by page, then, when targeting never finished, targeting
 * from the first page (rows already written are kept). Links stay at the origin its launch kept
 * (else `PUBLIC_BASE_URL`; with neither the campaign waits, logged). Returns the campaigns given a page.
 */
export async function redriveStaleCampaigns(env: Bindings, db: Db, now = nowIso(), limit = 20): Promise<number> {
  const givenUpBefore = new Date(Date.parse(now) - SENDING_GIVEN_UP_MS).toISOString();
  const stale = await db
    .select()
    .from(emailCampaigns)
    .where(
      and(
        eq(emailCampaigns.status, 'sending'),
        or(isNull(emailCampaigns.leaseUntil), lt(emailCampaigns.leaseUntil, now)),
        settledHere(emailCampaigns.workspaceId),
      ),
    )
    .limit(limit);
  let redriven = 0;
  for (const c of stale) {
    const baseUrl = keptLinkOrigin(env, c.linkOrigin);
    if (!baseUrl) {
      console.error('stalled campaign without a link origin waits: set PUBLIC_BASE_URL', c.id);
      continue;
    }
    let results: unknown[];
    try {
      results = await runBatch(db, [
        rawRun(
          db,
          sql`UPDATE email_campaigns SET drive = ${guarded(
            sql`drive = ${c.drive} AND status = 'sending' AND (lease_until IS NULL OR lease_until < ${now})`,
            sql`drive + 1`,
          )} WHERE id = ${c.id}`,
        ),
        rawRun(
          db,
          sql`UPDATE email_campaign_recipients SET status = 'failed', error = 'no_provider_answer', updated_at = ${now}
            WHERE campaign_id = ${c.id} AND status = 'sending' AND updated_at < ${givenUpBefore}`,
        ),
        ...recountCampaign(db, c.id, now),
        hasWork(db, c.id),
      ]);
    } catch (err) {
      // Another sweep took it, or its fan-out moved meanwhile.
      if (failedOn(err, guardOf(emailCampaigns.drive))) continue;
      throw err;
    }
    if (!(results.at(-1) as { work: number }[])[0]?.work) continue;
    redriven++;
    await env.SEND_QUEUE.send({
      kind: PAGE_KIND,
      workspace_id: c.workspaceId,
      campaign_id: c.id,
      base_url: baseUrl,
      after: null,
      drain: true,
      drive: c.drive + 1,
    } satisfies PageMessage);
  }
  wroteFor(db, new Set(stale.map((c) => c.workspaceId)));
  return redriven;
}
