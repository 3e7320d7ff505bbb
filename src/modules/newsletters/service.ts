import { and, desc, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso, retryOnConflict, runBatch } from '../../platform/d1/db';
import { failedOn, guardOf, lostRaceOn, uniqueOn } from '../../platform/d1/constraints';
import { uuidv7 } from '../../platform/ids';
import { envelope, parsePaging } from '../../platform/list';
import { rawRun } from '../../platform/d1/raw-query';
import { prepared, preparedList, testedOnRows } from '../../platform/d1/prepared';
import { isUuid } from '../../platform/validation';
import { readSender } from '../sender-profiles';
import { compileIssue, NOT_PATCHED, type CompileEnvelope } from './compile';
import type { IssueCreateInput, IssuePatchInput, NewsletterCreateInput } from './dto';
import { ISSUE_STATUSES, newsletterIssues, newsletters } from './schema';
import { NewsletterErrors } from './errors';

type NewsletterRow = typeof newsletters.$inferSelect;
type IssueRow = typeof newsletterIssues.$inferSelect;

/** Active subscriptions of the listed newsletter row (a correlated count). */
const activeCount = sql<number>`(SELECT count(*) FROM newsletter_subscriptions s WHERE s.newsletter_id = "newsletters"."id" AND s.status = 'active')`;

export function serializeNewsletterSummary(n: NewsletterRow, activeSubscribers: number) {
  return {
    id: n.id,
    name: n.name,
    description: n.description,
    status: n.status,
    sender_profile_id: n.senderProfileId,
    active_subscriber_count: activeSubscribers,
    created_at: n.createdAt,
    updated_at: n.updatedAt,
  };
}

export function serializeNewsletter(n: NewsletterRow, activeSubscribers: number) {
  return {
    ...serializeNewsletterSummary(n, activeSubscribers),
    start_policy: n.startPolicy,
    start_issue_number: n.startIssueNumber,
    first_send_mode: n.firstSendMode,
    remember_window_days: n.rememberWindowDays,
    catchup_interval_days: n.catchupIntervalDays,
    catchup_send_time: n.catchupSendTime,
    auto_subscribe_tag_id: n.autoSubscribeTagId,
    header_snippet_id: n.headerSnippetId,
    footer_snippet_id: n.footerSnippetId,
    archive_enabled: n.archiveEnabled,
    slug: n.slug,
    archive_mode: n.archiveMode,
  };
}

/** A URL slug of the name (ASCII letters, digits, dashes); `newsletter` when nothing is left. */
export function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
  return s || 'newsletter';
}

/**
 * One conditional INSERT: the plan cap (when set) is checked by the insert
 * itself (a NULL workspace id fails the NOT NULL guard), so parallel creates
 * never overshoot it; the unique (workspace, lower(name)) index settles
 * parallel creates of one name. A slug taken by another newsletter gets a
 * numeric suffix.
 */
