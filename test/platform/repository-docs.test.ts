/// <reference types="vite/client" />
import { describe, expect, it } from 'vitest';

/**
 * The README and docs/ are the user's guide: they stand on their own, with no
 * pointer to files outside this repository, and every relative link resolves.
 */
const pages: Record<string, string> = {
  'README.md': (await import('../../README.md?raw')).default,
  ...Object.fromEntries(
    Object.entries(import.meta.glob('../../docs/*.md', { query: '?raw', import: 'default', eager: true }) as Record<string, string>).map(([path, text]) => [
      path.replace('../../', ''),
      text,
    ]),
  ),
};
const files = new Set(
  Object.keys(import.meta.glob(['../../*', '../../docs/*', '../../client/*', '../../bench/*', '../../src/**/*', '../../scripts/*'], { query: '?url', eager: false })).map((p) =>
    p.replace('../../', ''),
  ),
);

describe('README and docs/', () => {
  it('point at nothing outside the repository', () => {
    for (const [name, text] of Object.entries(pages)) {
      for (const outside of ['../shared', 'shared/', 'DECISIONS.md', 'OPERATOR-API', 'Part 1 table', 'TOOLCHAIN.md', 'ARCHITECTURE.md']) {
        expect(text.includes(outside), `${name} mentions ${outside}`).toBe(false);
      }
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

  it('explain the default country and the two error shapes in the README', () => {
    const readme = pages['README.md'];
    expect(readme).toContain('default_country');
    expect(readme).toMatch(/\*\*`US`\*\*/);
    expect(readme).toContain('{"error": {"code"');
    expect(readme).toContain('"statusCode"');
  });
});
