/// <reference types="vite/client" />
import { describe, expect, it } from 'vitest';
import pkg from '../../package.json';
import { EVENT_TYPES } from '../../src/platform/event-catalog';
import { LIVE_EVENT_TYPES } from '../../src/modules/events/payloads';
import { call } from '../support/harness';
import { ROUTES, type RouteCase } from '../support/routes';

/**
 * The README, CHANGELOG, CONTRIBUTING and docs/ are the user's guide: they stand
 * on their own, with no pointer to files outside this repository, every relative
 * link resolves, and what they state about the server is held to the server here.
 */
const rawFiles = (files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).map(([path, text]) => [path.replace('../../', ''), text]));

const pages: Record<string, string> = {
  'README.md': (await import('../../README.md?raw')).default,
  'CHANGELOG.md': (await import('../../CHANGELOG.md?raw')).default,
  'CONTRIBUTING.md': (await import('../../CONTRIBUTING.md?raw')).default,
  ...rawFiles(import.meta.glob('../../docs/*.md', { query: '?raw', import: 'default', eager: true }) as Record<string, string>),
};
const sources = rawFiles(import.meta.glob('../../src/**/*.ts', { query: '?raw', import: 'default', eager: true }) as Record<string, string>);
const envSource = sources['src/env.ts'];
const wranglerToml = (await import('../../wrangler.toml?raw')).default;
const files = new Set(
  Object.keys(
    import.meta.glob(['../../*', '../../docs/*', '../../client/*', '../../bench/*', '../../src/**/*', '../../scripts/*'], {
      query: '?url',
      eager: false,
    }),
  ).map((p) => p.replace('../../', '')),
);

const readme = pages['README.md'];

/** The text of a `## ` section of a markdown page, up to the next `## ` heading. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start, `section "## ${heading}"`).toBeGreaterThanOrEqual(0);
  const next = text.indexOf('\n## ', start + 1);
  return text.slice(start, next < 0 ? undefined : next);
}

/** The cells of a markdown table's body rows (header and separator left out). */
function tableRows(text: string): string[][] {
  const rows = text.split('\n').filter((line) => line.startsWith('|'));
  return rows.slice(2).map((line) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim()),
  );
}

const codeSpans = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');

describe('README, CHANGELOG, CONTRIBUTING and docs/', () => {
  it('point at nothing outside the repository', () => {
    for (const [name, text] of Object.entries(pages)) {
      for (const outside of ['../shared', 'shared/', 'DECISIONS.md', 'OPERATOR-API', 'Part 1 table', 'TOOLCHAIN.md', 'ARCHITECTURE.md']) {
        expect(text.includes(outside), `${name} mentions ${outside}`).toBe(false);
      }
    }
  });

  it('name no section of a document outside the repository, nor do the source files', () => {
    const names = ['Part 1', 'Part 2', 'Part 3', 'ARCHITECTURE', 'shared/spec', 'DECISIONS.md'];
    const texts = { ...pages, ...sources };
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    for (const [name, text] of Object.entries(texts)) {
      for (const outside of names) expect(text.includes(outside), `${name} mentions ${outside}`).toBe(false);
    }
  });

  it('link only to files that exist', () => {
    for (const [name, text] of Object.entries(pages)) {
      const dir = name.includes('/') ? name.slice(0, name.lastIndexOf('/') + 1) : '';
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/i.test(target)) continue;
        const resolved = new URL(target, `file:///repo/${dir}`).pathname.replace('/repo/', '').replace(/\/$/, '');
        const exists = files.has(resolved) || [...files].some((f) => f.startsWith(`${resolved}/`));
        expect(exists, `${name} links to ${target}`).toBe(true);
      }
    }
  });
});

