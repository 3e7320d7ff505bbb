import { and, desc, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { uniqueOn } from '../../platform/d1/constraints';
import { nowIso } from '../../platform/d1/db';
import { runOperation } from '../../platform/d1/operation';
import { prepared, preparedList, testedOnRows } from '../../platform/d1/prepared';
import { uuidv7 } from '../../platform/ids';
import { envelope, parsePaging } from '../../platform/list';
import { isUuid } from '../../platform/validation';
import { compileIssue, NOT_PATCHED, type CompileEnvelope } from './compile';
import type { IssueCreateInput, IssuePatchInput } from './dto';
import { NewsletterErrors } from './errors';
import { ISSUE_STATUSES, newsletterIssues, newsletters } from './schema';

export type IssueRow = typeof newsletterIssues.$inferSelect;

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

/** The content columns and `compile` envelope of a create: none without content. */
async function compiledContent(ctx: ServiceContext, input: IssueCreateInput): Promise<{ columns?: ContentColumns; compile: CompileEnvelope }> {
  if (input.content === undefined) return { compile: NOT_PATCHED };
  return compiledColumns(ctx, input.content, input.subject, input.preheader);
}

/**
 * Creates a draft, or (an `external_reference` already held by an issue of
 * this newsletter) refreshes that issue's fields and content: `status`,
 * `scheduled_at` and `issue_number` are never touched. A reference held by an
 * issue of another newsletter is 409 `external_reference_in_use`. Parallel
 * creates with one reference meet at the unique index and the loser replays.
 * The newsletter is read in the same round trip as the issue its `external_reference` names (a
 * replay: that read, then the update); a create that lost the reference's unique index reads both again.
 */
export async function createIssue(ctx: ServiceContext, newsletterId: string, input: IssueCreateInput) {
  if (!isUuid(newsletterId)) throw NewsletterErrors.notFound();
  const values = { ws: ctx.ws.id, newsletter_id: newsletterId.toLowerCase(), reference: input.external_reference ?? null };
  // Compiled once the newsletter is found, and only once: a create that lost the race keeps it.
  let compiled: ReturnType<typeof compiledContent> | undefined;
  return runOperation(ctx, {
    reads: {
      newsletter: newsletterExists.in(ctx.db, values),
      referenced: input.external_reference !== undefined && issueByReference.in(ctx.db, values),
    },
    decide: async (read, batch) => {
      const [n] = read.newsletter;
      if (!n) throw NewsletterErrors.notFound();
      compiled ??= compiledContent(ctx, input);
      const { columns, compile } = await compiled;
      const [existing] = read.referenced;
      if (existing) {
        if (existing.newsletterId !== n.id) throw NewsletterErrors.externalReferenceInUse();
        return batch.answer(issueUpdate(ctx, existing, input, columns), ([row]) => {
          if (!row) throw NewsletterErrors.issueNotFound();
          return { ...serializeIssue(row), duplicate: true, compile };
        });
      }
      const row = newIssue(ctx, n.id, input, columns);
      return batch.write(ctx.db.insert(newsletterIssues).values(row)).answerWith({ ...serializeIssue(row), duplicate: false, compile });
    },
    lostRaceOn: [uniqueOn(newsletterIssues.workspaceId, newsletterIssues.externalReference)],
  });
}

/** A new draft of newsletter `newsletterId`. */
function newIssue(ctx: ServiceContext, newsletterId: string, input: IssueCreateInput, content: ContentColumns | undefined): IssueRow {
  const now = nowIso();
  return {
    id: uuidv7(),
    workspaceId: ctx.ws.id,
    newsletterId,
    issueNumber: null,
    subject: input.subject ?? null,
    preheader: input.preheader ?? null,
    status: 'draft',
    designJson: content?.designJson ?? null,
    compiledHtml: content?.compiledHtml ?? null,
    compiledStyles: content?.compiledStyles ?? null,
    plainText: content?.plainText ?? null,
    scheduledAt: null,
    publishedAt: null,
    includeInArchive: input.include_in_archive ?? true,
    externalReference: input.external_reference ?? null,
    linkOrigin: null,
    createdAt: now,
    updatedAt: now,
  };
}

type ContentColumns = Pick<IssueRow, 'designJson' | 'compiledHtml' | 'compiledStyles' | 'plainText'>;

/** The update of the present fields (never status, scheduled_at or issue_number), answering the issue as written (none: it is gone). */
function issueUpdate(ctx: ServiceContext, existing: IssueRow, input: IssuePatchInput, content: ContentColumns | undefined) {
  const set: Partial<IssueRow> = { updatedAt: nowIso() };
  if (input.subject !== undefined) set.subject = input.subject;
  if (input.preheader !== undefined) set.preheader = input.preheader;
  if (input.include_in_archive !== undefined) set.includeInArchive = input.include_in_archive;
  if (content) Object.assign(set, content);
  return ctx.db
    .update(newsletterIssues)
    .set(set)
    .where(and(eq(newsletterIssues.workspaceId, ctx.ws.id), eq(newsletterIssues.id, existing.id)))
    .returning();
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
  const [row] = await issueUpdate(ctx, existing, input, content);
  if (!row) throw NewsletterErrors.issueNotFound();
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
