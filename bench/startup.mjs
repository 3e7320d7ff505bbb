// `node bench/startup.mjs [rounds]`: what a new isolate pays before it answers, as workerd CPU (from
// /proc, all of its threads), not wall time, so a busy machine moves it little. The Worker is bundled
// as `wrangler deploy` bundles it; each round starts a fresh runtime, loads an empty module (the
// runtime's own cost, subtracted), then evaluates the bundle's module scope (`await import()`), then
// sends one first request per path through the bundle's fetch. Prints the medians as markdown.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * First requests that need no bindings, on an isolate whose module scope is evaluated: a `/v1`
 * request refused before any look-up (the app's whole stack in front of a route), the home page,
 * the OpenAPI document and the reference page (both build every route's schema on first use).
 */
export const FIRST_REQUESTS = ['/v1/pipelines', '/', '/v1/openapi.json', '/docs'];

/** The Worker bundled as a deploy bundles it (`wrangler deploy --dry-run`): its text. */
export function bundle() {
  const out = mkdtempSync(join(tmpdir(), 'startup-'));
  try {
    // wrangler needs the Node the install carries (node_modules/.bin/node), whatever Node runs this.
    const bin = join(root, 'node_modules', '.bin');
    execFileSync(join(bin, 'wrangler'), ['deploy', '--dry-run', '--outdir', out], {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    return readFileSync(join(out, 'index.js'), 'utf8');
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const workerdChildren = () =>
  readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.includes('(workerd)') && stat.split(') ')[1].split(' ')[1] === String(process.pid);
    } catch {
      return false;
    }
  });

/** CPU milliseconds a process has run, over all its threads. */
const cpuMs = (pid) =>
  readdirSync(`/proc/${pid}/task`).reduce((sum, task) => {
    try {
      return sum + Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
    } catch {
      return sum;
    }
  }, 0);

// The probe imports the bundle only when asked, so compiling the probe is not counted as the bundle's.
const PROBE = `export default { async fetch(request) {
  const url = new URL(request.url);
  if (url.pathname === '/load') await import('main.js');
  if (url.pathname === '/request') {
    const worker = (await import('main.js')).default;
    const res = await worker.fetch(new Request('https://api.example' + url.searchParams.get('path')), {}, { waitUntil() {}, passThroughOnException() {} });
    return new Response(String(res.status));
  }
  return new Response('ok');
} };`;

/** One fresh runtime: the module scope's CPU and, on further fresh runtimes, each path's first request. */
async function round(contents, path) {
  const before = new Set(workerdChildren());
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      name: 'probe',
      compatibilityDate: '2026-11-01',
      compatibilityFlags: ['nodejs_compat'],
      modulesRoot: '/',
      modules: [
        { type: 'ESModule', path: 'probe.js', contents: PROBE },
        { type: 'ESModule', path: 'main.js', contents },
      ],
      handleStructuredLogs: () => {},
    }),
  );
  try {
    await mf.ready;
    const pid = workerdChildren().find((p) => !before.has(p));
    await (await mf.dispatchFetch('https://probe/warm')).text();
    const start = cpuMs(pid);
    await (await mf.dispatchFetch('https://probe/load')).text();
    const loaded = cpuMs(pid);
    if (!path) return loaded - start;
    await (await mf.dispatchFetch(`https://probe/request?path=${encodeURIComponent(path)}`)).text();
    return cpuMs(pid) - loaded;
  } finally {
    await mf.dispose();
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The "Startup" section of bench/results.md. */
export async function startupSection(rounds = 5) {
  const contents = bundle();
  const empty = [];
  const scope = [];
  for (let i = 0; i < rounds; i++) {
    empty.push(await round('export default {};'));
    scope.push(await round(contents));
  }
  const firsts = [];
  for (const path of FIRST_REQUESTS) {
    const runs = [];
    for (let i = 0; i < rounds; i++) runs.push(await round(contents, path));
    firsts.push(`| \`${path}\` | ${median(runs).toFixed(1)} |`);
  }
  const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
  return [
    '## Startup',
    '',
    `What a new isolate spends before its first answer (\`bench/startup.mjs\`, medians of ${rounds} fresh runtimes): workerd CPU, all threads, read from /proc, so the machine's load moves it little. The bundle is what \`wrangler deploy\` uploads.`,
    '',
    '| measure | value |',
    '| --- | ---: |',
    `| bundle | ${kib(Buffer.byteLength(contents))} (${kib(gzipSync(contents).length)} gzip) |`,
    `| module scope evaluated (\`await import()\`, the empty module's ${median(empty).toFixed(1)} ms subtracted) | ${(median(scope) - median(empty)).toFixed(1)} ms |`,
    '',
    '| first request on an isolate whose module scope is evaluated | CPU ms |',
    '| --- | ---: |',
    ...firsts,
    '',
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log((await startupSection(Number(process.argv[2] ?? 5))).join('\n'));
}
