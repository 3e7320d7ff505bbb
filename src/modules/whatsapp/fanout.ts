import { and, eq, lt, lte, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { nowIso, runBatch, type Db, type Statement } from '../../platform/db';
import { uuidv7 } from '../../platform/ids';
import { rawAll, rawRun } from '../../platform/raw-query';
import { controlDb, workspaceDb } from '../../platform/shards';
import { whatsappProvider } from '../../providers/whatsapp';
import type { QueueMessageBody } from '../../queue';
import { selectRecipientContacts, whatsappAudiencePage, type RecipientContact } from '../contacts/audience';
import { getWorkspace } from '../workspaces/service';
import { audienceContactCondition } from '../audiences/service';
import { PAGE_KIND, SEND_KIND, startCampaign } from './campaigns';
import { composeTemplateMessage } from './compose';
import { insertMessage, settleOutbound, upsertConversation } from './inbox';
import { isPositional } from './placeholders';
import { whatsappCampaigns } from './schema';
import { handOver } from './send';
import { selectTemplate, templateFrom } from './templates';
import { personalize } from './variables';

/** Recipients chosen per page message, and handed to the provider per send message. */
export const PAGE_SIZE = 200;
export const SEND_CHUNK = 25;

type PageMessage = { kind: typeof PAGE_KIND; workspace_id: string; campaign_id: string; after: string | null };
type SendMessage = { kind: typeof SEND_KIND; workspace_id: string; campaign_id: string; contact_ids: string[] };

/**
 * The campaign's counters recounted from its recipient rows (exact, and the
 * same however often it runs), and the end state once every page was written
 * and no recipient is still queued or sending: `completed`, or `failed` when
 * nothing could be sent.
 */
function refreshCampaign(db: Db, campaignId: string, now: string): Statement {
  const count = (status?: string) =>
    sql`(SELECT count(*) FROM whatsapp_campaign_recipients r WHERE r.campaign_id = ${campaignId}${status ? sql` AND r.status = ${status}` : sql``})`;
  const done = sql`(targeting_done_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM whatsapp_campaign_recipients r WHERE r.campaign_id = ${campaignId} AND r.status IN ('queued', 'sending')))`;
  return rawRun(
    db,
    sql`UPDATE whatsapp_campaigns SET targeted = ${count()}, sent = ${count('sent')}, failed = ${count('failed')},
      status = CASE WHEN ${done} THEN (CASE WHEN ${count('sent')} > 0 THEN 'completed' ELSE 'failed' END) ELSE status END,
      completed_at = CASE WHEN ${done} THEN ${now} ELSE completed_at END,
      updated_at = ${now}
      WHERE id = ${campaignId} AND status = 'running'`,
  );
}

const loadCampaign = (db: Db, workspaceId: string, id: string) =>
  db.select().from(whatsappCampaigns).where(and(eq(whatsappCampaigns.workspaceId, workspaceId), eq(whatsappCampaigns.id, id))).limit(1);

/**
 * One page of recipients: the next `PAGE_SIZE` eligible contacts after the
 * cursor get a (campaign, contact) row (the unique index ignores rows a
 * redelivered page already wrote), their sends are enqueued in chunks, and the
 * next page is enqueued behind them. The last page marks targeting done.
 */
export async function handlePage(env: Bindings, body: PageMessage): Promise<void> {
  const db = await workspaceDb(env, body.workspace_id);
  if (!db) return;
  const [campaign] = await loadCampaign(db, body.workspace_id, body.campaign_id);
  if (!campaign || campaign.status !== 'running') return;
  const now = nowIso();
  let extra = null;
  if (campaign.audienceId) {
    extra = await audienceContactCondition(db, body.workspace_id, campaign.audienceId);
    if (!extra) {
      // The audience is gone: nothing more is targeted; the campaign ends with what it has.
      await runBatch(db, [db.update(whatsappCampaigns).set({ targetingDoneAt: now }).where(eq(whatsappCampaigns.id, campaign.id)), refreshCampaign(db, campaign.id, now)]);
      return;
    }
  }
  const ids = await whatsappAudiencePage(db, body.workspace_id, { filters: campaign.audienceFilters, extra, after: body.after, limit: PAGE_SIZE });
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
    );
  }
  if (last) statements.push(db.update(whatsappCampaigns).set({ targetingDoneAt: now }).where(eq(whatsappCampaigns.id, campaign.id)));
  statements.push(refreshCampaign(db, campaign.id, now));
  await runBatch(db, statements);

  const next: QueueMessageBody[] = [];
  for (let i = 0; i < ids.length; i += SEND_CHUNK) {
    next.push({ kind: SEND_KIND, workspace_id: body.workspace_id, campaign_id: campaign.id, contact_ids: ids.slice(i, i + SEND_CHUNK) } satisfies SendMessage);
  }
  if (!last) next.push({ kind: PAGE_KIND, workspace_id: body.workspace_id, campaign_id: campaign.id, after: ids[ids.length - 1] } satisfies PageMessage);
  if (next.length) await env.SEND_QUEUE.sendBatch(next.map((m) => ({ body: m })));
}

