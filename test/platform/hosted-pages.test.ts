import { env, exports } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { manageUrl } from '../../src/modules/bookings/confirmation';
import { shardDb } from '../../src/platform/d1/shards';
import { book, futureHour, setupType } from '../bookings/helpers';
import { emailWorkspace } from '../email/support';
import { readyIssue, subscribe } from '../newsletters/support';
import { mint } from '../payment-requests/helpers';
import { rowsIn } from '../support/db';
import { ADMIN_TOKEN, call } from '../support/harness';

/** A browser's request: redirects answered, not followed; the body as text. */
async function open(method: string, path: string, form?: Record<string, string>) {
  const res: Response = await (exports as any).default.fetch(
    new Request(`https://api.test${path}`, {
      method,
      redirect: 'manual',
      ...(form ? { body: new URLSearchParams(form).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } } : {}),
    }),
  );
  return { status: res.status, headers: res.headers, body: await res.text() };
}

/** The directives of a Content-Security-Policy header, by name. */
function directives(csp: string | null): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of (csp ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out[name] = values;
  }
  return out;
}

const sha256Base64 = async (text: string) =>
  btoa(String.fromCharCode(...new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))));
const inlineScripts = (html: string) => [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);

/** One workspace with a record behind every hosted page, each named with characters HTML escapes. */
type Fixture = {
  pages: { name: string; method: string; path: string; form?: Record<string, string>; status: number; frameable: boolean }[];
  bookingPath: string;
  embedKey: string;
  manage: string;
};
let fx: Fixture;

beforeAll(async () => {
  const { ws } = await emailWorkspace({ name: 'Q&A "Co"' });
  const { mt } = await setupType({ ws, type: { name: 'Q&A <call>' } });
  const embed = (await ws.api('GET', `/v1/meeting-types/${mt.id}/embed`)).body;
  const b = await book(ws, { meeting_type_id: mt.id, start_at: futureHour(1), invitee: { name: 'Ann & <Bo>', email: 'ann@example.com' } });
  const [{ shard }] = (await (env as any).DB.prepare('SELECT shard FROM workspaces WHERE id = ?').bind(ws.id).all()).results;
  const manage = new URL(await manageUrl(shardDb(env as any, shard), ws.id, 'https://api.test', b.body.id)).pathname;
  const pay = new URL((await mint(ws, { title: 'Q&A <seat>' })).pay_url).pathname;
  const n = (await ws.api('POST', '/v1/newsletters', { name: 'Q&A <Weekly>', description: 'Tips & "tricks"' })).body;
  const issue = await readyIssue(ws, n.id, 'Q&A: [[first_name : friends]] & more <3');
  expect((await ws.api('POST', `/v1/newsletter-issues/${issue.id}/publish`)).status).toBe(200);
  const contact = await ws.api('POST', '/v1/contacts', { email: 'sub@example.com' });
  await subscribe(ws, n.id, contact.body.id);
  const [{ unsubscribe_token: token, slug }] = await rowsIn<{ unsubscribe_token: string; slug: string }>(
    ws.id,
    'SELECT s.unsubscribe_token, n.slug FROM newsletter_subscriptions s JOIN newsletters n ON n.id = s.newsletter_id WHERE s.workspace_id = ?',
    ws.id,
  );
  const bookingPath = new URL(embed.page_url).pathname;
  const slot = { start_at: futureHour(2), timezone: 'UTC', name: 'Cy', email: 'cy@example.com' };
  fx = {
    bookingPath,
    embedKey: embed.embed_key,
    manage,
    pages: [
      { name: 'pay page', method: 'GET', path: pay, status: 200, frameable: false },
      { name: 'pay page, unknown token', method: 'GET', path: '/pay/nothing', status: 404, frameable: false },
      { name: 'booking page', method: 'GET', path: `${bookingPath}?tz=UTC`, status: 200, frameable: false },
      { name: 'booking page with its zone script', method: 'GET', path: bookingPath, status: 200, frameable: false },
      { name: 'booking page, embedded', method: 'GET', path: `${bookingPath}?tz=UTC&embed_key=${embed.embed_key}`, status: 200, frameable: true },
      {
        name: 'booking page re-rendered with a message, embedded',
        method: 'POST',
        path: bookingPath,
        form: { timezone: 'UTC', embed_key: embed.embed_key },
        status: 400,
        frameable: true,
      },
      { name: 'booked, embedded', method: 'POST', path: bookingPath, form: { ...slot, embed_key: embed.embed_key }, status: 200, frameable: true },
      { name: 'manage page', method: 'GET', path: manage, status: 200, frameable: false },
      { name: 'manage page, unknown token', method: 'GET', path: `${manage.slice(0, -3)}AAA`, status: 404, frameable: false },
      { name: 'unsubscribe page', method: 'GET', path: `/u/${token}`, status: 200, frameable: false },
      { name: 'unsubscribe page, unknown token', method: 'GET', path: `/u/${ws.id}.${'0'.repeat(32)}`, status: 404, frameable: false },
      { name: 'newsletter archive', method: 'GET', path: `/n/${ws.id}/${slug}`, status: 200, frameable: false },
      { name: 'newsletter archive issue', method: 'GET', path: `/n/${ws.id}/${slug}/1`, status: 200, frameable: false },
      { name: 'newsletter archive, unknown', method: 'GET', path: `/n/${ws.id}/no-such-newsletter`, status: 404, frameable: false },
      { name: 'API reference', method: 'GET', path: '/docs', status: 200, frameable: false },
    ],
  };
});

