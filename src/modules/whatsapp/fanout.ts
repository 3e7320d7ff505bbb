import { and, eq, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { wroteFor } from '../../platform/d1/floors';
import { failedOn, guardOf } from '../../platform/d1/constraints';
import { guarded, nowIso, runBatch, type Db, type Statement } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { rawAll, rawRun } from '../../platform/d1/raw-query';
import { controlDb, workspaceDb } from '../../platform/d1/shards';
import { whatsappProvider, type SendOutcome } from '../../providers/whatsapp';
import { selectRecipientContacts, whatsappAudiencePage, type RecipientContact } from '../contacts';
import { getWorkspace } from '../workspaces';
import { audienceContactCondition } from '../audiences';
import { PAGE_KIND, type SEND_KIND, startCampaign } from './campaigns';
import { composeTemplateMessage } from './compose';
import { insertCampaignMessages, settleOutboundMany, upsertConversations } from './inbox';
import { isPositional } from './placeholders';
import { leaseFrom } from './lease';
import { whatsappCampaigns, type CampaignRow } from './schema';
import { selectCampaignTemplate, templateFrom } from './templates';
import { personalize } from './variables';
import { settledHere } from '../../platform/d1/moves/settled';

/** Recipients per page message, handed to the provider in chunks of `SEND_CHUNK` at once. */
export const PAGE_SIZE = 200;
export const SEND_CHUNK = 50;
/** Recipients a worker claimed (`sending`) this long ago and never settled are settled `failed` by the re-drive, never resent. */
export const SENDING_GIVEN_UP_MS = 10 * 60_000;

/**
 * `after` and `after_created_at`: the last contact of the previous page and its creation time (the
 * keyset). `drain`: the page takes recipients still queued instead of targeting (the re-drive's).
 * `drive`: the chain of pages it belongs to (the campaign's `drive` when it was sent; absent, 0).
 */
type PageMessage = {
  kind: typeof PAGE_KIND;
  workspace_id: string;
  campaign_id: string;
  after: string | null;
  after_created_at?: string;
  drain?: true;
  drive?: number;
};
/** A chunk enqueued on its own, as releases before pages sent their own recipients did; still served. */
export type SendMessage = { kind: typeof SEND_KIND; workspace_id: string; campaign_id: string; contact_ids: string[] };
type Link = { workspace_id: string; campaign_id: string };
type Page = { ids: string[]; next: PageMessage | null };

/**
 * The campaign's counters recounted from its recipient rows: the re-drive's,
 * after it settled lost sends without counting them (the fan-out counts as it goes).
 */
function recountCampaign(db: Db, campaignId: string): Statement {
  const count = (status?: string) =>
    sql`(SELECT count(*) FROM whatsapp_campaign_recipients r WHERE r.campaign_id = ${campaignId}${status ? sql` AND r.status = ${status}` : sql``})`;
  return rawRun(
    db,
    sql`UPDATE whatsapp_campaigns SET targeted = ${count()}, sent = ${count('sent')}, failed = ${count('failed')} WHERE id = ${campaignId} AND status = 'running'`,
  );
}

/**
 * Adds to a campaign counter the rows the batch's previous statement changed
 * (SQLite `changes()`: the guarded insert or update just before it in the same
 * transaction), so a redelivered message that changes nothing adds nothing.
 */
const countChanged = (db: Db, campaignId: string, column: 'targeted' | 'sent' | 'failed') =>
  rawRun(db, sql`UPDATE whatsapp_campaigns SET ${sql.raw(column)} = ${sql.raw(column)} + changes() WHERE id = ${campaignId}`);

/**
 * The end state once every page was written and no recipient is queued or
 * sending (the recipients' status index answers that): `completed`, or
 * `failed` when nothing could be sent. A batch of the fan-out renews the
 * campaign's lease with it (`renew`); the re-drive's does not.
 */
function settleCampaign(db: Db, campaignId: string, now: string, renew = true): Statement {
  const done = sql`(targeting_done_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM whatsapp_campaign_recipients r WHERE r.campaign_id = ${campaignId} AND r.status IN ('queued', 'sending')))`;
  return rawRun(
    db,
    sql`UPDATE whatsapp_campaigns SET status = CASE WHEN ${done} THEN (CASE WHEN sent > 0 THEN 'completed' ELSE 'failed' END) ELSE status END,
      completed_at = CASE WHEN ${done} THEN ${now} ELSE completed_at END, updated_at = ${now},
      lease_until = ${renew ? leaseFrom(now) : sql`lease_until`}
      WHERE id = ${campaignId} AND status = 'running'`,
  );
}

/** Renews a running campaign's lease: a statement for a batch a chunk writes anyway. */
const renewLease = (db: Db, campaignId: string, now: string) =>
  rawRun(db, sql`UPDATE whatsapp_campaigns SET lease_until = ${leaseFrom(now)} WHERE id = ${campaignId} AND status = 'running'`);

/** Settles claimed recipients still `sending` as `status`, the list (materialized) driving probes by primary key. */
const settleRecipients = (
  db: Db,
  campaignId: string,
  status: 'sent' | 'failed',
  rows: { c: string; m: string | null; e: string | null }[],
  now: string,
) =>
  rawRun(
    db,
    sql`WITH settled AS MATERIALIZED (SELECT value ->> 'c' AS c, value ->> 'm' AS m, value ->> 'e' AS e FROM json_each(${JSON.stringify(rows)}))
      UPDATE whatsapp_campaign_recipients SET status = ${status}, message_id = settled.m, error = settled.e, updated_at = ${now}
      FROM settled WHERE whatsapp_campaign_recipients.campaign_id = ${campaignId} AND whatsapp_campaign_recipients.contact_id = settled.c
        AND whatsapp_campaign_recipients.status = 'sending'`,
  );

const loadCampaign = (db: Db, workspaceId: string, id: string) =>
  db
    .select()
    .from(whatsappCampaigns)
    .where(and(eq(whatsappCampaigns.workspaceId, workspaceId), eq(whatsappCampaigns.id, id)))
    .limit(1);

/**
 * One step of a campaign's fan-out, and the only message the campaign keeps on the send queue: a
 * page's recipients are handed to the provider before the next page is enqueued, so however large
 * the campaign, it holds one message in the queue at a time, and a send launched later (any
 * workspace's) waits behind at most one message per send in progress instead of behind a backlog.
 * A targeting page writes the next `PAGE_SIZE` eligible contacts after its cursor (keyset on
 * creation time and id) as (campaign, contact) rows (the unique index ignores rows a redelivered
 * page already wrote, and the targeted counter grows by the rows written); the last one marks
 * targeting done. A drain page (the re-drive's) takes up to `PAGE_SIZE` recipients still queued.
 * Either way the page's chunks are sent at once, each claimed before it goes out, so a page the
 * queue retries sends nobody twice; one that keeps failing leaves its campaign to the re-drive. A
 * page runs only in the campaign's drive (`heldDrive`): after a re-drive, the older chain's next
 * page stops, so one chain of pages carries the campaign on.
 */
export async function handlePage(env: Bindings, body: PageMessage): Promise<void> {
  const db = await workspaceDb(env, body.workspace_id);
  if (!db) return;
  const [campaign] = await loadCampaign(db, body.workspace_id, body.campaign_id);
  if (campaign?.status !== 'running') return;
  const drive = await heldDrive(db, campaign, body.drive ?? 0);
  if (drive === null) return;
  const link = { workspace_id: body.workspace_id, campaign_id: campaign.id };
  const { ids, next } = body.drain ? await queuedPage(db, link, campaign, drive) : await targetPage(db, body, campaign, drive);
  const chunks: Promise<void>[] = [];
  for (let i = 0; i < ids.length; i += SEND_CHUNK) chunks.push(sendChunk(env, link, ids.slice(i, i + SEND_CHUNK)));
  // Every chunk runs to its end before a failure retries the page.
  const failed = (await Promise.allSettled(chunks)).find((o): o is PromiseRejectedResult => o.status === 'rejected');
  if (failed) throw failed.reason;
  if (next) await env.SEND_QUEUE.send(next);
}

/**
 * The drive a page runs in: its own while it is the campaign's. A page of another drive runs only
 * when the campaign's lease lapsed (nothing moved it for `LEASE_MS`, ./lease.ts: its chain died, or
 * this page waited that long in the queue): it takes the campaign over with a guarded update (of two
 * pages racing, one wins) and carries it on in the next drive. Otherwise (another chain holds the
 * campaign) null, and the page stops.
 */
async function heldDrive(db: Db, campaign: CampaignRow, drive: number): Promise<number | null> {
  if (campaign.drive === drive) return drive;
  const now = nowIso();
  if (campaign.leaseUntil !== null && campaign.leaseUntil >= now) return null;
  const [taken] = await rawAll<{ drive: number }>(
    db,
    sql`UPDATE whatsapp_campaigns SET drive = drive + 1, lease_until = ${leaseFrom(now)}
      WHERE id = ${campaign.id} AND status = 'running' AND drive = ${campaign.drive} AND (lease_until IS NULL OR lease_until < ${now})
      RETURNING drive`,
  );
  return taken?.drive ?? null;
}

async function targetPage(db: Db, body: PageMessage, campaign: CampaignRow, drive: number): Promise<Page> {
  const now = nowIso();
  let extra = null;
  if (campaign.audienceId) {
    extra = await audienceContactCondition(db, body.workspace_id, campaign.audienceId);
    if (!extra) {
      // The audience is gone: nothing more is targeted; the campaign ends with what it has.
      await runBatch(db, [
        db.update(whatsappCampaigns).set({ targetingDoneAt: now }).where(eq(whatsappCampaigns.id, campaign.id)),
        settleCampaign(db, campaign.id, now),
      ]);
      return { ids: [], next: null };
    }
  }
  const after = body.after === null ? null : { id: body.after, createdAt: body.after_created_at ?? null };
  const page = await whatsappAudiencePage(db, body.workspace_id, { filters: campaign.audienceFilters, extra, after, limit: PAGE_SIZE });
  const ids = page.map((c) => c.id);
  const last = ids.length < PAGE_SIZE;
  const statements: Statement[] = [];
  if (ids.length) {
    statements.push(
      rawRun(
        db,
        sql`INSERT INTO whatsapp_campaign_recipients (campaign_id, contact_id, workspace_id, status, created_at, updated_at)
          SELECT ${campaign.id}, value, ${body.workspace_id}, 'queued', ${now}, ${now} FROM json_each(${JSON.stringify(ids)}) WHERE 1
          ON CONFLICT DO NOTHING`,
      ),
      countChanged(db, campaign.id, 'targeted'),
    );
  }
  if (last) statements.push(db.update(whatsappCampaigns).set({ targetingDoneAt: now }).where(eq(whatsappCampaigns.id, campaign.id)));
  statements.push(settleCampaign(db, campaign.id, now));
  await runBatch(db, statements);
  const end = page[page.length - 1];
  return {
    ids,
    next: last
      ? null
      : { kind: PAGE_KIND, workspace_id: body.workspace_id, campaign_id: campaign.id, after: end.id, after_created_at: end.created_at, drive },
  };
}

/**
 * Up to a page of the campaign's still-queued recipients (the status index answers it). A full
 * page is followed by another; the last one by targeting from the first page when targeting never
 * finished.
 */
async function queuedPage(db: Db, link: Link, campaign: CampaignRow, drive: number): Promise<Page> {
  const rows = await rawAll<{ contact_id: string }>(
    db,
    sql`SELECT contact_id FROM whatsapp_campaign_recipients WHERE campaign_id = ${link.campaign_id} AND status = 'queued' LIMIT ${PAGE_SIZE}`,
  );
  const ids = rows.map((r) => r.contact_id);
  if (ids.length === PAGE_SIZE) return { ids, next: { kind: PAGE_KIND, ...link, after: null, drain: true, drive } };
  return { ids, next: campaign.targetingDoneAt ? null : { kind: PAGE_KIND, ...link, after: null, drive } };
}

type Prepared = { contactId: string; messageId?: string; message?: ReturnType<typeof composeTemplateMessage>; error?: string };

/**
 * One chunk of a page's recipients, in four round trips whatever its size. The claim
 * (`queued` -> `sending`, a guarded update, so a redelivered or duplicated
 * message sends nothing twice; the batch renews the campaign's lease) is read in one batch with the campaign, its
 * template and the contacts; each claimed contact is re-checked and
 * personalized; one batch records the messages in the contacts'
 * conversations; the provider takes the chunk at once; one batch settles
 * messages and recipients, grows the counters by exactly the rows settled, and
 * ends the campaign when nothing is left.
 */
export async function sendChunk(env: Bindings, body: Link, contactIds: string[]): Promise<void> {
  const db = await workspaceDb(env, body.workspace_id);
  if (!db) return;
  const now = nowIso();
  const [[claimedRows, campaignRows, templateRows, contactRows], ws] = await Promise.all([
    runBatch(db, [
      rawAll<{ contact_id: string }>(
        db,
        sql`UPDATE whatsapp_campaign_recipients SET status = 'sending', updated_at = ${now}
          WHERE campaign_id = ${body.campaign_id} AND status = 'queued' AND contact_id IN (SELECT value FROM json_each(${JSON.stringify(contactIds)}))
            AND EXISTS (SELECT 1 FROM whatsapp_campaigns w WHERE w.id = ${body.campaign_id} AND w.status = 'running')
          RETURNING contact_id`,
      ),
      loadCampaign(db, body.workspace_id, body.campaign_id),
      selectCampaignTemplate(db, body.workspace_id, body.campaign_id),
      selectRecipientContacts(db, body.workspace_id, contactIds),
      renewLease(db, body.campaign_id, now),
    ]),
    getWorkspace(controlDb(env), body.workspace_id),
  ]);
  const ids = (claimedRows as { contact_id: string }[]).map((r) => r.contact_id);
  const [campaign] = campaignRows as CampaignRow[];
  if (ids.length === 0 || !campaign) return;
  const template = templateFrom(templateRows);
  const byId = new Map((contactRows as (RecipientContact & { blacklisted: number })[]).map((c) => [c.id, c]));

  const prepared: Prepared[] = ids.map((contactId) => {
    const contact = byId.get(contactId);
    if (template?.status !== 'approved') return { contactId, error: 'The template is no longer approved' };
    if (!contact?.phone) return { contactId, error: 'The contact no longer exists or has no phone' };
    if (contact.block_state !== 'none' || contact.whatsapp_consent_state !== 'subscribed' || contact.blacklisted) {
      return { contactId, error: 'The contact is no longer reachable (consent, block or blacklist changed)' };
    }
    const { values, empty } = personalize(campaign.variables, contact);
    if (empty.length) return { contactId, error: `Variable(s) ${empty.map((n) => `{{${n}}}`).join(', ')} came out empty for this contact` };
    try {
      const message = composeTemplateMessage(template, contact.phone, {
        body_variables: template.placeholders.map((name) => ({
          type: 'text' as const,
          text: values[name],
          ...(isPositional(name) ? {} : { param_name: name }),
        })),
      });
      return { contactId, messageId: uuidv7(), message };
    } catch (err) {
      return { contactId, error: (err as Error).message };
    }
  });

  const sendable = prepared.filter((p) => p.message);
  let handed: SendOutcome[] = [];
  if (sendable.length) {
    const rows = sendable.map((p) => ({ id: p.messageId!, contactId: p.contactId, text: p.message!.renderedText }));
    await runBatch(db, [
      upsertConversations(
        db,
        body.workspace_id,
        rows.map((r) => r.contactId),
        now,
      ),
      insertCampaignMessages(db, { workspaceId: body.workspace_id, templateId: template!.id, campaignId: campaign.id, now }, rows),
    ]);
    handed = await whatsappProvider(env, db, ws).sendTemplates(sendable.map((p) => p.message!));
  }
  const outcomeOf = new Map(sendable.map((p, i) => [p.contactId, handed[i]]));
  const done = nowIso();
  const settled = prepared.map((p) => {
    const outcome = outcomeOf.get(p.contactId) ?? { error: p.error! };
    return { c: p.contactId, m: p.messageId ?? null, e: 'error' in outcome ? outcome.error.slice(0, 1000) : null };
  });
  const statements: Statement[] = [];
  if (sendable.length)
    statements.push(
      settleOutboundMany(
        db,
        body.workspace_id,
        sendable.map((p) => ({ id: p.messageId!, outcome: outcomeOf.get(p.contactId)! })),
        done,
      ),
    );
  statements.push(
    settleRecipients(
      db,
      campaign.id,
      'sent',
      settled.filter((r) => r.e === null),
      done,
    ),
    countChanged(db, campaign.id, 'sent'),
    settleRecipients(
      db,
      campaign.id,
      'failed',
      settled.filter((r) => r.e !== null),
      done,
    ),
    countChanged(db, campaign.id, 'failed'),
    settleCampaign(db, campaign.id, done),
  );
  await runBatch(db, statements);
}

/** Due scheduled WhatsApp campaigns of one shard, started like the execute route does (at most `limit` per run). */
export async function executeDueWhatsAppCampaigns(env: Bindings, db: Db, now = nowIso(), limit = 100): Promise<number> {
  const due = await db
    .select({ id: whatsappCampaigns.id, workspaceId: whatsappCampaigns.workspaceId })
    .from(whatsappCampaigns)
    .where(and(eq(whatsappCampaigns.status, 'scheduled'), lte(whatsappCampaigns.scheduledAt, now), settledHere(whatsappCampaigns.workspaceId)))
    .limit(limit);
  let started = 0;
  for (const c of due) if (await startCampaign(env, db, c.workspaceId, c.id)) started++;
  wroteFor(db, new Set(due.map((c) => c.workspaceId)));
  return started;
}

/** Whether the campaign still has recipients to send or pages to target: read in the re-drive's batch. */
const hasWork = (db: Db, campaignId: string) =>
  rawAll<{ work: number }>(
    db,
    sql`SELECT (targeting_done_at IS NULL OR EXISTS (SELECT 1 FROM whatsapp_campaign_recipients r WHERE r.campaign_id = ${campaignId} AND r.status = 'queued')) AS work
      FROM whatsapp_campaigns WHERE id = ${campaignId} AND status = 'running'`,
  );

/**
 * Re-drives running campaigns whose lease lapsed (a lost page message, a dead worker, a message
 * waiting longer than the lease): each is taken with a guarded update of its drive (of two sweeps
 * one takes it, and its older chain's next page stops, `heldDrive`), which does not renew the lease;
 * recipients left `sending` for `SENDING_GIVEN_UP_MS` by a worker that died after the provider
 * hand-off are settled `failed` (never resent: a campaign reaches a contact at most once), the
 * counters and end state are recounted, and a campaign with work left gets one drain page in the new
 * drive: its still-queued recipients page by page, then, when targeting never finished, targeting
 * from the first page (existing recipient rows stay as they are). Returns the campaigns given a page.
 */
export async function redriveStaleCampaigns(env: Bindings, db: Db, now = nowIso(), limit = 20): Promise<number> {
  const givenUpBefore = new Date(Date.parse(now) - SENDING_GIVEN_UP_MS).toISOString();
  const stale = await db
    .select()
    .from(whatsappCampaigns)
    .where(
      and(
        eq(whatsappCampaigns.status, 'running'),
        or(isNull(whatsappCampaigns.leaseUntil), lt(whatsappCampaigns.leaseUntil, now)),
        settledHere(whatsappCampaigns.workspaceId),
      ),
    )
    .limit(limit);
  let redriven = 0;
  for (const c of stale) {
    let results: unknown[];
    try {
      results = await runBatch(db, [
        rawRun(
          db,
          sql`UPDATE whatsapp_campaigns SET drive = ${guarded(
            sql`drive = ${c.drive} AND status = 'running' AND (lease_until IS NULL OR lease_until < ${now})`,
            sql`drive + 1`,
          )} WHERE id = ${c.id}`,
        ),
        rawRun(
          db,
          sql`UPDATE whatsapp_campaign_recipients SET status = 'failed', error = 'No provider answer was recorded; not resent', updated_at = ${now}
            WHERE campaign_id = ${c.id} AND status = 'sending' AND updated_at < ${givenUpBefore}`,
        ),
        recountCampaign(db, c.id),
        settleCampaign(db, c.id, now, false),
        hasWork(db, c.id),
      ]);
    } catch (err) {
      // Another sweep took it, or its fan-out moved meanwhile.
      if (failedOn(err, guardOf(whatsappCampaigns.drive))) continue;
      throw err;
    }
    if (!(results.at(-1) as { work: number }[])[0]?.work) continue;
    redriven++;
    await env.SEND_QUEUE.send({
      kind: PAGE_KIND,
      workspace_id: c.workspaceId,
      campaign_id: c.id,
      after: null,
      drain: true,
      drive: c.drive + 1,
    } satisfies PageMessage);
  }
  wroteFor(db, new Set(stale.map((c) => c.workspaceId)));
  return redriven;
}