type Prepared = { contactId: string; messageId?: string; message?: ReturnType<typeof composeTemplateMessage>; error?: string };

/**
 * One chunk of recipients: claimed `queued` -> `sending` first (a guarded
 * update, so a redelivered or duplicated message sends nothing twice), then
 * personalized, recorded in each contact's conversation, handed to the
 * provider, and settled `sent` or `failed` with the campaign recounted.
 */
export async function handleSend(env: Bindings, body: SendMessage): Promise<void> {
  const db = await workspaceDb(env, body.workspace_id);
  if (!db) return;
  const now = nowIso();
  const claimed = await rawAll<{ contact_id: string }>(
    db,
    sql`UPDATE whatsapp_campaign_recipients SET status = 'sending', updated_at = ${now}
      WHERE campaign_id = ${body.campaign_id} AND status = 'queued' AND contact_id IN (SELECT value FROM json_each(${JSON.stringify(body.contact_ids)}))
        AND EXISTS (SELECT 1 FROM whatsapp_campaigns w WHERE w.id = ${body.campaign_id} AND w.status = 'running')
      RETURNING contact_id`,
  );
  if (claimed.length === 0) return;
  const ids = claimed.map((r) => r.contact_id);
  const [campaign] = await loadCampaign(db, body.workspace_id, body.campaign_id);
  if (!campaign) return;
  const [templateRows, contactRows] = await runBatch(db, [selectTemplate(db, body.workspace_id, campaign.templateId), selectRecipientContacts(db, body.workspace_id, ids)]);
  const template = templateFrom(templateRows);
  const byId = new Map((contactRows as (RecipientContact & { blacklisted: number })[]).map((c) => [c.id, c]));
  const ws = await getWorkspace(controlDb(env), body.workspace_id);
  const provider = whatsappProvider(env, db, ws);

  const prepared: Prepared[] = ids.map((contactId) => {
    const contact = byId.get(contactId);
    if (!template || template.status !== 'approved') return { contactId, error: 'The template is no longer approved' };
    if (!contact || !contact.phone) return { contactId, error: 'The contact no longer exists or has no phone' };
    if (contact.block_state !== 'none' || contact.whatsapp_consent_state !== 'subscribed' || contact.blacklisted) {
      return { contactId, error: 'The contact is no longer reachable (consent, block or blacklist changed)' };
    }
    const { values, empty } = personalize(campaign.variables, contact);
    if (empty.length) return { contactId, error: `Variable(s) ${empty.map((n) => `{{${n}}}`).join(', ')} came out empty for this contact` };
    try {
      const message = composeTemplateMessage(template, contact.phone, {
        body_variables: template.placeholders.map((name) => ({ type: 'text' as const, text: values[name], ...(isPositional(name) ? {} : { param_name: name }) })),
      });
      return { contactId, messageId: uuidv7(), message };
    } catch (err) {
      return { contactId, error: (err as Error).message };
    }
  });

  const sendable = prepared.filter((p) => p.message);
  if (sendable.length) {
    await runBatch(
      db,
      sendable.flatMap((p) => [
        upsertConversation(db, body.workspace_id, p.contactId, uuidv7(), now),
        insertMessage(db, { id: p.messageId!, workspaceId: body.workspace_id, contactId: p.contactId, direction: 'outbound', type: 'template', status: 'pending', wamid: null, templateId: template!.id, campaignId: campaign.id, text: p.message!.renderedText, now }),
      ]) as Statement[],
    );
  }
  const outcomes = await Promise.all(prepared.map(async (p) => (p.message ? handOver(provider, p.message) : { error: p.error! })));
  const done = nowIso();
  const statements: Statement[] = [];
  prepared.forEach((p, i) => {
    const outcome = outcomes[i];
    if (p.messageId) statements.push(settleOutbound(db, body.workspace_id, p.messageId, outcome, done));
    statements.push(
      rawRun(
        db,
        sql`UPDATE whatsapp_campaign_recipients SET status = ${'wamid' in outcome ? 'sent' : 'failed'}, message_id = ${p.messageId ?? null},
          error = ${'error' in outcome ? outcome.error.slice(0, 1000) : null}, updated_at = ${done}
          WHERE campaign_id = ${campaign.id} AND contact_id = ${p.contactId} AND status = 'sending'`,
      ),
    );
  });
  statements.push(refreshCampaign(db, campaign.id, done));
  await runBatch(db, statements);
}

