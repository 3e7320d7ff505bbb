import { and, desc, eq, isNotNull } from 'drizzle-orm';
import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../env';
import type { ServiceContext } from '../../platform/context';
import { escapeHtml as esc, renderHtmlTokens, renderTextTokens, tokenValues } from '../content';
import { publicWorkspaceContext } from '../workspaces';
import { newsletterIssues, newsletters } from './schema';

/*
 * The public archive: `/n/{workspace_id}/{slug}` lists a newsletter's
 * published issues with `include_in_archive: true` (never drafts, scheduled or
 * hidden issues), newest first; `/n/{workspace_id}/{slug}/{issue_number}`
 * shows one (archive mode `full`). Plain server-rendered HTML, no scripts, no
 * external hosts; personalization tokens render their fallbacks.
 */
export const archivePages = new Hono<AppEnv>();

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1f2933;background:#f8fafc}
main{background:#fff;border:1px solid #d9e2ec;border-radius:12px;padding:1.5rem 2rem}h1{font-size:1.5rem;margin:.2rem 0}p.meta{color:#52606d;margin-top:0}
ol{list-style:none;padding:0}li{padding:.6rem 0;border-top:1px solid #e4e7eb}li span{color:#52606d;font-size:.9rem;margin-right:.6rem}a{color:#2680c2}`;

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
  const plain = tokenValues({});
  const items = issues
    .map((i) => {
      // The subject is plain text: its tokens resolve as text, then it is escaped once.
      const title = esc(renderTextTokens(i.subject ?? '', plain, true));
      const label = `<span>#${i.number} · ${esc((i.publishedAt ?? '').slice(0, 10))}</span>`;
      return `<li>${label}${n.archiveMode === 'full' ? `<a href="${esc(n.slug)}/${i.number}">${title}</a>` : title}</li>`;
    })
    .join('');
  return page(
    c,
    n.name,
    `<h1>${esc(n.name)}</h1>${n.description ? `<p class="meta">${esc(n.description)}</p>` : ''}${items ? `<ol>${items}</ol>` : '<p>No issues yet.</p>'}`,
  );
});

archivePages.get('/:ws/:slug/:number', async (c) => {
  const found = await archiveOf(c, c.req.param('ws'), c.req.param('slug'));
  const number = Number(c.req.param('number'));
  if (!found || !Number.isSafeInteger(number) || found.n.archiveMode !== 'full') return notFound(c);
  const { ctx, n } = found;
  const [issue] = await ctx.db
    .select({ html: newsletterIssues.compiledHtml })
    .from(newsletterIssues)
    .where(and(eq(newsletterIssues.workspaceId, ctx.ws.id), visible(n), eq(newsletterIssues.issueNumber, number)))
    .limit(1);
  if (!issue?.html) return notFound(c);
  c.header('Content-Security-Policy', ARCHIVE_CSP);
  c.header('Cache-Control', 'public, max-age=60');
  return c.html(renderHtmlTokens(issue.html, tokenValues({}, { unsubscribe_url: '#' })));
});