describe('hosted pages', () => {
  it('every page: nosniff; only the embedded booking page may be framed (CSP frame-ancestors), every other one is DENY and frame-ancestors none', async () => {
    for (const p of fx.pages) {
      const res = await open(p.method, p.path, p.form);
      expect(res.status, `${p.name}: ${res.body.slice(0, 300)}`).toBe(p.status);
      expect(res.headers.get('content-type'), p.name).toMatch(/^text\/html/);
      expect(res.headers.get('x-content-type-options'), p.name).toBe('nosniff');
      const csp = directives(res.headers.get('content-security-policy'));
      if (p.frameable) {
        expect(res.headers.get('x-frame-options'), p.name).toBeNull();
        expect(csp['frame-ancestors'], p.name).toEqual(['*']);
      } else {
        expect(res.headers.get('x-frame-options'), p.name).toBe('DENY');
        expect(csp['frame-ancestors'], p.name).toEqual(["'none'"]);
      }
      // No page runs an inline script the policy does not name.
      expect(csp['script-src'] ?? [], p.name).not.toContain("'unsafe-inline'");
    }
  });

  it("the booking page's script runs by its hash, never by 'unsafe-inline'", async () => {
    const res = await open('GET', fx.bookingPath);
    const scripts = inlineScripts(res.body);
    expect(scripts).toHaveLength(1);
    const csp = directives(res.headers.get('content-security-policy'));
    // The zone script and the embed's height script, each by its hash.
    expect(csp['script-src']).toHaveLength(2);
    expect(csp['script-src']).toContain(`'sha256-${await sha256Base64(scripts[0])}'`);
    for (const source of csp['script-src']) expect(source).toMatch(/^'sha256-[A-Za-z0-9+/]+=*'$/);
    expect(csp['default-src']).toEqual(["'none'"]);
    // An embedded page holds only the height script, allowed by its hash; every other page no inline script at all.
    for (const p of fx.pages.filter((p) => p.name !== 'booking page with its zone script')) {
      const answer = await open(p.method, p.path, p.form);
      const inline = inlineScripts(answer.body);
      if (p.frameable) {
        expect(inline, p.name).toHaveLength(1);
        expect(inline[0], p.name).toContain("postMessage({type:'booking-embed:height'");
        expect(directives(answer.headers.get('content-security-policy'))['script-src'], p.name).toContain(
          `'sha256-${await sha256Base64(inline[0])}'`,
        );
      } else expect(inline, p.name).toEqual(p.name === 'API reference' ? [''] : []);
    }
  });

  it('an embedded booking ends on a confirmation inside the frame that opens the manage page in a tab of its own', async () => {
    const { ws, mt } = await setupType();
    const embed = (await ws.api('GET', `/v1/meeting-types/${mt.id}/embed`)).body;
    const path = new URL(embed.page_url).pathname;
    const res = await open('POST', path, {
      start_at: futureHour(3),
      timezone: 'Europe/Berlin',
      name: 'Em Bed',
      email: 'em@example.com',
      embed_key: embed.embed_key,
    });
    expect(res.status).toBe(200);
    expect(res.body).toContain('You are booked');
    const link = /<a href="(https:\/\/api\.test\/book\/[^"]+\/manage\/[^"]+)" target="_blank" rel="noopener noreferrer">/.exec(res.body);
    expect(link, res.body).not.toBeNull();
    expect(res.body).not.toContain('<form');
    expect(res.body).not.toContain('<button');
    const manage = await open('GET', new URL(link![1]).pathname);
    expect(manage.status).toBe(200);
    expect(manage.body).toContain('Em Bed');
    expect(manage.headers.get('x-frame-options')).toBe('DENY');
    // The booking is made once, with the embed as its source; sent again, the same booking answers.
    const again = await open('POST', path, {
      start_at: futureHour(3),
      timezone: 'Europe/Berlin',
      name: 'Em Bed',
      email: 'em@example.com',
      embed_key: embed.embed_key,
    });
    expect(again.status).toBe(200);
    expect(await rowsIn(ws.id, 'SELECT source FROM bookings WHERE workspace_id = ?', ws.id)).toEqual([{ source: 'embed' }]);
  });

  it('every page escapes what it shows exactly once', async () => {
    const shown: Record<string, string> = {
      'pay page': 'Q&amp;A &lt;seat&gt;',
      'booking page': 'Q&amp;A &lt;call&gt;',
      'booking page, embedded': 'Q&amp;A &lt;call&gt;',
      'manage page': 'Ann &amp; &lt;Bo&gt;',
      'unsubscribe page': 'Q&amp;A &lt;Weekly&gt;',
      'newsletter archive': 'Q&amp;A: friends &amp; more &lt;3',
      'newsletter archive issue': '<title>Q&amp;A: friends &amp; more &lt;3 · Q&amp;A &lt;Weekly&gt;</title>',
    };
    for (const p of fx.pages) {
      const { body } = await open(p.method, p.path, p.form);
      expect(body, p.name).not.toMatch(/&amp;(amp|lt|gt|quot|#\d+);/);
      if (shown[p.name])
        expect(
          body.replace(/&#(\d+);/g, (_, n) => ({ 38: '&amp;', 60: '&lt;', 62: '&gt;' })[n as '38'] ?? `&#${n};`),
          p.name,
        ).toContain(shown[p.name]);
    }
    const archive = (await open('GET', fx.pages.find((p) => p.name === 'newsletter archive')!.path)).body;
    expect(archive).toContain('<h1>Q&amp;A &lt;Weekly&gt;</h1>');
    expect(archive).toContain('Tips &amp; &quot;tricks&quot;');
    expect(archive).toContain('<title>Q&amp;A &lt;Weekly&gt;</title>');
  });
});

describe('every answer', () => {
  it('carries nosniff and refuses framing: JSON, errors, redirects, scripts, pixels', async () => {
    const ws = await emailWorkspace();
    const answers = [
      await call('GET', '/'),
      await call('GET', '/v1/openapi.json'),
      await call('GET', '/v1/nothing-here'),
      await ws.ws.api('GET', '/v1/contacts'),
      await call('POST', '/admin/v1/workspaces', { key: 'wrong', body: {} }),
      await call('GET', `/admin/v1/workspaces/${ws.ws.id}`, { key: ADMIN_TOKEN }),
      await call('GET', '/book/embed.js'),
      await call('GET', '/t/o/not-a-token'),
      await call('OPTIONS', '/v1/contacts'),
      await open('POST', `${fx.manage}/cancel`, { reason: 'changed plans' }),
    ];
    for (const res of answers) {
      expect(res.headers.get('x-content-type-options'), `${res.status}`).toBe('nosniff');
      expect(res.headers.get('x-frame-options'), `${res.status}`).toBe('DENY');
    }
  });
});