export async function createNewsletter(ctx: ServiceContext, input: NewsletterCreateInput) {
  const senderProfileId = input.sender_profile_id ? input.sender_profile_id.toLowerCase() : null;
  if (senderProfileId) {
    const [found] = await readSender(ctx.db, ctx.ws.id, senderProfileId);
    if (!found) throw NewsletterErrors.senderNotFound();
  }
  const name = input.name.trim();
  const cap = ctx.ws.caps.newsletters;
  const base = slugify(name);
  for (let attempt = 0; attempt < 6; attempt++) {
    const now = nowIso();
    const row: NewsletterRow = {
      id: uuidv7(),
      workspaceId: ctx.ws.id,
      name,
      nameKey: name.toLowerCase(),
      description: input.description ?? null,
      status: 'active',
      senderProfileId,
      startPolicy: 'next_issue',
      startIssueNumber: 1,
      firstSendMode: 'immediate',
      rememberWindowDays: 30,
      catchupIntervalDays: 1,
      catchupSendTime: '09:00',
      autoSubscribeTagId: null,
      headerSnippetId: null,
      footerSnippetId: null,
      archiveEnabled: true,
      slug: attempt === 0 ? base : `${base}-${attempt === 1 ? 2 : Math.floor(Math.random() * 1e6)}`,
      archiveMode: 'full',
      nextIssueNumber: 1,
      createdAt: now,
      updatedAt: now,
    };
    try {
      await ctx.db.insert(newsletters).values({
        ...row,
        workspaceId:
          cap === undefined
            ? ctx.ws.id
            : sql`CASE WHEN (SELECT count(*) FROM newsletters WHERE workspace_id = ${ctx.ws.id}) < ${cap} THEN ${ctx.ws.id} ELSE NULL END`,
      });
      return serializeNewsletter(row, 0);
    } catch (err) {
      if (failedOn(err, guardOf(newsletters.workspaceId))) {
        throw NewsletterErrors.limitReached({ cap });
      }
      if (failedOn(err, nameTaken)) throw duplicateName(name);
      if (!failedOn(err, slugTaken)) throw err;
      const [taken] = await ctx.db
        .select({ id: newsletters.id })
        .from(newsletters)
        .where(and(eq(newsletters.workspaceId, ctx.ws.id), eq(newsletters.nameKey, row.nameKey)))
        .limit(1);
      if (taken) throw duplicateName(name);
    }
  }
  throw NewsletterErrors.noFreeSlug();
}

const nameTaken = uniqueOn(newsletters.workspaceId, newsletters.nameKey);
const slugTaken = uniqueOn(newsletters.workspaceId, newsletters.slug);
const duplicateName = (name: string) => NewsletterErrors.duplicateName({ name: name.slice(0, 120) });

const newsletterList = preparedList<never, { n: NewsletterRow; active: number }>({}, (_, __, ws) => ({
  count: (db) => db.select({ total: sql<number>`count(*)` }).from(newsletters).where(eq(newsletters.workspaceId, ws)),
  page: (db) =>
    db
      .select({ n: newsletters, active: activeCount })
      .from(newsletters)
      .where(eq(newsletters.workspaceId, ws))
      .orderBy(desc(newsletters.createdAt), desc(newsletters.id)),
}));

export async function listNewsletters(ctx: ServiceContext, query: { limit?: string; offset?: string }) {
  const paging = parsePaging(query, { limit: 25, cap: 100 });
  const values = { ws: ctx.ws.id, ...paging };
  const { total, rows } = await newsletterList(ctx.db, values);
  return envelope(
    rows.map((r) => serializeNewsletterSummary(r.n, r.active)),
    total,
    paging,
  );
}

/** The workspace's newsletter (404 `newsletter_not_found` for unknown or foreign ids). */
export async function findNewsletter(ctx: ServiceContext, id: string): Promise<NewsletterRow> {
  if (!isUuid(id)) throw NewsletterErrors.notFound();
  const [row] = await ctx.db
    .select()
    .from(newsletters)
    .where(and(eq(newsletters.workspaceId, ctx.ws.id), eq(newsletters.id, id.toLowerCase())))
    .limit(1);
  if (!row) throw NewsletterErrors.notFound();
  return row;
}

const newsletterById = prepared((db) =>
  db
    .select({ n: newsletters, active: activeCount })
    .from(newsletters)
    .where(and(eq(newsletters.workspaceId, sql.placeholder('ws')), eq(newsletters.id, sql.placeholder('id'))))
    .limit(1),
);

export async function getNewsletter(ctx: ServiceContext, id: string) {
  if (!isUuid(id)) throw NewsletterErrors.notFound();
  const row = await newsletterById.get(ctx.db, { ws: ctx.ws.id, id: id.toLowerCase() });
  if (!row) throw NewsletterErrors.notFound();
  return serializeNewsletter(row.n, row.active);
}

/* ------------------------------------------------------------------ issues */

