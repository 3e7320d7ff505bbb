import { and, desc, eq, getTableColumns, inArray, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { nowIso, type Db } from '../../platform/d1/db';
import { runOperation, unchanged } from '../../platform/d1/operation';
import { uniqueOn } from '../../platform/d1/constraints';
import { ApiError } from '../../platform/errors';
import { uuidv7 } from '../../platform/ids';
import { envelope, parsePaging } from '../../platform/list';
import { prepared, preparedList, testedOnRows } from '../../platform/d1/prepared';
import { isUuid } from '../../platform/validation';
import { audienceContactCondition } from '../audiences';
import { countEmailEligible, eligibleCountSql, checkContactFilter } from '../contacts';
import { type CompileEnvelope, compileForWorkspace } from '../content';
import { readSender, SenderProfileErrors } from '../sender-profiles';
import { platformListJson } from '../suppressions';
import type { EmailCampaignCreateInput, EmailCampaignPatchInput } from './dto';
import { EMAIL_CAMPAIGN_STATUSES, emailCampaigns, type EmailCampaignRow, type EmailCampaignStatus } from './schema';
import { SharedErrors } from '../../platform/shared-errors';
import { EmailCampaignErrors } from './errors';
import { FRAMEWORK_SURFACE } from '../../platform/error-surfaces';

export const EDITABLE = ['draft', 'scheduled'] as const satisfies readonly EmailCampaignStatus[];
export const isEditable = (status: string) => (EDITABLE as readonly string[]).includes(status);

/** A campaign without its content: what lists show. */
type CampaignSummaryRow = Omit<EmailCampaignRow, 'designJson' | 'compiledHtml' | 'compiledStyles' | 'plainText'>;

export function serializeCampaignSummary(r: CampaignSummaryRow) {
  return {
    id: r.id,
    workspace_id: r.workspaceId,
    name: r.name,
    subject: r.subject,
    preheader: r.preheader,
    sender_profile_id: r.senderProfileId,
    audience_id: r.audienceId,
    audience_filters: r.audienceFilters ?? null,
    external_reference: r.externalReference,
    status: r.status,
    scheduled_at: r.scheduledAt,
    sent_at: r.sentAt,
    cancelled_at: r.cancelledAt,
    counters: {
      targeted: r.targeted,
      sent: r.sent,
      delivered: r.delivered,
      opened: r.opened,
      clicked: r.clicked,
      bounced: r.bounced,
      complained: r.complained,
      unsubscribed: r.unsubscribed,
      failed: r.failed,
    },
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

export const serializeCampaign = (r: EmailCampaignRow) => ({
  ...serializeCampaignSummary(r),
  design_json: r.designJson ?? null,
  compiled_html: r.compiledHtml,
  compiled_styles: r.compiledStyles,
  plain_text: r.plainText,
});

const campaignById = prepared((db) =>
  db
    .select()
    .from(emailCampaigns)
    .where(and(eq(emailCampaigns.workspaceId, sql.placeholder('ws')), eq(emailCampaigns.id, sql.placeholder('id'))))
    .limit(1),
);

export async function findCampaign(ctx: ServiceContext, id: string): Promise<EmailCampaignRow> {
  if (!isUuid(id)) throw EmailCampaignErrors.notFound.emailCampaign();
  const row = await campaignById.get(ctx.db, { ws: ctx.ws.id, id: id.toLowerCase() });
  if (!row) throw EmailCampaignErrors.notFound.emailCampaign();
  return row;
}

export const getCampaign = async (ctx: ServiceContext, id: string) => serializeCampaign(await findCampaign(ctx, id));

/**
 * The list reads no content columns: a page of compiled emails would travel for nothing. `status`
 * is tested on rows: it leads `email_campaigns_due`, the schedule sweep's index over the shard.
 */
const runList = preparedList<'status', CampaignSummaryRow>({ status: testedOnRows(emailCampaigns.status) }, (_, filtered, ws) => {
  const where = and(eq(emailCampaigns.workspaceId, ws), filtered);
  const { designJson: _d, compiledHtml: _h, compiledStyles: _s, plainText: _p, ...summary } = getTableColumns(emailCampaigns);
  return {
    count: (db) => db.select({ total: sql<number>`count(*)` }).from(emailCampaigns).where(where),
    page: (db) => db.select(summary).from(emailCampaigns).where(where).orderBy(desc(emailCampaigns.createdAt), desc(emailCampaigns.id)),
  };
});

export async function listCampaigns(ctx: ServiceContext, query: { status?: string; limit?: string; offset?: string }) {
  const paging = parsePaging(query, { limit: 25, cap: 100 });
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  if (query.status !== undefined && query.status !== '') {
    if (!(EMAIL_CAMPAIGN_STATUSES as readonly string[]).includes(query.status)) {
      throw SharedErrors.notOneOf({ name: 'status', values: EMAIL_CAMPAIGN_STATUSES.join(', ') });
    }
    values.status = query.status;
  }
  const { total, rows } = await runList(ctx.db, values);
  return envelope(rows.map(serializeCampaignSummary), total, paging);
}

/** The sender a campaign names must be a profile of the workspace on a verified domain. */
async function checkSender(ctx: ServiceContext, senderProfileId: string | null) {
  if (!senderProfileId) return;
  const [found] = await readSender(ctx.db, ctx.ws.id, senderProfileId);
  if (!found?.domain_verified) throw SenderProfileErrors.notFound.emailCampaign();
}

/** `audience_filters` is type-checked and test-compiled: a bad tree is a framework-shape 400 with an `errors` array. */
function checkFilters(ctx: ServiceContext, filters: Record<string, unknown> | null) {
  if (!filters) return;
  try {
    checkContactFilter(filters, ctx.ws.id);
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 400) throw err;
    const message = String(err.bodyOn(FRAMEWORK_SURFACE).message);
    throw EmailCampaignErrors.invalidAudienceFilters({ problem: message, errors: [message] });
  }
}

async function checkAudience(ctx: ServiceContext, audienceId: string | null) {
  if (audienceId && !(await audienceContactCondition(ctx.db, ctx.ws.id, audienceId))) {
    throw EmailCampaignErrors.audienceNotFound();
  }
}

type Changes = Partial<EmailCampaignRow>;

/** Checks what a create or PATCH body sets and turns it into column changes; content recompiles against the subject and preheader the campaign will have. */
async function changesFrom(
  ctx: ServiceContext,
  input: EmailCampaignPatchInput,
  current: EmailCampaignRow | null,
): Promise<{ set: Changes; compile: CompileEnvelope }> {
  const set: Changes = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.subject !== undefined) set.subject = input.subject;
  if (input.preheader !== undefined) set.preheader = input.preheader;
  if (input.sender_profile_id !== undefined) set.senderProfileId = input.sender_profile_id?.toLowerCase() ?? null;
  if (input.audience_id !== undefined) set.audienceId = input.audience_id?.toLowerCase() ?? null;
  if (input.audience_filters !== undefined) set.audienceFilters = input.audience_filters ?? null;
  checkFilters(ctx, set.audienceFilters ?? null);
  await checkSender(ctx, set.senderProfileId ?? null);
  await checkAudience(ctx, set.audienceId ?? null);
  let compile: CompileEnvelope = { ok: true, errors: [], warnings: [] };
  if (input.content !== undefined) {
    const out = await compileForWorkspace(ctx.db, ctx.ws.id, input.content, {
      title: set.subject ?? current?.subject ?? null,
      preheader: set.preheader !== undefined ? set.preheader : (current?.preheader ?? null),
    });
    Object.assign(set, {
      designJson: out.design_json,
      compiledHtml: out.compiled_html,
      compiledStyles: out.compiled_styles,
      plainText: out.plain_text,
    });
    compile = out.compile;
  }
  return { set, compile };
}

/** Writes changes while the campaign is still editable (the state guard settles a race with a launch). */
async function applyChanges(ctx: ServiceContext, id: string, set: Changes): Promise<EmailCampaignRow> {
  const [row] = await ctx.db
    .update(emailCampaigns)
    .set({ ...set, updatedAt: nowIso() })
    .where(and(eq(emailCampaigns.workspaceId, ctx.ws.id), eq(emailCampaigns.id, id), inArray(emailCampaigns.status, [...EDITABLE])))
    .returning();
  if (row) return row;
  const [current] = await ctx.db
    .select({ status: emailCampaigns.status })
    .from(emailCampaigns)
    .where(and(eq(emailCampaigns.workspaceId, ctx.ws.id), eq(emailCampaigns.id, id)))
    .limit(1);
  if (!current) throw EmailCampaignErrors.notFound.emailCampaign();
  throw EmailCampaignErrors.notEditable.emailCampaign({ status: current.status });
}

/**
 * Creates a draft, or replays an `external_reference` the workspace already
 * holds: while the campaign is editable the body updates it exactly like a
 * PATCH (never `status` or `scheduled_at`); once launched it is returned
 * verbatim, without `compile`. Parallel creates with one reference meet at the
 * unique index and the loser replays.
 */
export function createCampaign(ctx: ServiceContext, input: EmailCampaignCreateInput) {
  return runOperation(ctx, {
    reads: { existing: input.external_reference !== undefined && byReference(ctx, input.external_reference) },
    decide: async (read, batch) => {
      const [existing] = read.existing;
      if (existing && !isEditable(existing.status)) return unchanged({ ...serializeCampaign(existing), duplicate: true });
      const { set, compile } = await changesFrom(ctx, input, existing ?? null);
      // An edit of the replayed campaign is the PATCH's own write, which tells a launch in between.
      if (existing) return unchanged({ ...serializeCampaign(await applyChanges(ctx, existing.id, set)), duplicate: true, compile });
      const now = nowIso();
      const id = uuidv7();
      batch.write(
        ctx.db.insert(emailCampaigns).values({
          id,
          workspaceId: ctx.ws.id,
          name: input.name,
          status: 'draft',
          externalReference: input.external_reference ?? null,
          createdAt: now,
          updatedAt: now,
          ...set,
        }),
      );
      return batch.answer(selectCampaign(ctx, id), ([row]) => ({ ...serializeCampaign(row), duplicate: false, compile }));
    },
    lostRaceOn: [uniqueOn(emailCampaigns.workspaceId, emailCampaigns.externalReference)],
  });
}

const byReference = (ctx: ServiceContext, reference: string) =>
  ctx.db
    .select()
    .from(emailCampaigns)
    .where(and(eq(emailCampaigns.workspaceId, ctx.ws.id), eq(emailCampaigns.externalReference, reference)))
    .limit(1);

const selectCampaign = (ctx: ServiceContext, id: string) =>
  ctx.db
    .select()
    .from(emailCampaigns)
    .where(and(eq(emailCampaigns.workspaceId, ctx.ws.id), eq(emailCampaigns.id, id)))
    .limit(1);

/** PATCH while `draft` or `scheduled`: 200 with the campaign and `compile`; otherwise 409 `campaign_not_editable`. */
export async function patchCampaign(ctx: ServiceContext, id: string, input: EmailCampaignPatchInput) {
  const existing = await findCampaign(ctx, id);
  if (!isEditable(existing.status)) throw EmailCampaignErrors.notEditable.emailCampaign({ status: existing.status });
  const { set, compile } = await changesFrom(ctx, input, existing);
  return { ...serializeCampaign(await applyChanges(ctx, existing.id, set)), compile };
}

/** Who the campaign reaches: the email-eligible baseline narrowed by its audience and/or filters (never widened). */
export async function recipientNarrowing(db: Db, workspaceId: string, c: Pick<EmailCampaignRow, 'audienceId' | 'audienceFilters'>) {
  const extra = c.audienceId ? await audienceContactCondition(db, workspaceId, c.audienceId) : null;
  // An audience deleted since it was chosen narrows to nobody.
  return { filters: c.audienceFilters ?? null, extra: c.audienceId && !extra ? sql`0` : extra };
}

/** A campaign's targeting and, when it has none, its count: SQLite computes a `CASE` branch only when it is taken. */
const estimateRead = prepared((db) =>
  db
    .select({
      audienceId: emailCampaigns.audienceId,
      audienceFilters: emailCampaigns.audienceFilters,
      untargeted: sql<number | null>`CASE WHEN ${emailCampaigns.audienceId} IS NULL AND ${emailCampaigns.audienceFilters} IS NULL
        THEN ${eligibleCountSql(sql`${sql.placeholder('ws')}`, sql`1`, false, sql`${sql.placeholder('platform')}`)} END`,
    })
    .from(emailCampaigns)
    .where(and(eq(emailCampaigns.workspaceId, sql.placeholder('ws')), eq(emailCampaigns.id, sql.placeholder('id'))))
    .limit(1),
);

/**
 * `GET .../estimate`: the count the send path's resolver gives now; a campaign without targeting is
 * counted in the read that finds it. The platform list's addresses are read from the control plane
 * first, to be subtracted on the shard.
 */
export async function estimateCampaign(env: Bindings, ctx: ServiceContext, id: string) {
  if (!isUuid(id)) throw EmailCampaignErrors.notFound.emailCampaign();
  const platform = await platformListJson(env);
  const [c] = await estimateRead.all(ctx.db, { ws: ctx.ws.id, id: id.toLowerCase(), platform });
  if (!c) throw EmailCampaignErrors.notFound.emailCampaign();
  if (c.untargeted !== null) return { count: c.untargeted };
  return { count: await countEmailEligible(ctx.db, ctx.ws.id, await recipientNarrowing(ctx.db, ctx.ws.id, c), platform) };
}
