import { describe, expect, it } from 'vitest';
import { applyTracking, signToken, verifyToken } from '../../src/modules/emails/tracking';
import { exports } from 'cloudflare:workers';
import { eventually } from '../support/harness';
import { emailEvents, emailWorkspace, outbox, reportEvent, send } from './support';

const HTML = [
  '<html><body>',
  '<p><a href="https://shop.example.com/orders/1?a=1&amp;b=2">Order</a></p>',
  '<p><a href="HTTP://Example.com/Path">Upper</a></p>',
  '<p><a href="mailto:help@example.com">Mail us</a> <a href="#top">Top</a> <a href="/relative">Rel</a> <a href="ftp://files.example.com/x">FTP</a></p>',
  `<p><a href="https://long.example.com/${'x'.repeat(2100)}">Long</a></p>`,
  '</body></html>',
].join('');

/** A GET that does not follow redirects (the harness's does). */
async function call(method: string, path: string, opts: { headers?: Record<string, string> } = {}) {
  const res: Response = await (exports as any).default.fetch(
    new Request(`https://api.test${path}`, { method, headers: opts.headers, redirect: 'manual' }),
  );
  const body = res.headers.get('content-type')?.startsWith('application/json') ? await res.json() : await res.arrayBuffer();
  return { status: res.status, headers: res.headers, body: body as any };
}

const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
const trackingPath = (url: string) => new URL(url).pathname + new URL(url).search;
const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