export function serializeIssueSummary(i: IssueRow) {
  return {
    id: i.id,
    newsletter_id: i.newsletterId,
    issue_number: i.issueNumber,
    subject: i.subject,
    preheader: i.preheader,
    status: i.status,
    scheduled_at: i.scheduledAt,
    published_at: i.publishedAt,
    include_in_archive: i.includeInArchive,
    external_reference: i.externalReference,
    created_at: i.createdAt,
    updated_at: i.updatedAt,
  };
}

export const serializeIssue = (i: IssueRow) => ({
  ...serializeIssueSummary(i),
  design_json: i.designJson ?? null,
  compiled_html: i.compiledHtml,
  compiled_styles: i.compiledStyles,
  plain_text: i.plainText,
});

/** The content columns of a compiled write, or the 400 the compile errors give. */
async function compiledColumns(ctx: ServiceContext, content: unknown, subject: string | null | undefined, preheader: string | null | undefined) {
  const out = await compileIssue(ctx, content, { title: subject ?? null, preheader: preheader ?? null });
  return {
    columns: { designJson: out.design_json, compiledHtml: out.compiled_html, compiledStyles: out.compiled_styles, plainText: out.plain_text },
    compile: out.compile,
  };
}

const issueByReference = prepared((db) =>
  db
    .select()
    .from(newsletterIssues)
    .where(and(eq(newsletterIssues.workspaceId, sql.placeholder('ws')), eq(newsletterIssues.externalReference, sql.placeholder('reference'))))
    .limit(1),
);

/**
 * Creates a draft, or (an `external_reference` already held by an issue of
 * this newsletter) refreshes that issue's fields and content: `status`,
 * `scheduled_at` and `issue_number` are never touched. A reference held by an
 * issue of another newsletter is 409 `external_reference_in_use`. Parallel
 * creates with one reference meet at the unique index and the loser replays.
 * The newsletter is read in the same round trip as the issue its `external_reference` names (a
 * replay: that read, then the update); a create that lost the reference's unique index reads it again.
 */
export async function createIssue(ctx: ServiceContext, newsletterId: string, input: IssueCreateInput) {
  if (!isUuid(newsletterId)) throw NewsletterErrors.notFound();
  const values = { ws: ctx.ws.id, newsletter_id: newsletterId.toLowerCase(), reference: input.external_reference ?? null };
  const [found, referenced] = (await runBatch(ctx.db, [
    newsletterExists.in(ctx.db, values),
    ...(input.external_reference !== undefined ? [issueByReference.in(ctx.db, values)] : []),
  ])) as [{ id: string }[], IssueRow[]?];
  const n = found[0];
  if (!n) throw NewsletterErrors.notFound();
  let compiled: Awaited<ReturnType<typeof compiledColumns>> | null = null;
  if (input.content !== undefined) compiled = await compiledColumns(ctx, input.content, input.subject, input.preheader);
  const compile: CompileEnvelope = compiled?.compile ?? NOT_PATCHED;
  let known = referenced;
  return retryOnConflict(async () => {
    if (input.external_reference !== undefined) {
      const [existing] = known ?? (await issueByReference.all(ctx.db, values));
      known = undefined;
      if (existing) {
        if (existing.newsletterId !== n.id) {
          throw NewsletterErrors.externalReferenceInUse();
        }
        const updated = await applyIssueChanges(ctx, existing, input, compiled?.columns);
        return { ...serializeIssue(updated), duplicate: true, compile };
      }
    }
    const now = nowIso();
    const row: IssueRow = {
      id: uuidv7(),
      workspaceId: ctx.ws.id,
      newsletterId: n.id,
      issueNumber: null,
      subject: input.subject ?? null,
      preheader: input.preheader ?? null,
      status: 'draft',
      designJson: compiled?.columns.designJson ?? null,
      compiledHtml: compiled?.columns.compiledHtml ?? null,
      compiledStyles: compiled?.columns.compiledStyles ?? null,
      plainText: compiled?.columns.plainText ?? null,
      scheduledAt: null,
      publishedAt: null,
      includeInArchive: input.include_in_archive ?? true,
      externalReference: input.external_reference ?? null,
      linkOrigin: null,
      createdAt: now,
      updatedAt: now,
    };
    await ctx.db.insert(newsletterIssues).values(row);
    return { ...serializeIssue(row), duplicate: false, compile };
  }, issueReferenceTaken);
}

