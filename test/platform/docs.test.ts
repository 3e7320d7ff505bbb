import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { call } from '../support/harness';

/** Every URL an HTML page makes the browser load or follow: src, href, and the documents of the viewer's configuration. */
function referencedUrls(html: string): string[] {
  const attributes = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
  const configuration = /data-configuration="([^"]*)"/.exec(html)?.[1].replaceAll('&quot;', '"').replaceAll('&amp;', '&');
  const sources = configuration ? (JSON.parse(configuration).sources as { url: string }[]).map((s) => s.url) : [];
  return [...attributes, ...sources];
}

describe('API reference page', () => {
  it('loads every file from this origin, and each answers 200', async () => {
    const page = await call('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = String(page.body);
    // No other host anywhere on the page, not even as text.
    expect(html).not.toMatch(/https?:\/\/|\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    const urls = referencedUrls(html);
    expect(urls).toEqual(expect.arrayContaining(['/v1/openapi.json', '/admin/v1/openapi.json', '/docs/scalar-api-reference.js']));
    for (const url of urls) {
      expect(url, url).toMatch(/^\/(?!\/)/);
      const res = await call('GET', url);
      expect(res.status, url).toBe(200);
    }
    const viewer = await call('GET', '/docs/scalar-api-reference.js');
    expect(viewer.headers.get('content-type')).toMatch(/javascript/);
    expect(String(viewer.body).length).toBeGreaterThan(100_000);
  });

  it('sends /docs/ to /docs for good (301), its query kept, where the page answers', async () => {
    for (const [path, location] of [
      ['/docs/', '/docs'],
      ['/docs/?api=operator', '/docs?api=operator'],
    ]) {
      const res = await SELF.fetch(`https://api.test${path}`, { redirect: 'manual' });
      expect([res.status, res.headers.get('location')], path).toEqual([301, location]);
    }
    const page = await SELF.fetch('https://api.test/docs/', { redirect: 'follow' });
    expect([page.status, page.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/html/)]);
    expect(await page.text()).toContain('Workspace API reference');
  });

  it('makes the viewer usable by keyboard and legible: its scrolling panes take focus, its theme meets AA contrast', async () => {
    const html = String((await call('GET', '/docs')).body);
    expect(referencedUrls(html)).toContain('/docs/keyboard.js');
    const script = await call('GET', '/docs/keyboard.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(String(script.body)).toContain("setAttribute('tabindex', '0')");
    const config = JSON.parse(
      html
        .match(/data-configuration="([^"]*)"/)![1]
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    );
    expect(config.customCss).toContain('--scalar-color-3: #595959');
  });

  it('lets the browser load nothing from another host', async () => {
    const page = await call('GET', '/docs');
    const csp = Object.fromEntries(
      (page.headers.get('content-security-policy') ?? '').split(';').map((d) => {
        const [name, ...sources] = d.trim().split(/\s+/);
        return [name, sources];
      }),
    );
    expect(csp['default-src']).toEqual(["'self'"]);
    for (const directive of ['script-src', 'style-src', 'img-src', 'font-src', 'connect-src', 'worker-src']) {
      for (const source of csp[directive] ?? []) expect(["'self'", "'unsafe-inline'", 'data:', 'blob:'], `${directive} ${source}`).toContain(source);
    }
    expect(csp['script-src']).toEqual(["'self'"]);
    // The viewer's own outbound features are switched off in its configuration.
    const config = JSON.parse(
      /data-configuration="([^"]*)"/
        .exec(String(page.body))![1]
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, '&'),
    );
    expect(config).toMatchObject({ withDefaultFonts: false, telemetry: false, agent: { disabled: true }, mcp: { disabled: true } });
  });

  it('answers an unknown file under /docs/ with the framework-shape 404', async () => {
    const res = await call('GET', '/docs/nothing-here.js');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ statusCode: 404 });
  });
});

describe('GET /', () => {
  it('points at the reference and the OpenAPI document without a key', async () => {
    const res = await call('GET', '/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ docs: '/docs', openapi: '/v1/openapi.json' });
    for (const path of [res.body.docs, res.body.openapi]) expect((await call('GET', path)).status, path).toBe(200);
    expect((await call('GET', '/', { headers: { accept: '*/*' } })).body).toEqual(res.body);
  });

  it('answers a browser with a page of links, each at its full address', async () => {
    const res = await SELF.fetch('https://api.test/', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('vary')).toMatch(/accept/i);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await res.text();
    expect(html).toContain('<a href="/docs">API reference</a> <code>https://api.test/docs</code>');
    expect(html).toContain('<a href="/v1/openapi.json">OpenAPI 3.1 document</a> <code>https://api.test/v1/openapi.json</code>');
  });
});