describe('tracking (rule 5)', () => {
  it('wraps absolute http(s) links in signed first-party redirects and appends a pixel; leaves the rest and the text part alone', async () => {
    const { ws } = await emailWorkspace();
    const text = 'Order at https://shop.example.com/orders/1';
    const res = await send(ws, { html: HTML, text, tracking: { opens: true, clicks: true } });
    expect(res.status).toBe(201);
    const [message] = await outbox(ws);
    expect(message.text).toBe(text);
    const links = hrefs(message.html);
    expect(links[0]).toMatch(/^https:\/\/api\.test\/t\/c\/[\w-]+\.[\w-]+$/);
    expect(links[1]).toMatch(/^https:\/\/api\.test\/t\/c\//);
    expect(links.slice(2, 6)).toEqual(['mailto:help@example.com', '#top', '/relative', 'ftp://files.example.com/x']);
    expect(links[6]).toMatch(/^https:\/\/long\.example\.com\//);
    expect(message.html).toMatch(/<img src="https:\/\/api\.test\/t\/o\/[\w-]+\.[\w-]+" width="1" height="1"[^>]*\/><\/body><\/html>$/);

    // The redirect forwards to the original URL, verbatim.
    const first = await call('GET', trackingPath(links[0]));
    expect(first.status).toBe(302);
    expect(first.headers.get('location')).toBe('https://shop.example.com/orders/1?a=1&b=2');
    expect((await call('GET', trackingPath(links[1]))).headers.get('location')).toBe('HTTP://Example.com/Path');
  });

  it('sends untracked without opting in', async () => {
    const { ws } = await emailWorkspace();
    await send(ws, { html: HTML });
    expect((await outbox(ws))[0].html).toBe(HTML);
  });

  it('sends untracked, never failing, without a tracking secret', async () => {
    const target = { secret: undefined, baseUrl: 'https://api.test', workspaceId: crypto.randomUUID(), sendId: crypto.randomUUID() };
    expect(await applyTracking(HTML, { opens: true, clicks: true }, target)).toBe(HTML);
    const tracked = await applyTracking(
      '<p>no body tag <a href="https://a.example">a</a></p>',
      { opens: true, clicks: false },
      { ...target, secret: 's' },
    );
    expect(tracked).toMatch(/^<p>no body tag <a href="https:\/\/a\.example">a<\/a><\/p><img src="https:\/\/api\.test\/t\/o\//);
  });

  it('answers 404 to an altered or foreign token, never a redirect', async () => {
    const { ws } = await emailWorkspace();
    await send(ws, { html: '<a href="https://good.example/">x</a>', tracking: { clicks: true } });
    const link = hrefs((await outbox(ws))[0].html)[0];
    const token = link.split('/t/c/')[1];
    const [body, mac] = token.split('.');
    const forged = await signToken('another-secret', { w: ws.id, s: crypto.randomUUID(), u: 'https://evil.example/' });
    const swapped = `${btoa(JSON.stringify({ w: ws.id, s: 'x', u: 'https://evil.example/' })).replace(/=+$/, '')}.${mac}`;
    const flipped = `${body}.${mac.slice(0, -2)}${mac.at(-2) === 'A' ? 'B' : 'A'}${mac.at(-1)}`;
    for (const bad of [forged, swapped, flipped, `${body}.`, body, 'garbage', `${token}.x`]) {
      const res = await call('GET', `/t/c/${bad}`);
      expect(res.status, bad).toBe(404);
      expect(res.headers.get('location')).toBeNull();
      expect((await call('GET', `/t/o/${bad}`)).status).toBe(404);
    }
    expect(await verifyToken('test-tracking-secret', token)).toMatchObject({ w: ws.id, u: 'https://good.example/' });
    // An open token is not a click token.
    expect((await call('GET', `/t/c/${await signToken('test-tracking-secret', { w: ws.id, s: crypto.randomUUID() })}`)).status).toBe(404);
  });

  it('fires email.opened for the first open only, with machine_open from the user agent', async () => {
    const { ws } = await emailWorkspace();
    const human = await send(ws, { html: '<p>Hi</p>', tracking: { opens: true }, metadata: { campaign: 'x' } });
    const pixel = trackingPath(hrefsOfImg((await outbox(ws))[0].html));
    const res = await call('GET', pixel, { headers: { 'user-agent': BROWSER } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/gif');
    await call('GET', pixel, { headers: { 'user-agent': BROWSER } });
    await call('GET', pixel, { headers: { 'user-agent': 'Googlebot/2.1 (+http://www.google.com/bot.html)' } });
    const events = await eventually(
      () => emailEvents(ws),
      (e) => e.length >= 1,
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(await emailEvents(ws)).toEqual([
      {
        type: 'email.opened',
        data: {
          send_id: human.body.id,
          idempotency_key: human.body.idempotency_key,
          to: 'ada@example.com',
          metadata: { campaign: 'x' },
          machine_open: false,
        },
      },
    ]);
    expect(events).toHaveLength(1);

    const scanner = await emailWorkspace();
    await send(scanner.ws, { html: '<p>Hi</p>', tracking: { opens: true } });
    await call('GET', trackingPath(hrefsOfImg((await outbox(scanner.ws))[0].html)), {
      headers: { 'user-agent': 'Mozilla/5.0 (compatible; Barracuda Sentinel)' },
    });
    const [scanned] = await eventually(
      () => emailEvents(scanner.ws),
      (e) => e.length === 1,
    );
    expect(scanned.data.machine_open).toBe(true);
  });

  it('fires email.clicked for the first click only, and a click does not imply an open', async () => {
    const { ws } = await emailWorkspace();
    const sent = await send(ws, {
      html: '<a href="https://a.example/1">1</a><a href="https://a.example/2">2</a>',
      tracking: { opens: true, clicks: true },
    });
    const [one, two] = hrefs((await outbox(ws))[0].html);
    await call('GET', trackingPath(one));
    await eventually(
      () => emailEvents(ws),
      (e) => e.length === 1,
    );
    await call('GET', trackingPath(two));
    await new Promise((r) => setTimeout(r, 200));
    expect(await emailEvents(ws)).toEqual([
      {
        type: 'email.clicked',
        data: { send_id: sent.body.id, idempotency_key: sent.body.idempotency_key, to: 'ada@example.com', url: 'https://a.example/1' },
      },
    ]);
  });

  it('wraps links with spaces or non-ASCII and redirects to them percent-encoded; leaves links holding control characters unwrapped', async () => {
    const { ws } = await emailWorkspace();
    const wrapped = ['https://example.com/ø?q=ü', 'https://example.com/a b?x=€😀', 'https://example.com/%C3%B8?already=%20'];
    const unwrapped = [
      'https://example.com/a&#13;&#10;Set-Cookie: x=1',
      'https://example.com/b\r\nLocation: https://evil.example',
      'https://example.com/c\u007fd',
      'https://example.com/e&#127;f',
      'https://example.com/f&#9;g',
      'https://example.com/g\u0085h',
    ];
    const html = [...wrapped, ...unwrapped].map((u, i) => `<a href="${u}">${i}</a>`).join('');
    const res = await send(ws, { html, tracking: { clicks: true } });
    expect(res.status).toBe(201);
    const links = hrefs((await outbox(ws))[0].html);
    expect(links.slice(wrapped.length)).toEqual(unwrapped);
    for (const [i, intended] of wrapped.entries()) {
      expect(links[i]).toMatch(/^https:\/\/api\.test\/t\/c\//);
      const redirect = await call('GET', trackingPath(links[i]));
      expect(redirect.status).toBe(302);
      const location = redirect.headers.get('location')!;
      expect(location, intended).toMatch(/^[\x21-\x7e]+$/);
      expect(decodeURI(location)).toBe(decodeURI(intended));
    }
    expect((await call('GET', trackingPath(links[0]))).headers.get('location')).toBe('https://example.com/%C3%B8?q=%C3%BC');
  });

  it('answers a signed link to a target holding control characters with a 302 to its percent-encoded form, never a 500', async () => {
    const { ws } = await emailWorkspace();
    const targets = {
      'https://example.com/a\r\nSet-Cookie: x=1': 'https://example.com/a%0D%0ASet-Cookie:%20x=1',
      'https://example.com/\u0000\t\u000b\u001b\u007f': 'https://example.com/%00%09%0B%1B%7F',
      'https://example.com/\u0085\u2028ø': 'https://example.com/%C2%85%E2%80%A8%C3%B8',
      'https://example.com/\ud800x': 'https://example.com/%EF%BF%BDx',
    };
    for (const [target, location] of Object.entries(targets)) {
      const token = await signToken('test-tracking-secret', { w: ws.id, s: crypto.randomUUID(), u: target });
      const res = await call('GET', `/t/c/${token}`);
      expect(res.status, JSON.stringify(target)).toBe(302);
      expect(res.headers.get('location')).toBe(location);
    }
  });

  it('fires no engagement event for a send that did not opt in', async () => {
    const { ws } = await emailWorkspace();
    const sent = await send(ws, { tracking: { clicks: true } });
    expect((await reportEvent(sent.body.id, { type: 'opened' })).recorded).toBe(true);
    expect(await emailEvents(ws)).toEqual([]);
  });
});

function hrefsOfImg(html: string): string {
  return /<img src="([^"]+)"/.exec(html)![1];
}

describe('tracking cost', () => {
  it('imports the signing key once per message, however many links it wraps', async () => {
    const html = `<body>${Array.from({ length: 20 }, (_, i) => `<a href="https://shop.example.com/p/${i}">${i}</a>`).join('')}</body>`;
    const importKey = crypto.subtle.importKey.bind(crypto.subtle);
    let imports = 0;
    crypto.subtle.importKey = ((...args: Parameters<typeof importKey>) => {
      imports++;
      return importKey(...args);
    }) as typeof crypto.subtle.importKey;
    try {
      const tracked = await applyTracking(
        html,
        { opens: true, clicks: true },
        { secret: 'test-tracking-secret', baseUrl: 'https://api.test', workspaceId: 'w', sendId: 's' },
      );
      expect(hrefs(tracked).filter((h) => h.startsWith('https://api.test/t/c/'))).toHaveLength(20);
      expect(tracked).toContain('https://api.test/t/o/');
    } finally {
      crypto.subtle.importKey = importKey;
    }
    expect(imports).toBe(1);
    // Every token still verifies.
    const tokens = hrefs(
      await applyTracking(
        html,
        { opens: false, clicks: true },
        { secret: 'test-tracking-secret', baseUrl: 'https://api.test', workspaceId: 'w', sendId: 's' },
      ),
    ).map((h) => h.split('/t/c/')[1]);
    for (const [i, token] of tokens.entries())
      expect(await verifyToken('test-tracking-secret', token)).toEqual({ w: 'w', s: 's', u: `https://shop.example.com/p/${i}` });
  });
});
