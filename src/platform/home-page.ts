import type { Context } from 'hono';
import { accepts } from 'hono/accepts';
import { escapeHtml } from './html';

const NAME = 'Workspace API';
const KEY_HINT = 'Every /v1 request needs a workspace API key: Authorization: Bearer wsk_...';

/** Only the page's own inline style; nothing else loads, and no other site may frame it. */
const HOME_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * `GET /`: where to start. A browser (it asks for HTML first) gets a page of links; anything
 * else, `curl` and clients asking for `*\/*` included, gets the JSON it always got.
 */
export function home(c: Context) {
  const wanted = accepts(c, { header: 'Accept', supports: ['application/json', 'text/html'], default: 'application/json' });
  if (wanted !== 'text/html') return c.json({ name: NAME, docs: '/docs', openapi: '/v1/openapi.json', message: KEY_HINT });
  c.header('Content-Security-Policy', HOME_CSP);
  c.header('Vary', 'Accept');
  return c.html(homePage(new URL(c.req.url).origin));
}

function homePage(origin: string): string {
  const link = (path: string, label: string) =>
    `<li><a href="${escapeHtml(path)}">${escapeHtml(label)}</a> <code>${escapeHtml(origin + path)}</code></li>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${NAME}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1.25rem;line-height:1.5;color:#1f2328}
h1{font-size:1.6rem;margin-bottom:.25rem}p{color:#57606a}ul{padding-left:1.2rem}li{margin:.4rem 0}
code{font-size:.85em;background:#f6f8fa;padding:.1rem .3rem;border-radius:4px;word-break:break-all}
a{color:#0969da}
</style></head>
<body><main>
<h1>${NAME}</h1>
<p>Contacts, deals, payments, bookings, email, newsletters, WhatsApp and signed webhooks, for one workspace per API key.</p>
<ul>
${link('/docs', 'API reference')}
${link('/v1/openapi.json', 'OpenAPI 3.1 document')}
</ul>
<p>${escapeHtml(KEY_HINT)}</p>
</main></body></html>`;
}
