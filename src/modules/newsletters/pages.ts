import { and, asc, desc, eq, gt, isNotNull, lt } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../platform/app-env';
import type { ServiceContext } from '../../platform/context';
import { escapeHtml as esc, renderHtmlTokens, renderTextTokens, tokenValues, WEB_CONTENT_STYLES, webContent } from '../content';
import { publicWorkspaceContext } from '../workspaces';
import { newsletterIssues, newsletters } from './schema';

/*
 * The public archive: `/n/{workspace_id}/{slug}` lists a newsletter's
 * published issues with `include_in_archive: true` (never drafts, scheduled or
 * hidden issues), newest first, each linked to its page (archive mode `full`);
 * `/n/{workspace_id}/{slug}/{issue_number}` shows one: the newsletter's name,
 * the issue's number and publication date, its content rendered for the web
 * (no preheader, no subscriber footer or unsubscribe link), and links to the
 * previous and next issue and to the list. Plain server-rendered HTML, no
 * scripts, no external hosts; personalization tokens render their fallbacks.
 */
export const archivePages = new Hono<AppEnv>();

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1f2933;background:#f8fafc}
main{background:#fff;border:1px solid #d9e2ec;border-radius:12px;padding:1.5rem 2rem}h1{font-size:1.5rem;margin:.2rem 0;overflow-wrap:anywhere}p.meta{color:#52606d;margin-top:0}
ol.issues{list-style:none;padding:0}ol.issues li{padding:.6rem 0;border-top:1px solid #e4e7eb;overflow-wrap:anywhere}ol.issues li span{color:#52606d;font-size:.9rem;margin-right:.6rem}a{color:#1a5c8f}
a:focus-visible{outline:3px solid #1a5c8f;outline-offset:2px;border-radius:2px}.kicker{margin:0;font-weight:600}.kicker a{text-decoration:none}
.issue-body{margin:1.25rem -1rem;overflow-x:auto}.issue-body>table{background-color:transparent !important}.issue-body>table>tbody>tr>td{padding:0 !important}nav.issues{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.75rem;border-top:1px solid #e4e7eb;padding-top:1rem}
nav.issues a{overflow-wrap:anywhere}nav.issues .all{flex-basis:100%;text-align:center}
@media (max-width:480px){body{margin:1rem auto;padding:0 .5rem}main{padding:1rem}.issue-body{margin:1rem -.5rem}}${WEB_CONTENT_STYLES}`;

/** No scripts, forms or framing; images of an issue may come from anywhere over https. */
const ARCHIVE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function page(c: Context<AppEnv>, title: string, body: string, status: 200 | 404 = 200) {
  c.header('Content-Security-Policy', ARCHIVE_CSP);
  c.header('Cache-Control', 'public, max-age=60');
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`,
    status,
  );
}

const notFound = (c: Context<AppEnv>) => page(c, 'Not found', '<h1>Not found</h1><p>This newsletter archive does not exist.</p>', 404);

/** A publication date as a reader reads it (`27 November 2026`), in a `<time>` carrying the exact instant. */
function dateOf(iso: string | null): string {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const text = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeZone: 'UTC' }).format(at);
  return `<time datetime="${esc(iso)}">${esc(text)}</time>`;
}

async function archiveOf(
  c: Context<AppEnv>,
  wsId: string,
  slug: string,
): Promise<{ ctx: ServiceContext; n: typeof newsletters.$inferSelect } | null> {
  const ctx = await publicWorkspaceContext(c.env, wsId, 'newsletters');
  if (!ctx) return null;
  const [n] = await ctx.db
    .select()
    .from(newsletters)
    .where(and(eq(newsletters.workspaceId, ctx.ws.id), eq(newsletters.slug, slug.toLowerCase())))
    .limit(1);
  return n?.archiveEnabled ? { ctx, n } : null;
}

const visible = (n: { id: string }) =>
  and(
    eq(newsletterIssues.newsletterId, n.id),
    eq(newsletterIssues.status, 'published'),
    eq(newsletterIssues.includeInArchive, true),
    isNotNull(newsletterIssues.issueNumber),
  );

