import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Db } from '../../platform/d1/db';
import { wroteFor } from '../../platform/d1/floors';
import { settledHere } from '../../platform/d1/workspace-moves/settled';
import type { PageMessage as FanoutPage } from '../../platform/fanout/channel';
import { leaseFrom } from '../../platform/fanout/lease';
import { WhatsAppErrors } from './errors';
import type { FilterCatalog } from '../../platform/filter';
import { uuidv7 } from '../../platform/ids';
import { audienceContactCondition } from '../audiences';
import { checkContactFilter } from '../contacts';
import { CAMPAIGN_SORTS, type CampaignCreateInput, type CampaignPatchInput } from './dto';
import { listTable, tableFields, type ListParams } from './listing';
import { CAMPAIGN_STATUSES, whatsappCampaigns, type CampaignRow } from './schema';
import { selectTemplate, templateFrom, type Template } from './templates';
import { variableProblems } from './variables';
import { EmailCampaignErrors } from '../email-campaigns';

export function serializeCampaign(r: CampaignRow) {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    name: r.name,
    template_id: r.templateId,
    audience_id: r.audienceId,
    audience_filters: r.audienceFilters,
    variables: r.variables,
    status: r.status,
    scheduled_at: r.scheduledAt,
    started_at: r.startedAt,
    completed_at: r.completedAt,
    stats: { targeted: r.targeted, sent: r.sent, failed: r.failed },
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

/** The row a raw `SELECT t.*` returns, as the drizzle row. */
type RawCampaign = Record<string, unknown>;
const fromRaw = (r: RawCampaign): CampaignRow => ({
  id: r.id as string,
  workspaceId: r.workspace_id as string,
  name: r.name as string,
  templateId: r.template_id as string,
  audienceId: (r.audience_id as string | null) ?? null,
  audienceFilters: r.audience_filters ? JSON.parse(r.audience_filters as string) : null,
  variables: JSON.parse((r.variables as string) || '{}'),
  status: r.status as CampaignRow['status'],
  scheduledAt: (r.scheduled_at as string | null) ?? null,
  startedAt: (r.started_at as string | null) ?? null,
  completedAt: (r.completed_at as string | null) ?? null,
  targeted: r.targeted as number,
  sent: r.sent as number,
  failed: r.failed as number,
  targetingDoneAt: (r.targeting_done_at as string | null) ?? null,
  leaseUntil: (r.lease_until as string | null) ?? null,
  drive: r.drive as number,
  createdAt: r.created_at as string,
  updatedAt: r.updated_at as string,
});

const fields = tableFields({
  name: 'text',
  template_id: 'uuid',
  audience_id: 'uuid',
  status: CAMPAIGN_STATUSES,
  scheduled_at: 'timestamp',
  started_at: 'timestamp',
  completed_at: 'timestamp',
});

/**
 * `status` is tested on the workspace's rows (unary plus): it leads `whatsapp_campaigns_due`, the
 * schedule sweep's index over the shard, which SQLite would otherwise pick for a status filter.
 */
const catalog: FilterCatalog = { fields: { ...fields, status: { ...fields.status, expr: sql.raw('+t.status') } } };

export async function listCampaigns(db: Db, workspaceId: string, query: ListParams) {
  const page = await listTable<RawCampaign>(db, workspaceId, query, {
    table: 'whatsapp_campaigns',
    catalog,
    sorts: CAMPAIGN_SORTS,
    search: [sql`t.name`],
  });
  return { ...page, data: page.data.map((r) => serializeCampaign(fromRaw(r))) };
}

const selectCampaign = (db: Db, workspaceId: string, id: string) =>
  db
    .select()
    .from(whatsappCampaigns)
    .where(and(eq(whatsappCampaigns.workspaceId, workspaceId), eq(whatsappCampaigns.id, id)))
    .limit(1);

export async function getCampaign(db: Db, workspaceId: string, id: string) {
  const [row] = await selectCampaign(db, workspaceId, id);
  if (!row) throw WhatsAppErrors.campaignNotFound();
  return serializeCampaign(row);
}

/** The write rules shared by create and PATCH, over the campaign as it would be. */
async function checkCampaign(
  ctx: ServiceContext,
  next: { template: Template | null; audienceId: string | null; audienceFilters: Record<string, unknown> | null; variables: Record<string, string> },
) {
  if (!next.template) throw WhatsAppErrors.campaignTemplateNotFound();
  const t = next.template;
  const problems: string[] = [];
  if (t.header && (t.header.type !== 'text' || /\{\{/.test(t.header.text))) {
    problems.push('template_id: campaigns send templates whose only parameters are body placeholders (this one has a header parameter)');
  }
  problems.push(...variableProblems(next.variables, t.placeholders));
  if (problems.length) throw WhatsAppErrors.campaignProblems({ problems });
  if (next.audienceFilters) checkContactFilter(next.audienceFilters, ctx.ws.id);
  if (next.audienceId && !(await audienceContactCondition(ctx.db, ctx.ws.id, next.audienceId))) throw WhatsAppErrors.audienceNotFound();
}

function scheduledAtValue(raw: string | null | undefined): string | null | undefined {
  if (raw === undefined || raw === null) return raw;
  const at = new Date(raw);
  if (at.getTime() <= Date.now()) throw WhatsAppErrors.scheduledInPast();
  return at.toISOString();
}

export async function createCampaign(ctx: ServiceContext, input: CampaignCreateInput) {
  const scheduledAt = scheduledAtValue(input.scheduled_at) ?? null;
  const template = templateFrom(await selectTemplate(ctx.db, ctx.ws.id, input.template_id.toLowerCase()));
  const next = {
    template,
    audienceId: input.audience_id?.toLowerCase() ?? null,
    audienceFilters: input.audience_filters ?? null,
    variables: input.variables ?? {},
  };
  await checkCampaign(ctx, next);
  const now = nowIso();
  const [row] = await ctx.db
    .insert(whatsappCampaigns)
    .values({
      id: uuidv7(),
      workspaceId: ctx.ws.id,
      name: input.name,
      templateId: template!.id,
      audienceId: next.audienceId,
      audienceFilters: next.audienceFilters,
      variables: next.variables,
      status: scheduledAt ? 'scheduled' : 'draft',
      scheduledAt,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return serializeCampaign(row);
}

const EDITABLE = ['draft', 'scheduled'] as const;

export async function patchCampaign(ctx: ServiceContext, id: string, input: CampaignPatchInput) {
  const [existing] = await selectCampaign(ctx.db, ctx.ws.id, id);
  if (!existing) throw WhatsAppErrors.campaignNotFound();
  if (!(EDITABLE as readonly string[]).includes(existing.status)) throw EmailCampaignErrors.notEditable.whatsappCampaign({ status: existing.status });
  const scheduledAt = scheduledAtValue(input.scheduled_at);
  const templateId = input.template_id?.toLowerCase() ?? existing.templateId;
  const next = {
    template: templateFrom(await selectTemplate(ctx.db, ctx.ws.id, templateId)),
    audienceId: input.audience_id === undefined ? existing.audienceId : (input.audience_id?.toLowerCase() ?? null),
    audienceFilters: input.audience_filters === undefined ? existing.audienceFilters : input.audience_filters,
    variables: input.variables ?? existing.variables,
  };
  await checkCampaign(ctx, next);
  const now = nowIso();
  // The state guard settles a race with execute: an update that lost it changes nothing.
  const [row] = await ctx.db
    .update(whatsappCampaigns)
    .set({
      ...(input.name !== undefined ? { name: input.name } : {}),
      templateId,
      audienceId: next.audienceId,
      audienceFilters: next.audienceFilters,
      variables: next.variables,
      ...(scheduledAt !== undefined ? { scheduledAt, status: scheduledAt ? 'scheduled' : 'draft' } : {}),
      updatedAt: now,
    })
    .where(and(eq(whatsappCampaigns.workspaceId, ctx.ws.id), eq(whatsappCampaigns.id, id), inArray(whatsappCampaigns.status, [...EDITABLE])))
    .returning();
  if (!row) {
    const [current] = await selectCampaign(ctx.db, ctx.ws.id, id);
    throw EmailCampaignErrors.notEditable.whatsappCampaign({ status: current?.status ?? 'gone' });
  }
  return serializeCampaign(row);
}

/* Execution: the fan-out is ./fanout.ts (the WhatsApp channel of src/platform/fanout); starting is shared by the execute route and the campaign-schedules sweep. */

export const PAGE_KIND = 'whatsapp-campaign-page';
export const SEND_KIND = 'whatsapp-campaign-send';

/** A page of the campaign's fan-out (src/platform/fanout/channel.ts). */
export type PageMessage = FanoutPage<typeof PAGE_KIND>;
/** A chunk enqueued on its own, as releases before pages sent their own recipients did; still served. */
export type SendMessage = { kind: typeof SEND_KIND; workspace_id: string; campaign_id: string; contact_ids: string[] };

/**
 * Moves a draft or scheduled campaign to `running` (a guarded update: of two
 * racing starts exactly one wins), held by the fan-out's lease (src/platform/fanout/lease.ts: a
 * first page lost is re-driven once it lapsed), and enqueues its first recipient page.
 * Returns the running row, or null when the campaign was not startable.
 */
export async function startCampaign(env: Bindings, db: Db, workspaceId: string, id: string): Promise<CampaignRow | null> {
  const now = nowIso();
  const [row] = await db
    .update(whatsappCampaigns)
    .set({ status: 'running', startedAt: now, updatedAt: now, leaseUntil: leaseFrom(now) })
    .where(and(eq(whatsappCampaigns.workspaceId, workspaceId), eq(whatsappCampaigns.id, id), inArray(whatsappCampaigns.status, [...EDITABLE])))
    .returning();
  if (!row) return null;
  await env.SEND_QUEUE.send({ kind: PAGE_KIND, workspace_id: workspaceId, campaign_id: id, after: null, drive: row.drive } satisfies PageMessage);
  return row;
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

export async function executeCampaign(env: Bindings, ctx: ServiceContext, id: string) {
  const [existing] = await selectCampaign(ctx.db, ctx.ws.id, id);
  if (!existing) throw EmailCampaignErrors.notFound.whatsappExecution();
  if (!(EDITABLE as readonly string[]).includes(existing.status)) {
    throw WhatsAppErrors.notExecutable.byStatus({ status: existing.status });
  }
  const template = templateFrom(await selectTemplate(ctx.db, ctx.ws.id, existing.templateId));
  if (template?.status !== 'approved') {
    throw WhatsAppErrors.campaignTemplateNotApproved({ status: template?.status ?? 'missing' });
  }
  const row = await startCampaign(env, ctx.db, ctx.ws.id, id);
  if (!row) throw WhatsAppErrors.notExecutable.startedConcurrently();
  return serializeCampaign(row);
}