const issueReferenceTaken = lostRaceOn(uniqueOn(newsletterIssues.workspaceId, newsletterIssues.externalReference));

type ContentColumns = Pick<IssueRow, 'designJson' | 'compiledHtml' | 'compiledStyles' | 'plainText'>;

/** Writes the present fields (never status, scheduled_at or issue_number) and reads the issue back. */
async function applyIssueChanges(
  ctx: ServiceContext,
  existing: IssueRow,
  input: IssuePatchInput,
  content: ContentColumns | undefined,
): Promise<IssueRow> {
  const set: Partial<IssueRow> = { updatedAt: nowIso() };
  if (input.subject !== undefined) set.subject = input.subject;
  if (input.preheader !== undefined) set.preheader = input.preheader;
  if (input.include_in_archive !== undefined) set.includeInArchive = input.include_in_archive;
  if (content) Object.assign(set, content);
  const [row] = await ctx.db
    .update(newsletterIssues)
    .set(set)
    .where(and(eq(newsletterIssues.workspaceId, ctx.ws.id), eq(newsletterIssues.id, existing.id)))
    .returning();
  if (!row) throw NewsletterErrors.issueNotFound();
  return row;
}

const issueById = prepared((db) =>
  db
    .select()
    .from(newsletterIssues)
    .where(and(eq(newsletterIssues.workspaceId, sql.placeholder('ws')), eq(newsletterIssues.id, sql.placeholder('id'))))
    .limit(1),
);

export async function findIssue(ctx: ServiceContext, id: string): Promise<IssueRow> {
  if (!isUuid(id)) throw NewsletterErrors.issueNotFound();
  const row = await issueById.get(ctx.db, { ws: ctx.ws.id, id: id.toLowerCase() });
  if (!row) throw NewsletterErrors.issueNotFound();
  return row;
}

export async function getIssue(ctx: ServiceContext, id: string) {
  return serializeIssue(await findIssue(ctx, id));
}

/** PATCH: present fields change; a content change recompiles (against the subject and preheader the issue will have). */
export async function patchIssue(ctx: ServiceContext, id: string, input: IssuePatchInput) {
  const existing = await findIssue(ctx, id);
  let compile: CompileEnvelope = NOT_PATCHED;
  let content: ContentColumns | undefined;
  if (input.content !== undefined) {
    const subject = input.subject !== undefined ? input.subject : existing.subject;
    const preheader = input.preheader !== undefined ? input.preheader : existing.preheader;
    const compiled = await compiledColumns(ctx, input.content, subject, preheader);
    compile = compiled.compile;
    content = compiled.columns;
  }
  const row = await applyIssueChanges(ctx, existing, input, content);
  return { ...serializeIssue(row), compile };
}

const newsletterExists = prepared((db) =>
  db
    .select({ id: newsletters.id })
    .from(newsletters)
    .where(and(eq(newsletters.workspaceId, sql.placeholder('ws')), eq(newsletters.id, sql.placeholder('newsletter_id'))))
    .limit(1),
);

/** `status` leads `newsletter_issues_due`, the publish sweep's index over the shard. */
const issueList = preparedList<'newsletter_id' | 'status', IssueRow>(
  { newsletter_id: newsletterIssues.newsletterId, status: testedOnRows(newsletterIssues.status) },
  (_, where, ws) => {
    const { designJson: _d, compiledHtml: _h, compiledStyles: _s, plainText: _p, ...summaryColumns } = getColumns();
    const scoped = and(eq(newsletterIssues.workspaceId, ws), where);
    return {
      count: (db) => db.select({ total: sql<number>`count(*)` }).from(newsletterIssues).where(scoped),
      page: (db) =>
        db.select(summaryColumns).from(newsletterIssues).where(scoped).orderBy(desc(newsletterIssues.createdAt), desc(newsletterIssues.id)),
    };
  },
);

