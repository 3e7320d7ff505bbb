import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../env';
import { publishCommitted } from '../../platform/events';
import { limitPublicPost } from '../../platform/public-limits';
import { escapeHtml as esc, parseUnsubscribeToken, type UnsubscribeKind } from '../content';
import { campaignOfToken, unsubscribeCampaignRecipient } from '../email-campaigns';
import { newsletterOfToken, unsubscribeByToken } from '../newsletters';
import { publicWorkspaceContext } from '../workspaces';
import type { ServiceContext } from '../../platform/context';

/*
 * The hosted unsubscribe page. GET shows a confirmation button (link scanners
 * that open the URL unsubscribe nobody); POST unsubscribes, whether it comes
 * from the button or from a mailbox provider's RFC 8058 one-click POST
 * (`List-Unsubscribe=One-Click`).
 */
export const unsubscribePages = new Hono<AppEnv>();

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1f2933;background:#f8fafc}
main{background:#fff;border:1px solid #d9e2ec;border-radius:12px;padding:1.5rem 2rem}h1{font-size:1.4rem}button{background:#c62828;color:#fff;border:0;border-radius:6px;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}`;

function page(c: Context<AppEnv>, title: string, body: string, status: 200 | 404 = 200) {
  // The button unsubscribes: no other site may frame it to trick a click.
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`,
    status,
  );
}

const unknown = (c: Context<AppEnv>) => page(c, 'Link not valid', '<h1>This link is not valid</h1><p>It may have been mistyped.</p>', 404);

type Target = { name: string } | null;
const KINDS: Record<
  UnsubscribeKind,
  { find: (ctx: ServiceContext, token: string) => Promise<Target>; unsubscribe: (ctx: ServiceContext, token: string) => Promise<Target> }
> = {
  newsletter: { find: newsletterOfToken, unsubscribe: unsubscribeByToken },
  campaign: { find: campaignOfToken, unsubscribe: unsubscribeCampaignRecipient },
};

/** The workspace context and handlers of a token, or null when it is malformed or names no workspace. */
async function resolve(c: Context<AppEnv>) {
  const token = c.req.param('token') ?? '';
  const parsed = parseUnsubscribeToken(token);
  const ctx = parsed ? await publicWorkspaceContext(c.env, parsed.workspaceId) : null;
  return parsed && ctx ? { token, ctx, kind: KINDS[parsed.kind] } : null;
}

unsubscribePages.get('/:token', async (c) => {
  const found = await resolve(c);
  const target = found ? await found.kind.find(found.ctx, found.token) : null;
  if (!target) return unknown(c);
  return page(
    c,
    'Unsubscribe',
    `<h1>Unsubscribe</h1><p>Stop receiving ${esc(target.name)}?</p><form method="post"><button type="submit">Unsubscribe</button></form>`,
  );
});

unsubscribePages.post('/:token', limitPublicPost('unsubscribe'), async (c) => {
  const found = await resolve(c);
  const done = found ? await found.kind.unsubscribe(found.ctx, found.token) : null;
  if (!found || !done) return unknown(c);
  if (found.ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, found.ctx.db, found.ctx.events.committed));
  return page(c, 'Unsubscribed', `<h1>You are unsubscribed</h1><p>You will no longer receive ${esc(done.name)}.</p>`);
});
