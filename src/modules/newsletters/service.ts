import { and, desc, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { failedOn, guardOf, uniqueOn } from '../../platform/d1/constraints';
import { uuidv7 } from '../../platform/ids';
import { envelope, parsePaging } from '../../platform/list';
import { prepared, preparedList } from '../../platform/d1/prepared';
import { isUuid } from '../../platform/validation';
import { readSender, SenderProfileErrors } from '../sender-profiles';
import type { NewsletterCreateInput } from './dto';
import { newsletters } from './schema';
import { NewsletterErrors } from './errors';
import { ContentErrors } from '../content';
import { SharedErrors } from '../../platform/shared-errors';

type NewsletterRow = typeof newsletters.$inferSelect;

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
    if (!found) throw SenderProfileErrors.notFound.newsletter();
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
        throw SharedErrors.planLimitExceeded.newsletters({ cap });
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
  throw ContentErrors.duplicateName.newsletterSlug();
}

const nameTaken = uniqueOn(newsletters.workspaceId, newsletters.nameKey);
const slugTaken = uniqueOn(newsletters.workspaceId, newsletters.slug);
const duplicateName = (name: string) => ContentErrors.duplicateName.newsletter({ name: name.slice(0, 120) });

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
