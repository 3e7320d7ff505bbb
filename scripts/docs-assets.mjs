#!/usr/bin/env node
// Copies the API reference viewer (the pinned `@scalar/api-reference` browser
// bundle) into `public/docs/`, the static assets the Worker serves at `/docs/...`.
// Runs before `wrangler dev`/`wrangler deploy` (wrangler.toml `[build]`) and
// before the tests (vitest.config.ts), so the page never needs another host.
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The files served under `/docs/`, by public name, from their installed package. */
export const DOCS_ASSETS = {
  'scalar-api-reference.js': 'node_modules/@scalar/api-reference/dist/browser/standalone.js',
};

export function copyDocsAssets() {
  const out = join(root, 'public', 'docs');
  mkdirSync(out, { recursive: true });
  for (const [name, source] of Object.entries(DOCS_ASSETS)) {
    const from = join(root, source);
    if (!existsSync(from)) throw new Error(`${source} is missing: run npm ci`);
    const to = join(out, name);
    if (existsSync(to) && statSync(to).size === statSync(from).size && readFileSync(to).equals(readFileSync(from))) continue;
    copyFileSync(from, to);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) copyDocsAssets();