/** Due scheduled WhatsApp campaigns of one shard, started like the execute route does (at most `limit` per run). */
export async function executeDueWhatsAppCampaigns(env: Bindings, db: Db, now = nowIso(), limit = 100): Promise<number> {
  const due = await db
    .select({ id: whatsappCampaigns.id, workspaceId: whatsappCampaigns.workspaceId })
    .from(whatsappCampaigns)
    .where(and(eq(whatsappCampaigns.status, 'scheduled'), lte(whatsappCampaigns.scheduledAt, now)))
    .limit(limit);
  let started = 0;
  for (const c of due) if (await startCampaign(env, db, c.workspaceId, c.id)) started++;
  return started;
}

/** A running campaign untouched this long has lost a queue message (or a worker). */
export const STALE_AFTER_MS = 10 * 60_000;

/**
 * Re-drives running campaigns that stopped moving: recipients left `sending`
 * by a worker that died after the provider hand-off are settled `failed`
 * (never resent: a campaign reaches a contact at most once), recipients still
 * `queued` get their send messages again, targeting resumes from the start
 * when it never finished (existing recipient rows are kept as they are), and
 * the counters and end state are recounted.
 */
export async function redriveStaleCampaigns(env: Bindings, db: Db, now = nowIso(), limit = 20): Promise<number> {
  const staleBefore = new Date(Date.parse(now) - STALE_AFTER_MS).toISOString();
  const stale = await db
    .select()
    .from(whatsappCampaigns)
    .where(and(eq(whatsappCampaigns.status, 'running'), lt(whatsappCampaigns.updatedAt, staleBefore)))
    .limit(limit);
  for (const c of stale) {
    const [, queued] = await runBatch(db, [
      rawRun(
        db,
        sql`UPDATE whatsapp_campaign_recipients SET status = 'failed', error = 'No provider answer was recorded; not resent', updated_at = ${now}
          WHERE campaign_id = ${c.id} AND status = 'sending' AND updated_at < ${staleBefore}`,
      ),
      rawAll<{ contact_id: string }>(db, sql`SELECT contact_id FROM whatsapp_campaign_recipients WHERE campaign_id = ${c.id} AND status = 'queued' ORDER BY contact_id LIMIT 2000`),
      refreshCampaign(db, c.id, now),
    ]);
    const ids = (queued as { contact_id: string }[]).map((r) => r.contact_id);
    const next: QueueMessageBody[] = [];
    for (let i = 0; i < ids.length; i += SEND_CHUNK) next.push({ kind: SEND_KIND, workspace_id: c.workspaceId, campaign_id: c.id, contact_ids: ids.slice(i, i + SEND_CHUNK) } satisfies SendMessage);
    if (!c.targetingDoneAt) next.push({ kind: PAGE_KIND, workspace_id: c.workspaceId, campaign_id: c.id, after: null } satisfies PageMessage);
    for (let i = 0; i < next.length; i += 100) await env.SEND_QUEUE.sendBatch(next.slice(i, i + 100).map((m) => ({ body: m })));
  }
  return stale.length;
}
