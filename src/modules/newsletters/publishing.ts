import { and, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { readAll } from '../../platform/d1/operation';
import { rawRun } from '../../platform/d1/raw-query';
import { NewsletterErrors } from './errors';
import { findIssue, serializeIssue, type IssueRow } from './issues';
import { newsletterIssues } from './schema';
import { EmailErrors } from '../emails';

/* An issue's way from draft to published: publish, schedule and unschedule, and deleting one not yet published. */

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
  const { counter, issue } = await readAll(db, {
    counter: rawRun(
      db,
      sql`UPDATE newsletters SET next_issue_number = next_issue_number + 1, updated_at = updated_at
      WHERE id = (SELECT newsletter_id FROM newsletter_issues WHERE id = ${issueId} AND workspace_id = ${workspaceId}) AND ${unpublished}`,
    ),
    issue: db
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
  });
  const changed = counter.meta?.changes ?? 0;
  // D1 counts the rows triggers write too: any change means the counter advanced.
  if (issue.length > 0 && changed > 0) return { row: issue[0], published: true };
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
  if (!(at.getTime() > Date.now())) throw EmailErrors.invalidScheduledAt();
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
  if (now.status === 'published') throw NewsletterErrors.notScheduled.published();
  throw NewsletterErrors.notScheduled.unscheduled();
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
