#!/usr/bin/env node
// `npm run bench`: a fresh local D1, `wrangler dev` with the counting build,
// a seeded workspace, then load from this process; writes bench/results.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, loadAgainstFloor } from './load.mjs';
import { benchVars, scenarios, seed } from './scenarios.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const state = join(here, '.tmp', 'state');
const bin = join(root, 'node_modules', '.bin');
const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
const port = Number(process.env.BENCH_PORT ?? 8799);
const base = `http://127.0.0.1:${port}`;
const adminToken = 'bench-admin-token';
// 10 s per route: each 1-second slice's ratio to its floor moved by up to 0.5x on this shared machine, so 5 s left the pooled ratio a few tenths from run to run.
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
// BENCH_ONLY=<text>[,<text>...]: only the floors, the scenarios and the extra measurements whose name holds one
// of the texts (e.g. `whatsapp,templates`); the results then go to bench/.tmp/results.md, leaving
// bench/results.md as the full run wrote it.
const only = (process.env.BENCH_ONLY ?? '').toLowerCase().split(',').map((t) => t.trim()).filter(Boolean);
const selected = (name) => only.length === 0 || only.some((t) => name.toLowerCase().includes(t));

rmSync(join(here, '.tmp'), { recursive: true, force: true });
mkdirSync(state, { recursive: true });
const migrate = spawnSync(process.execPath, [join(root, 'scripts', 'migrate.mjs'), '--local', '--persist-to', state, '-c', join(here, 'wrangler.toml')], {
  cwd: root,
  env: { ...env, CI: 'true' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const server = spawn(
  join(bin, 'wrangler'),
  [
    'dev', '-c', join(here, 'wrangler.toml'), '--port', String(port), '--persist-to', state, '--log-level', process.env.BENCH_LOG_LEVEL ?? 'error',
    ...Object.entries(benchVars(adminToken)).flatMap(([name, value]) => ['--var', `${name}:${value}`]),
  ],
  { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] },
);
const stop = () => server.exitCode === null && server.kill('SIGINT');
process.on('exit', stop);
process.on('SIGINT', () => process.exit(130));

async function ready() {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/v1/openapi.json`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('wrangler dev did not start');
}

async function queriesPerRequest(headers, request) {
  const res = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`${request.method} ${request.path} answered ${res.status}`);
  return Number(res.headers.get('x-d1-queries'));
}

/** CPU seconds the runtime's processes (`workerd`) have used so far, from /proc (0 where there is none). */
function runtimeCpuSeconds() {
  let ticks = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('workerd')) continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks / 100;
}

/**
 * Waits until the runtime is idle (under 5% of a core over a quarter second), at most 60 s: a
 * scenario's writes leave work behind their responses (event fan-out, request-log flushes, lease
 * give-backs), which would otherwise run during the next scenario's measurement. Returns the wait.
 */
async function quiet() {
  const started = performance.now();
  let before = runtimeCpuSeconds();
  while (performance.now() - started < 60_000) {
    await new Promise((r) => setTimeout(r, 250));
    const now = runtimeCpuSeconds();
    if (now - before < 0.0125) break;
    before = now;
  }
  return (performance.now() - started) / 1000;
}

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

await ready();
const ctx = await seed({ base, adminToken, log: (m) => console.log(m) });
const rows = [];
const all = scenarios(ctx);
const floorScenario = Object.fromEntries(all.filter((s) => s.floor === undefined).map((s) => [s.name, s]));
for (const scenario of all.filter((s) => s.auth === false || selected(s.name))) {
  const headers = scenario.auth === false ? {} : { authorization: `Bearer ${ctx.key}` };
  // Requests 1-20 warm the isolate up, and a scenario may name more (`warmUp`: request indexes).
  for (const i of [...Array.from({ length: 20 }, (_, k) => k + 1), ...(scenario.warmUp ?? [])]) await queriesPerRequest(headers, scenario.request(i)).catch(() => {});
  // The fewest of three requests: the one that refreshes the isolate's 5-second key cache adds a
  // control-plane look-up that is not the route's.
  let queries = Infinity;
  for (const i of [0, 21, 22]) queries = Math.min(queries, await queriesPerRequest(headers, scenario.request(i)));
  const floor = scenario.floor ? floorScenario[scenario.floor] : undefined;
  const waited = await quiet();
  const result = floor
    ? await loadAgainstFloor({ base, headers, makeRequest: (i) => scenario.request(i + 100), makeFloorRequest: floor.request, connections, seconds })
    : await load({ base, headers, makeRequest: (i) => scenario.request(i + 100), connections, seconds });
  const row = { ...scenario, ...result, queries, ratio: result.floorRun ? result.p50 / result.floorRun.p50 : undefined };
  rows.push(row);
  const flag = scenario.expected !== undefined && queries > scenario.expected ? ` (expected ${scenario.expected}!)` : '';
  const against = result.floorRun ? `  floor p50 ${fmt(result.floorRun.p50)} ms (${fmt(row.ratio, 2)}x; slices ${result.sliceRatios.map((r) => fmt(r, 2)).join(' ')})` : '';
  console.log(`${scenario.name.padEnd(44)} ${fmt(result.rps, 0).padStart(6)} req/s  p50 ${fmt(result.p50)} ms  p99 ${fmt(result.p99)} ms${against}  D1 ${queries}${flag}  errors ${result.errors}  (waited ${fmt(waited)} s for an idle runtime)`);
}
const extra = ctx.extraMeasurements ? await ctx.extraMeasurements(selected) : [];

const lines = [
  '# Benchmark results',
  '',
  `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, \`wrangler dev\` (local workerd, local D1), ${connections} concurrent connections, ${seconds} s per route, load driver (\`node:http\`, one keep-alive connection per client) in a second process on the same machine; each route is measured once the runtime is idle (the previous route's background work, such as the event fan-out, done). ${ctx.summary ?? ''}`,
  '',
  'D1 = round trips per request on the response path (statements plus batches), counted by the bench build\'s D1 wrapper as they complete before the response leaves (work handed to `waitUntil`, such as the event fan-out, is not counted), the fewest of three requests (the one refreshing the isolate\'s 5-second API-key cache adds a look-up that is not the route\'s); "expected" is the design count, and a route above it is flagged. Ratio = the route\'s p50 over the matching floor\'s p50 (the floors authenticate nothing and run one indexed `SELECT` or one `INSERT`), the floor measured in slices alternating with the route\'s (ten of each, as long as each other: the "floor p50" column), so both see the same machine: a shared machine\'s speed drifts over the minutes a run takes. "Slices" is the range of the ten ratios of a route slice to the floor slice before it: how far this machine moves within one route\'s measurement. The two floor rows are measured alone at the start.',
  '',
  '| route | requests/s | p50 ms | p99 ms | D1 queries | expected | floor p50 ms | p50 / floor | slices | errors |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map((r) => `| ${r.name} | ${fmt(r.rps, 0)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.queries}${r.expected !== undefined && r.queries > r.expected ? ' ⚠' : ''} | ${r.expected ?? ''} | ${r.floorRun ? fmt(r.floorRun.p50) : ''} | ${r.ratio ? `${fmt(r.ratio, 2)}x ${r.floor}` : 'floor'} | ${r.sliceRatios ? `${fmt(Math.min(...r.sliceRatios), 2)}-${fmt(Math.max(...r.sliceRatios), 2)}` : ''} | ${r.errors} |`),
  '',
  ...extra,
  '',
];
const out = only.length ? join(here, '.tmp', 'results.md') : join(here, 'results.md');
writeFileSync(out, lines.join('\n'));
console.log(`\nWrote ${out}`);
stop();
process.exit(rows.some((r) => r.expected !== undefined && r.queries > r.expected) ? 2 : 0);