const plain = tokenValues({});
/** A subject is plain text: its tokens resolve as text, then it is escaped once. */
const subjectOf = (subject: string | null, number: number | null) => esc(renderTextTokens(subject ?? '', plain, true) || `Issue #${number}`);
const listPath = (wsId: string, n: { slug: string }) => `/n/${encodeURIComponent(wsId)}/${encodeURIComponent(n.slug)}`;

archivePages.get('/:ws/:slug', async (c) => {
  const found = await archiveOf(c, c.req.param('ws'), c.req.param('slug'));
  if (!found) return notFound(c);
  const { ctx, n } = found;
  const issues = await ctx.db
    .select({ number: newsletterIssues.issueNumber, subject: newsletterIssues.subject, publishedAt: newsletterIssues.publishedAt })
    .from(newsletterIssues)
    .where(and(eq(newsletterIssues.workspaceId, ctx.ws.id), visible(n)))
    .orderBy(desc(newsletterIssues.issueNumber))
    .limit(500);
  const base = listPath(ctx.ws.id, n);
  const items = issues
    .map((i) => {
      const title = subjectOf(i.subject, i.number);
      const label = `<span>#${i.number} · ${dateOf(i.publishedAt)}</span>`;
      return `<li>${label}${n.archiveMode === 'full' ? `<a href="${base}/${i.number}">${title}</a>` : title}</li>`;
    })
    .join('');
  return page(
    c,
    n.name,
    `<h1>${esc(n.name)}</h1>${n.description ? `<p class="meta">${esc(n.description)}</p>` : ''}${items ? `<ol class="issues">${items}</ol>` : '<p>No issues yet.</p>'}`,
  );
});

archivePages.get('/:ws/:slug/:number', async (c) => {
  const found = await archiveOf(c, c.req.param('ws'), c.req.param('slug'));
  const number = Number(c.req.param('number'));
  if (!found || !Number.isSafeInteger(number) || found.n.archiveMode !== 'full') return notFound(c);
  const { ctx, n } = found;
  const inArchive = and(eq(newsletterIssues.workspaceId, ctx.ws.id), visible(n));
  const columns = { number: newsletterIssues.issueNumber, subject: newsletterIssues.subject };
  const [[issue], [previous], [next]] = await Promise.all([
    ctx.db
      .select({ ...columns, html: newsletterIssues.compiledHtml, publishedAt: newsletterIssues.publishedAt })
      .from(newsletterIssues)
      .where(and(inArchive, eq(newsletterIssues.issueNumber, number)))
      .limit(1),
    ctx.db
      .select(columns)
      .from(newsletterIssues)
      .where(and(inArchive, lt(newsletterIssues.issueNumber, number)))
      .orderBy(desc(newsletterIssues.issueNumber))
      .limit(1),
    ctx.db
      .select(columns)
      .from(newsletterIssues)
      .where(and(inArchive, gt(newsletterIssues.issueNumber, number)))
      .orderBy(asc(newsletterIssues.issueNumber))
      .limit(1),
  ]);
  if (!issue?.html) return notFound(c);
  const base = listPath(ctx.ws.id, n);
  const content = webContent(issue.html);
  // Tokens render their fallbacks; an unsubscribe link written into the content leads to the archive, not to a dead `#`.
  const body = renderHtmlTokens(content.html, tokenValues({}, { unsubscribe_url: base }));
  const subject = subjectOf(issue.subject, issue.number);
  const nav = [
    previous
      ? `<a rel="prev" href="${base}/${previous.number}">← Previous: #${previous.number} ${subjectOf(previous.subject, previous.number)}</a>`
      : '',
    next ? `<a rel="next" href="${base}/${next.number}">Next: #${next.number} ${subjectOf(next.subject, next.number)} →</a>` : '',
    `<a class="all" href="${base}">All issues of ${esc(n.name)}</a>`,
  ].join('');
  return page(
    c,
    `${renderTextTokens(issue.subject ?? '', plain, true) || `Issue #${issue.number}`} · ${n.name}`,
    `<p class="kicker"><a href="${base}">${esc(n.name)}</a></p><h1>${subject}</h1>` +
      `<p class="meta">Issue #${issue.number}${issue.publishedAt ? ` · ${dateOf(issue.publishedAt)}` : ''}</p>` +
      `<div class="issue-body" dir="${content.dir}">${body}</div><nav class="issues" aria-label="Issues">${nav}</nav>`,
  );
});