describe('README', () => {
  it('explains the default country and the two error shapes', () => {
    expect(readme).toContain('default_country');
    expect(readme).toMatch(/\*\*`US`\*\*/);
    expect(readme).toContain('{"error": {"code"');
    expect(readme).toContain('"statusCode"');
  });

  it('stays short, with a table of contents linking every section', () => {
    expect(readme.split('\n').length).toBeLessThan(600);
    const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]).filter((h) => h !== 'Contents');
    const contents = section(readme, 'Contents');
    const links = [...contents.matchAll(/\]\(#([^)]+)\)/g)].map((m) => m[1]);
    expect(links).toEqual(headings.map(anchor));
    for (const required of [
      'Quick start (five minutes)',
      'Commands',
      'Configuration',
      'Operator API',
      'Spec coverage',
      'Changelog of contract decisions',
    ]) {
      expect(headings).toContain(required);
    }
  });

  it('lists every binding, var and secret the Worker reads under "Configuration"', () => {
    const bindings = envSource.slice(
      envSource.indexOf('export interface Bindings'),
      envSource.indexOf('\n}', envSource.indexOf('export interface Bindings')),
    );
    const names = [...bindings.matchAll(/^\s+([A-Z][A-Z0-9_]*)\??:/gm)].map((m) => m[1]);
    expect(names.length).toBeGreaterThan(20);
    const configuration = codeSpans(section(readme, 'Configuration'));
    for (const name of names) expect(configuration, name).toContain(name);
  });

  it('names exactly the routes whose errors answer the domain envelope (the route table decides)', () => {
    const entries = tableRows(section(readme, 'Errors')).flatMap((cells) => codeSpans(cells[1]));
    expect(entries.length).toBeGreaterThan(0);
    const covers = (entry: string, route: RouteCase) => {
      const [method, path] = entry.includes(' ') ? entry.split(' ') : [null, entry];
      expect(path, entry).toMatch(/^\/v1\//);
      return (method === null || method === route.method) && (route.path === path || route.path.startsWith(`${path}/`));
    };
    for (const route of ROUTES) {
      const listed = entries.some((entry) => covers(entry, route));
      expect(listed, `${route.method} ${route.path} (errorShape ${route.errorShape ?? 'framework'})`).toBe(route.errorShape === 'domain');
    }
    for (const entry of entries)
      expect(
        ROUTES.some((route) => covers(entry, route)),
        entry,
      ).toBe(true);
  });

  it('states the default and maximum `limit` of every paged list as the served document does', async () => {
    const res = await call('GET', '/v1/openapi.json');
    type Parameter = { name: string; in: string; schema?: { default?: number }; description?: string };
    const served = new Map<string, { limit: number; cap: number }>();
    for (const [path, item] of Object.entries(res.body.paths as Record<string, { get?: { parameters?: Parameter[] } }>)) {
      const limit = item.get?.parameters?.find((p) => p.name === 'limit' && p.in === 'query');
      if (!limit) continue;
      const cap = /(?:clamped to|one above \d+ is) (\d+)/.exec(limit.description ?? '');
      expect(cap, `${path}: the limit's description states its maximum`).not.toBeNull();
      served.set(path, { limit: limit.schema!.default!, cap: Number(cap![1]) });
    }
    const documented = new Map(
      tableRows(section(readme, 'Lists')).flatMap(([lists, limit, cap]) => {
        expect(lists, 'a list row names lists sharing their paging as `GET /v1/...`, comma-separated').toMatch(
          /^`GET \/v1\/[^`]+`(, `GET \/v1\/[^`]+`)*$/,
        );
        return lists.split(', ').map((list) => [list.slice(5, -1), { limit: Number(limit), cap: Number(cap) }] as const);
      }),
    );
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(served));
  });
});

describe('versions', () => {
  it('package.json, the served OpenAPI info.version and the newest CHANGELOG release agree', async () => {
    const changelog = pages['CHANGELOG.md'];
    expect(changelog).toMatch(/^## Unreleased$/m);
    const newest = /^## (\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\)$/m.exec(changelog);
    expect(newest, 'a `## <version> (<date>)` heading').not.toBeNull();
    const res = await call('GET', '/v1/openapi.json');
    expect(res.body.info.version).toBe(pkg.version);
    expect(newest![1]).toBe(pkg.version);
  });
});

describe('docs/events.md and docs/deploy.md', () => {
  it('call not live exactly the event types the OpenAPI document marks as not emitted', () => {
    const notLive = /^- Not live[^\n]*$/m.exec(pages['docs/events.md']);
    expect(notLive).not.toBeNull();
    const named = codeSpans(notLive![0]).filter((t) => (EVENT_TYPES as readonly string[]).includes(t));
    expect(named.sort()).toEqual(EVENT_TYPES.filter((t) => !LIVE_EVENT_TYPES.includes(t)).sort());
  });

  it('create every queue of wrangler.toml and set every var and secret the Worker reads', () => {
    const deploy = pages['docs/deploy.md'];
    const queues = new Set([...wranglerToml.matchAll(/^queue = "([^"]+)"/gm)].map((m) => m[1]));
    expect(queues.size).toBeGreaterThanOrEqual(2);
    for (const queue of queues) expect(deploy, queue).toContain(`npx wrangler queues create ${queue}`);
    const vars = [...envSource.matchAll(/^\s+([A-Z][A-Z0-9_]*)\?: string;/gm)].map((m) => m[1]);
    for (const name of vars) expect(deploy, name).toMatch(new RegExp(`\\b${name}\\b`));
  });
});
