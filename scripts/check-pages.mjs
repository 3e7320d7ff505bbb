#!/usr/bin/env node
// `npm run check:pages`: loads hosted pages of a running server in headless Chromium at 320, 390 and
// 1280 px and fails on horizontal overflow or on axe violations of impact serious or critical.
//
//   node scripts/check-pages.mjs [--base http://127.0.0.1:8787] [--state .state/demo.json]
//                                [--admin-token TOKEN] [--any-status] [path-or-url ...]
//
// With no paths it checks every hosted page of the seeded demo workspace (scripts/demo-seed.mjs):
// home, /docs, the pay page, the booking page, the manage page, the newsletter archive list and an
// issue, and the unsubscribe page. Links that only exist in sent email (manage, unsubscribe) are
// taken from the sandbox outbox; a page whose link cannot be found is reported as skipped.
// --any-status also checks error pages (a 404 page) instead of failing on their status.
// Environment: CHROMIUM (default /usr/bin/chromium), ADMIN_TOKEN, BASE_URL.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const WIDTHS = [320, 390, 1280];
const FAILING_IMPACTS = new Set(['serious', 'critical']);

/** The URL `npm start` recorded for the server it started, whatever its port. */
function recordedServer() {
  const file = join(root, '.state', 'server.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).url : null;
}

function parseArgs(argv) {
  const opts = {
    base: process.env.BASE_URL ?? recordedServer() ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`,
    state: join(root, '.state', 'demo.json'),
    adminToken: process.env.ADMIN_TOKEN ?? null,
    anyStatus: false,
    paths: [],
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--base') opts.base = argv[++i];
    else if (arg === '--state') opts.state = argv[++i];
    else if (arg === '--admin-token') opts.adminToken = argv[++i];
    else if (arg === '--any-status') opts.anyStatus = true;
    else if (arg === '--help' || arg === '-h') {
      console.log(
        readFileSync(fileURLToPath(import.meta.url), 'utf8')
          .split('\n')
          .slice(1)
          .filter((_line, i, all) => all.slice(0, i + 1).every((l) => l.startsWith('//')))
          .map((line) => line.replace(/^\/\/ ?/, ''))
          .join('\n'),
      );
      process.exit(0);
    } else opts.paths.push(arg);
  }
  opts.base = opts.base.replace(/\/+$/, '');
  if (!opts.adminToken) opts.adminToken = devVar('ADMIN_TOKEN') ?? 'dev-admin-token';
  return opts;
}

/** A variable of .dev.vars (what `npm start` writes), if there is one. */
function devVar(name) {
  const file = join(root, '.dev.vars');
  if (!existsSync(file)) return null;
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}=`));
  return line ? line.slice(name.length + 1).replace(/^"|"$/g, '') : null;
}

