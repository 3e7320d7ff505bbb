import { Hono, type Context } from 'hono';
import type { AppEnv } from '../../platform/app-env';
import { publishCommitted } from '../../platform/outbox';
import { signalsCommitted } from '../../platform/signals';
import { limitPublicPost } from '../../platform/public-limits';
import { escapeHtml as esc, parseUnsubscribeToken, type UnsubscribeKind } from '../content';
import { campaignOfToken, unsubscribeCampaignRecipient } from '../email-campaigns';
import { automationOfToken, unsubscribeAutomationRecipient } from '../automations';
import { newsletterOfToken, type UnsubscribeTarget, unsubscribeByToken } from '../newsletters';
import { readSender } from '../sender-profiles';
import { publicWorkspaceContext } from '../workspaces';
import type { ServiceContext } from '../../platform/context';

/*
 * The hosted unsubscribe page. GET shows a confirmation button (link scanners
 * that open the URL unsubscribe nobody); POST unsubscribes, whether it comes
 * from the button or from a mailbox provider's RFC 8058 one-click POST
 * (`List-Unsubscribe=One-Click`). The page names the sender the email came
 * from (its sender profile's name) and the address, masked; a token already
 * unsubscribed says so, without the button.
 */
export const unsubscribePages = new Hono<AppEnv>();

const STYLE = `body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1f2933;background:#f8fafc}
main{background:#fff;border:1px solid #d9e2ec;border-radius:12px;padding:1.5rem 2rem;overflow-wrap:anywhere}h1{font-size:1.4rem}.address{color:#3e4c59}
button{background:#b71c1c;color:#fff;border:0;border-radius:6px;padding:.6rem 1.2rem;font-size:1rem;cursor:pointer}button:hover{background:#8e1515}
button:focus-visible{outline:3px solid #1f2933;outline-offset:2px}@media (max-width:480px){body{margin:1rem auto;padding:0 .75rem}main{padding:1.25rem}}`;

function page(c: Context<AppEnv>, title: string, body: string, status: 200 | 404 = 200) {
  // The button unsubscribes: no other site may frame it to trick a click.
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
  c.header('Cache-Control', 'no-store');
  c.header('Referrer-Policy', 'no-referrer');
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`,
    status,
  );
}

const unknown = (c: Context<AppEnv>) => page(c, 'Link not valid', '<h1>This link is not valid</h1><p>It may have been mistyped.</p>', 404);

type Target = UnsubscribeTarget | null;
const KINDS: Record<
  UnsubscribeKind,
  {
    find: (ctx: ServiceContext, token: string) => Promise<Target>;
    unsubscribe: (ctx: ServiceContext, token: string) => Promise<{ name: string } | null>;
  }
> = {
  newsletter: { find: newsletterOfToken, unsubscribe: unsubscribeByToken },
  campaign: { find: campaignOfToken, unsubscribe: unsubscribeCampaignRecipient },
  automation: { find: automationOfToken, unsubscribe: unsubscribeAutomationRecipient },
};

/** An address as the page shows it: the first character of the local part, then `***` (`j***@example.com`). */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${[...email.slice(0, at)][0]}***${email.slice(at)}`;
}

/** The workspace context and handlers of a token, or null when it is malformed or names no workspace. */
async function resolve(c: Context<AppEnv>) {
  const token = c.req.param('token') ?? '';
  const parsed = parseUnsubscribeToken(token);
  const ctx = parsed ? await publicWorkspaceContext(c.env, parsed.workspaceId) : null;
  return parsed && ctx ? { token, ctx, kind: KINDS[parsed.kind] } : null;
}

/** Who the email came from: its sender profile's name (the workspace's default verified one when it names none), else the workspace's. */
async function senderName(ctx: ServiceContext, target: UnsubscribeTarget): Promise<string> {
  const [profile] = await readSender(ctx.db, ctx.ws.id, target.senderProfileId ?? undefined);
  return profile?.from_name || ctx.ws.name;
}

/** "Demo Weekly from Demo Shop", and the masked address line. */
async function describeTarget(ctx: ServiceContext, target: UnsubscribeTarget) {
  const sender = await senderName(ctx, target);
  const what = `<strong>${esc(target.name)}</strong> from <strong>${esc(sender)}</strong>`;
  const address = target.email ? `<p class="address">Address: <strong>${esc(maskEmail(target.email))}</strong></p>` : '';
  return { what, address };
}

const alreadyPage = (c: Context<AppEnv>, what: string, address: string) =>
  page(c, 'Already unsubscribed', `<h1>You are already unsubscribed</h1><p>You no longer receive ${what}.</p>${address}`);

unsubscribePages.get('/:token', async (c) => {
  const found = await resolve(c);
  const target = found ? await found.kind.find(found.ctx, found.token) : null;
  if (!found || !target) return unknown(c);
  const { what, address } = await describeTarget(found.ctx, target);
  if (target.unsubscribed) return alreadyPage(c, what, address);
  return page(
    c,
    'Unsubscribe',
    `<h1>Unsubscribe</h1><p>Stop receiving ${what}?</p>${address}<form method="post"><button type="submit">Unsubscribe</button></form>`,
  );
});

unsubscribePages.post('/:token', limitPublicPost('unsubscribe'), async (c) => {
  const found = await resolve(c);
  const target = found ? await found.kind.find(found.ctx, found.token) : null;
  const done = found && target ? await found.kind.unsubscribe(found.ctx, found.token) : null;
  if (!found || !target || !done) return unknown(c);
  if (found.ctx.events.committed.length) c.executionCtx.waitUntil(publishCommitted(c.env, found.ctx.db, found.ctx.events.committed));
  if (found.ctx.events.signalled.size) c.executionCtx.waitUntil(signalsCommitted(c.env, found.ctx.events.signalled));
  const { what, address } = await describeTarget(found.ctx, target);
  if (target.unsubscribed) return alreadyPage(c, what, address);
  return page(c, 'Unsubscribed', `<h1>You are unsubscribed</h1><p>You will no longer receive ${what}.</p>${address}`);
});
