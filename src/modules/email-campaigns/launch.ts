import { and, eq, inArray, lte } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { wroteFor } from '../../platform/d1/floors';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Db } from '../../platform/d1/db';
import type { PageMessage as FanoutPage } from '../../platform/fanout/channel';
import { leaseFrom } from '../../platform/fanout/lease';
import { keptLinkOrigin } from '../../platform/public-base';
import { readSender } from '../sender-profiles';
import { emailCampaigns, type EmailCampaignRow } from './schema';
import { EDITABLE, findCampaign, isEditable, serializeCampaign } from './service';
import { EmailCampaignErrors } from './errors';
import { settledHere } from '../../platform/d1/workspace-moves/settled';
import { EmailErrors } from '../emails';

export const PAGE_KIND = 'email-campaign-page';
export const SEND_KIND = 'email-campaign-send';

/** A page of the campaign's fan-out (src/platform/fanout/channel.ts); `base_url`: the origin of the unsubscribe and tracking links, fixed at launch. */
export type PageMessage = FanoutPage<typeof PAGE_KIND, { base_url: string }>;
/** A chunk enqueued on its own, as releases before pages sent their own recipients did; still served. */
export type SendMessage = { kind: typeof SEND_KIND; workspace_id: string; campaign_id: string; base_url: string; contact_ids: string[] };

/** A launch needs a subject, compiled content and a verified sender (the named one, or the workspace default). */
async function checkComplete(ctx: ServiceContext, c: EmailCampaignRow) {
  const missing: string[] = [];
  if (!c.subject) missing.push('a subject');
  if (!c.compiledHtml) missing.push('compiled content');
  const [sender] = await readSender(ctx.db, ctx.ws.id, c.senderProfileId ?? undefined);
  if (!sender?.domain_verified) missing.push('a sender profile on a verified domain');
  if (missing.length) throw EmailCampaignErrors.incomplete({ missing: missing.join(', ') });
}

/**
 * Moves an editable campaign to `sending` (a guarded update: of racing
 * launches exactly one wins), held by the fan-out's lease, and enqueues its
 * first recipient page on the send queue (each page enqueues the next once its
 * recipients went out). `baseUrl` is kept for the sweep that may re-drive it
 * (once the lease lapsed: a first page lost with the launch's crash too). Null
 * when the campaign was no longer editable.
 */
export async function startCampaign(env: Bindings, db: Db, workspaceId: string, id: string, baseUrl: string): Promise<EmailCampaignRow | null> {
  const now = nowIso();
  const [row] = await db
    .update(emailCampaigns)
    .set({ status: 'sending', sentAt: now, linkOrigin: baseUrl, updatedAt: now, leaseUntil: leaseFrom(now) })
    .where(and(eq(emailCampaigns.workspaceId, workspaceId), eq(emailCampaigns.id, id), inArray(emailCampaigns.status, [...EDITABLE])))
    .returning();
  if (!row) return null;
  await env.SEND_QUEUE.send({
    kind: PAGE_KIND,
    workspace_id: workspaceId,
    campaign_id: id,
    base_url: baseUrl,
    after: null,
    drive: row.drive,
  } satisfies PageMessage);
  return row;
}

/** `POST .../send`: draft or scheduled -> `sending` (201). */
export async function sendCampaign(env: Bindings, ctx: ServiceContext, id: string, baseUrl: string) {
  const c = await findCampaign(ctx, id);
  if (!isEditable(c.status)) throw EmailCampaignErrors.notEditable.emailCampaign({ status: c.status });
  await checkComplete(ctx, c);
  const row = await startCampaign(env, ctx.db, ctx.ws.id, c.id, baseUrl);
  if (!row) throw EmailCampaignErrors.notEditable.emailCampaign({ status: (await findCampaign(ctx, c.id)).status });
  return serializeCampaign(row);
}

/**
 * `POST .../schedule`: draft or scheduled -> `scheduled` at a future instant (201); the
 * `campaign-schedules` sweep launches it with the links at `baseUrl`, this request's origin.
 */
export async function scheduleCampaign(ctx: ServiceContext, id: string, scheduledAt: string, baseUrl: string) {
  const at = new Date(scheduledAt);
  if (!(at.getTime() > Date.now())) throw EmailErrors.invalidScheduledAt();
  const c = await findCampaign(ctx, id);
  if (!isEditable(c.status)) throw EmailCampaignErrors.notEditable.emailCampaign({ status: c.status });
  await checkComplete(ctx, c);
  return moveState(ctx, c.id, EDITABLE, { status: 'scheduled', scheduledAt: at.toISOString(), linkOrigin: baseUrl });
}

/** `POST .../unschedule`: scheduled -> draft (201), `scheduled_at` cleared. */
export async function unscheduleCampaign(ctx: ServiceContext, id: string) {
  const c = await findCampaign(ctx, id);
  if (c.status !== 'scheduled') throw EmailCampaignErrors.notEditable.emailCampaign({ status: c.status });
  return moveState(ctx, c.id, ['scheduled'], { status: 'draft', scheduledAt: null });
}

async function moveState(ctx: ServiceContext, id: string, from: readonly EmailCampaignRow['status'][], set: Partial<EmailCampaignRow>) {
  const [row] = await ctx.db
    .update(emailCampaigns)
    .set({ ...set, updatedAt: nowIso() })
    .where(and(eq(emailCampaigns.workspaceId, ctx.ws.id), eq(emailCampaigns.id, id), inArray(emailCampaigns.status, [...from])))
    .returning();
  if (!row) throw EmailCampaignErrors.notEditable.emailCampaign({ status: (await findCampaign(ctx, id)).status });
  return serializeCampaign(row);
}

/**
 * Due scheduled campaigns of one shard, launched like `send` does (at most `limit` per run), their
 * links at the origin their schedule request kept, else `PUBLIC_BASE_URL`; with neither a campaign
 * stays scheduled (logged) until one is configured.
 */
export async function launchDueCampaigns(env: Bindings, db: Db, now = nowIso(), limit = 100): Promise<number> {
  const due = await db
    .select({ id: emailCampaigns.id, workspaceId: emailCampaigns.workspaceId, linkOrigin: emailCampaigns.linkOrigin })
    .from(emailCampaigns)
    .where(and(eq(emailCampaigns.status, 'scheduled'), lte(emailCampaigns.scheduledAt, now), settledHere(emailCampaigns.workspaceId)))
    .limit(limit);
  let started = 0;
  for (const c of due) {
    const baseUrl = keptLinkOrigin(env, c.linkOrigin);
    if (!baseUrl) console.error('scheduled campaign without a link origin waits: set PUBLIC_BASE_URL', c.id);
    else if (await startCampaign(env, db, c.workspaceId, c.id, baseUrl)) started++;
  }
  wroteFor(db, new Set(due.map((c) => c.workspaceId)));
  return started;
}