async function getJson(url, token) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET ${url}: ${res.status}`);
  return res.json();
}

/** Every hosted page of the seeded demo workspace: [label, path] pairs, or [label, null, why] when skipped. */
async function defaultPages({ base, state, adminToken }) {
  const pages = [
    ['home', '/'],
    ['api reference', '/docs'],
  ];
  if (!existsSync(state)) {
    console.warn(`No demo state at ${state} (pass --state): checking only the pages that need no workspace.`);
    return pages;
  }
  const { workspace_id: ws, api_key: key } = JSON.parse(readFileSync(state, 'utf8'));
  const api = (path) => getJson(`${base}${path}`, key);
  const local = (url) => {
    const u = new URL(url, base);
    return u.pathname + u.search;
  };

  const requests = await api('/v1/payment-requests?limit=100');
  const pay = requests.data.find((r) => r.status === 'pending') ?? requests.data[0];
  pages.push(pay ? ['pay page', local(pay.pay_url)] : ['pay page', null, 'no payment request']);

  const types = await api('/v1/meeting-types?limit=100');
  const type = types.data[0];
  pages.push(type ? ['booking page', `/book/${ws}/${type.slug}`] : ['booking page', null, 'no meeting type']);

  const outbox = await getJson(`${base}/admin/v1/workspaces/${ws}/outbox?limit=100`, adminToken).catch(() => ({ data: [] }));
  const links = (re) => outbox.data.flatMap((m) => `${m.html ?? ''} ${m.text ?? ''}`.match(re) ?? []);
  const manage = links(/\/book\/[^\s"'<>]+\/manage\/[^\s"'<>]+/g)[0];
  pages.push(manage ? ['manage page', manage] : ['manage page', null, 'no booking confirmation in the outbox']);

  const newsletters = await api('/v1/newsletters?limit=100');
  const n = newsletters.data[0] ? await api(`/v1/newsletters/${newsletters.data[0].id}`) : null;
  if (n) {
    pages.push(['archive list', `/n/${ws}/${n.slug}`]);
    const issues = await api(`/v1/newsletters/${n.id}/issues?limit=100`).catch(() => ({ data: [] }));
    const published = (issues.data ?? []).find((i) => i.issue_number != null && i.status === 'published');
    pages.push(published ? ['archive issue', `/n/${ws}/${n.slug}/${published.issue_number}`] : ['archive issue', null, 'no published issue']);
  } else pages.push(['archive list', null, 'no newsletter']);

  const unsubscribe = links(/\/u\/[A-Za-z0-9._~-]+/g)[0];
  pages.push(
    unsubscribe
      ? ['unsubscribe page', unsubscribe]
      : ['unsubscribe page', null, 'no newsletter or campaign email in the outbox (publish an issue to a subscriber, or pass the /u/ path)'],
  );
  return pages;
}

async function checkPage(browser, axeSource, url, { anyStatus }) {
  const problems = [];
  for (const width of WIDTHS) {
    const context = await browser.newContext({ viewport: { width, height: 900 }, bypassCSP: true });
    const page = await context.newPage();
    try {
      const res = await page.goto(url, { waitUntil: 'networkidle' });
      if (!res || (res.status() >= 400 && !anyStatus)) problems.push(`HTTP ${res ? res.status() : 'no response'}`);
      const overflow = await page.evaluate(() => ({
        scroll: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
        lang: document.documentElement.lang,
      }));
      if (overflow.scroll > overflow.viewport)
        problems.push(`${width}px: horizontal overflow (scrollWidth ${overflow.scroll} > ${overflow.viewport})`);
      if (!overflow.lang && width === WIDTHS[0]) problems.push('no lang on <html>');
      // The pages' CSP forbids scripts: the context bypasses it so axe can run.
      await page.evaluate(axeSource);
      const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
      for (const v of result.violations) {
        if (!FAILING_IMPACTS.has(v.impact)) continue;
        const targets = v.nodes
          .slice(0, 3)
          .map((node) => node.target.join(' '))
          .join(', ');
        problems.push(`${width}px: axe ${v.impact} ${v.id}: ${v.help} (${targets})`);
      }
    } catch (err) {
      problems.push(`${width}px: ${err.message.split('\n')[0]}`);
    } finally {
      await context.close();
    }
  }
  // The same violation at every width is one problem.
  return [...new Set(problems.map((p) => (p.includes('axe ') ? p.replace(/^\d+px: /, '') : p)))];
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const pages = opts.paths.length ? opts.paths.map((p) => [p, p]) : await defaultPages(opts);
  const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu'],
  });
  let failed = 0;
  let skipped = 0;
  try {
    for (const [label, path, why] of pages) {
      if (!path) {
        skipped++;
        console.log(`SKIP  ${label}: ${why}`);
        continue;
      }
      const url = new URL(path, `${opts.base}/`).href;
      const problems = await checkPage(browser, axeSource, url, opts);
      if (problems.length) failed++;
      console.log(`${problems.length ? 'FAIL' : 'ok  '}  ${label === path ? path : `${label} (${path})`}`);
      for (const p of problems) console.log(`        ${p}`);
    }
  } finally {
    await browser.close();
  }
  const checked = pages.length - skipped;
  console.log(
    `\n${checked} page(s) at ${WIDTHS.join('/')} px: ${checked - failed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}.`,
  );
  process.exit(failed ? 1 : 0);
}

await main();