/** The newsletter's issues, newest first; its existence is read in the list's own round trip (404 when it is not the workspace's). */
export async function listIssues(ctx: ServiceContext, newsletterId: string, query: { status?: string; limit?: string; offset?: string }) {
  if (!isUuid(newsletterId)) throw NewsletterErrors.notFound();
  const paging = parsePaging(query, { limit: 25, cap: 100 });
  const status = query.status === undefined || query.status === '' ? undefined : query.status;
  if (status !== undefined && !(ISSUE_STATUSES as readonly string[]).includes(status)) {
    throw NewsletterErrors.invalidStatusFilter();
  }
  const values: Record<string, unknown> = { ws: ctx.ws.id, newsletter_id: newsletterId.toLowerCase(), ...paging };
  if (status) values.status = status;
  const { total, rows, leading } = await issueList(ctx.db, values, [newsletterExists.in(ctx.db, values)]);
  if ((leading[0] as unknown[]).length === 0) throw NewsletterErrors.notFound();
  return envelope(rows.map(serializeIssueSummary), total, paging);
}

const getColumns = () => ({
  id: newsletterIssues.id,
  workspaceId: newsletterIssues.workspaceId,
  newsletterId: newsletterIssues.newsletterId,
  issueNumber: newsletterIssues.issueNumber,
  subject: newsletterIssues.subject,
  preheader: newsletterIssues.preheader,
  status: newsletterIssues.status,
  designJson: newsletterIssues.designJson,
  compiledHtml: newsletterIssues.compiledHtml,
  compiledStyles: newsletterIssues.compiledStyles,
  plainText: newsletterIssues.plainText,
  scheduledAt: newsletterIssues.scheduledAt,
  publishedAt: newsletterIssues.publishedAt,
  includeInArchive: newsletterIssues.includeInArchive,
  externalReference: newsletterIssues.externalReference,
  createdAt: newsletterIssues.createdAt,
  updatedAt: newsletterIssues.updatedAt,
});

/* ------------------------------------------------------------ state table */

const hasContent = (i: Pick<IssueRow, 'subject' | 'compiledHtml'>) => !!i.subject && !!i.compiledHtml;
const ready = sql`subject IS NOT NULL AND subject <> '' AND compiled_html IS NOT NULL`;

/**
 * Publishes an issue (draft or scheduled) in one batch: the newsletter's
 * counter advances only when the issue is still unpublished and ready, and the
 * issue takes the counter's previous value. Two parallel publishes of one
 * issue advance it once; parallel publishes of different issues take
 * consecutive numbers (the batch is one transaction). Returns the issue and
 * whether this call published it. `linkOrigin`: the publishing request's link
 * origin (the sweep keeps the one its schedule request stored).
 */
export async function publishIssueRow(
  db: ServiceContext['db'],
  workspaceId: string,
  issueId: string,
  linkOrigin?: string,
): Promise<{ row: IssueRow | undefined; published: boolean }> {
  const now = nowIso();
  const unpublished = sql`EXISTS (SELECT 1 FROM newsletter_issues i WHERE i.id = ${issueId} AND i.workspace_id = ${workspaceId} AND i.status <> 'published' AND i.subject IS NOT NULL AND i.subject <> '' AND i.compiled_html IS NOT NULL)`;
  const [counter, issue] = await runBatch(db, [
    rawRun(
      db,
      sql`UPDATE newsletters SET next_issue_number = next_issue_number + 1, updated_at = updated_at
      WHERE id = (SELECT newsletter_id FROM newsletter_issues WHERE id = ${issueId} AND workspace_id = ${workspaceId}) AND ${unpublished}`,
    ),
    db
      .update(newsletterIssues)
      .set({
        status: 'published',
        issueNumber: sql`(SELECT next_issue_number - 1 FROM newsletters n WHERE n.id = ${newsletterIssues.newsletterId})`,
        publishedAt: now,
        updatedAt: now,
        ...(linkOrigin ? { linkOrigin } : {}),
      })
      .where(and(eq(newsletterIssues.workspaceId, workspaceId), eq(newsletterIssues.id, issueId), sql`status <> 'published'`, ready))
      .returning(),
  ]);
  const changed = (counter as { meta?: { changes?: number } }).meta?.changes ?? 0;
  const rows = issue as IssueRow[];
  // D1 counts the rows triggers write too: any change means the counter advanced.
  if (rows.length > 0 && changed > 0) return { row: rows[0], published: true };
  const [row] = await db
    .select()
    .from(newsletterIssues)
    .where(and(eq(newsletterIssues.workspaceId, workspaceId), eq(newsletterIssues.id, issueId)))
    .limit(1);
  return { row, published: false };
}

/** `linkOrigin`: where the links of its mail point (unsubscribe, tracking), for the delivery sweep that sends it. */
export async function publishIssue(ctx: ServiceContext, id: string, linkOrigin: string) {
  const existing = await findIssue(ctx, id);
  if (existing.status === 'published') return serializeIssue(existing);
  if (!hasContent(existing)) throw NewsletterErrors.missingContent();
  const { row } = await publishIssueRow(ctx.db, ctx.ws.id, existing.id, linkOrigin);
  if (!row) throw NewsletterErrors.issueNotFound();
  if (row.status !== 'published') throw NewsletterErrors.missingContent();
  return serializeIssue(row);
}

export async function scheduleIssue(ctx: ServiceContext, id: string, scheduledAtRaw: string, linkOrigin: string) {
  const existing = await findIssue(ctx, id);
  if (existing.status === 'published') throw NewsletterErrors.alreadyPublished();
  if (!hasContent(existing)) throw NewsletterErrors.missingContent();
  const at = new Date(scheduledAtRaw);
  if (!(at.getTime() > Date.now())) throw NewsletterErrors.invalidScheduledAt();
  const [row] = await ctx.db
    .update(newsletterIssues)
    .set({ status: 'scheduled', scheduledAt: at.toISOString(), linkOrigin, updatedAt: nowIso() })
    .where(and(eq(newsletterIssues.workspaceId, ctx.ws.id), eq(newsletterIssues.id, existing.id), sql`status <> 'published'`, ready))
    .returning();
  if (row) return serializeIssue(row);
  const now = await findIssue(ctx, id);
  if (now.status === 'published') throw NewsletterErrors.alreadyPublished();
  throw NewsletterErrors.missingContent();
}

export async function unscheduleIssue(ctx: ServiceContext, id: string) {
  const existing = await findIssue(ctx, id);
  const [row] = await ctx.db
    .update(newsletterIssues)
    .set({ status: 'draft', scheduledAt: null, updatedAt: nowIso() })
    .where(and(eq(newsletterIssues.workspaceId, ctx.ws.id), eq(newsletterIssues.id, existing.id), eq(newsletterIssues.status, 'scheduled')))
    .returning();
  if (row) return serializeIssue(row);
  const now = await findIssue(ctx, id);
  if (now.status === 'published') throw NewsletterErrors.publishedNotScheduled();
  throw NewsletterErrors.notScheduled();
}

export async function deleteIssue(ctx: ServiceContext, id: string) {
  const existing = await findIssue(ctx, id);
  if (existing.status === 'published') throw NewsletterErrors.issuePublished();
  const [row] = await ctx.db
    .delete(newsletterIssues)
    .where(and(eq(newsletterIssues.workspaceId, ctx.ws.id), eq(newsletterIssues.id, existing.id), sql`status <> 'published'`))
    .returning({ id: newsletterIssues.id });
  if (row) return { success: true as const };
  const now = await findIssue(ctx, id);
  if (now.status === 'published') throw NewsletterErrors.issuePublished();
  throw NewsletterErrors.issueNotFound();
}
