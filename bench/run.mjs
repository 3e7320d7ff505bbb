#!/usr/bin/env node
// `npm run bench`: a fresh local D1, `wrangler dev` with the counting build,
// a seeded workspace, then load from this process; writes bench/results.md.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load, loadAgainstFloor, setInstanceCaches } from './load.mjs';
import { startupSection } from './startup.mjs';
import { benchVars, scenarios, seed } from './scenarios.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const bin = join(root, 'node_modules', '.bin');
const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
const port = Number(process.env.BENCH_PORT ?? 8799);
// Each port has its own databases, so two runs on one machine never share (or delete) each other's.
const state = join(here, '.tmp', `state-${port}`);
const base = `http://127.0.0.1:${port}`;
const adminToken = 'bench-admin-token';
// 10 s per route: each 1-second slice's ratio to its floor moved by up to 0.5x on this shared machine, so 5 s left the pooled ratio a few tenths from run to run.
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 8);
// BENCH_ONLY=<text>[,<text>...]: only the floors, the scenarios and the extra measurements whose name holds one
// of the texts (e.g. `whatsapp,templates`); the results then go to bench/.tmp/results-<port>.md, leaving
// bench/results.md as the full run wrote it.
const only = (process.env.BENCH_ONLY ?? '')
  .toLowerCase()
  .split(',')
  .map((t) => t.trim())
  .filter(Boolean);
const selected = (name) => only.length === 0 || only.some((t) => name.toLowerCase().includes(t));

rmSync(state, { recursive: true, force: true });
mkdirSync(state, { recursive: true });
const migrate = spawnSync(
  process.execPath,
  [join(root, 'scripts', 'migrate.mjs'), '--local', '--persist-to', state, '-c', join(here, 'wrangler.toml')],
  {
    cwd: root,
    env: { ...env, CI: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
  },
);
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const server = spawn(
  join(bin, 'wrangler'),
  [
    'dev',
    '-c',
    join(here, 'wrangler.toml'),
    '--port',
    String(port),
    '--persist-to',
    state,
    '--log-level',
    process.env.BENCH_LOG_LEVEL ?? 'error',
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

async function roundTrips(headers, request) {
  const res = await fetch(`${base}${request.path}`, {
    method: request.method,
    headers: { ...headers, ...request.headers, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: request.rawBody ?? (request.body === undefined ? undefined : JSON.stringify(request.body)),
  });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`${request.method} ${request.path} answered ${res.status}`);
  return { shard: Number(res.headers.get('x-d1-queries')), control: Number(res.headers.get('x-d1-control')) };
}

/**
 * The caches on (warm: one instance serving every request), off (cold: what a fresh instance in a
 * location that saw nothing pays on each), or only the location's (a fresh instance in a location
 * that saw the key: a far client's usual request).
 */
const instanceCaches = (mode) => setInstanceCaches(base, mode);

const MODES = [
  { name: 'warm', caches: 'on' },
  { name: 'cold', caches: 'off' },
  { name: 'location', caches: 'location' },
];

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
  // Floors and unauthenticated layers keep nothing between requests: one mode.
  const modes = scenario.auth === false ? MODES.slice(0, 1) : MODES;
  const counts = {};
  for (const [k, mode] of modes.entries()) {
    await instanceCaches(mode.caches);
    // Each mode counts requests of its own (a fresh email key in cold mode is not the warm one's replay).
    const request = (i) => scenario.request(i + k * 50);
    // Requests 1-20 warm the runtime up (and, warm, the instance's caches).
    for (let i = 1; i <= 20; i++) await roundTrips(headers, request(i)).catch(() => {});
    // Every counted request's round trips: the maximum is the route's cost, never the fewest.
    const seen = [];
    for (const i of [0, 21, 22, 23, 24]) seen.push(await roundTrips(headers, request(i)));
    // A floor's round trip is on the control plane, and is its whole cost.
    if (scenario.auth === false) for (const c of seen) [c.shard, c.control] = [c.shard + c.control, 0];
    counts[mode.name] = {
      max: Math.max(...seen.map((c) => c.shard)),
      min: Math.min(...seen.map((c) => c.shard)),
      control: Math.max(...seen.map((c) => c.control)),
    };
  }
  const floor = scenario.floor ? floorScenario[scenario.floor] : undefined;
  const waited = await quiet();
  const variants = modes.map((mode) => ({ prepare: () => instanceCaches(mode.caches) }));
  const results = floor
    ? await loadAgainstFloor({
        base,
        headers,
        makeRequest: (i) => scenario.request(i + 100),
        makeFloorRequest: floor.request,
        variants,
        connections,
        seconds,
      })
    : [await load({ base, headers, makeRequest: (i) => scenario.request(i + 100), connections, seconds })];
  await instanceCaches('on');
  const row = {
    ...scenario,
    counts,
    byMode: Object.fromEntries(
      modes.map((m, k) => [m.name, { ...results[k], ratio: results[k].floorRun ? results[k].p50 / results[k].floorRun.p50 : undefined }]),
    ),
  };
  rows.push(row);
  const cold = row.byMode.cold ?? row.byMode.warm;
  const coldCount = (counts.cold ?? counts.warm).max;
  const flag = scenario.expected !== undefined && coldCount > scenario.expected ? ` (expected ${scenario.expected}!)` : '';
  const ratios = modes
    .map((m) => `${m.name} ${fmt(row.byMode[m.name].p50)} ms${row.byMode[m.name].ratio ? ` ${fmt(row.byMode[m.name].ratio, 2)}x` : ''}`)
    .join(', ');
  console.log(
    `${scenario.name.padEnd(44)} ${ratios}  p99 cold ${fmt(cold.p99)} ms  D1 ${modes.map((m) => `${m.name} ${counts[m.name].max}`).join(' ')}${flag}  errors ${cold.errors}  (waited ${fmt(waited)} s for an idle runtime)`,
  );
}
const extra = ctx.extraMeasurements ? await ctx.extraMeasurements(selected) : [];
const startup = selected('startup') ? await startupSection() : [];

const coldOf = (r) => r.byMode.cold ?? r.byMode.warm;
const countOf = (r) => r.counts.cold ?? r.counts.warm;
const ratioCell = (m) => (m?.ratio ? `${fmt(m.ratio, 2)}x` : '');
const lines = [
  '# Benchmark results',
  '',
  `Run on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}, \`wrangler dev\` (local workerd, local D1), ${connections} concurrent connections, ${seconds} s per route and mode, load driver (\`node:http\`, one keep-alive connection per client) in a second process on the same machine; each route is measured once the runtime is idle (the previous route's background work, such as the event fan-out, done). ${ctx.summary ?? ''}`,
  '',
  "Each route is measured in three modes in the same run: **warm**, one Worker instance serving every request with its in-memory caches (src/platform/instance-cache.ts) on; **cold**, every cache off (`INSTANCE_CACHES=off`), so every request pays what a fresh instance in a location that saw nothing pays: the API key look-up on the control plane included; and **location**, a fresh instance in a location that saw the key (`INSTANCE_CACHES=location`: the instance's memory off, the location's Cache API on, src/platform/key-cache.ts). A far client's requests land on many instances, so the goals apply to cold and location. Ratio = the mode's p50 over the matching floor's p50 (the floors authenticate nothing and run one indexed `SELECT` or one `INSERT` on the control plane), the floor measured in slices alternating with the route's (ten of the floor, each followed by one of each mode, as long as each other: the \"floor p50\" column), so all see the same machine. \"Slices\" is the range of the cold slices' ratios to the floor slice before them: how far this machine moves within one route's measurement. The two floor rows are measured alone at the start.",
  '',
  'D1 = round trips to the workspace\'s shard per request on the response path (statements plus batches, counted as they complete before the response leaves; work handed to `waitUntil`, such as the event fan-out, is not counted): the **maximum** over five counted requests in each mode (the minimum in brackets where it differs). "Control" is the control plane\'s round trips in cold mode (the API key look-up, which warm answers from the instance\'s 5-second key cache). "Expected" is the design count; a cold maximum above it is flagged ⚠.',
  '',
  '| route | expected | D1 cold | D1 warm | control (cold) | control (location) | p50 cold ms | p99 cold ms | cold / floor | p50 location ms | location / floor | p50 warm ms | warm / floor | floor p50 ms | slices (cold) | errors |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map((r) => {
    const cold = coldOf(r);
    const count = countOf(r);
    const d1 = (c) => (c ? `${c.max}${c.min !== c.max ? ` (${c.min})` : ''}` : '');
    const flag = r.expected !== undefined && count.max > r.expected ? ' ⚠' : '';
    return `| ${r.name} | ${r.expected ?? ''} | ${d1(r.counts.cold ?? (r.auth === false ? r.counts.warm : undefined))}${flag} | ${r.auth === false ? '' : d1(r.counts.warm)} | ${r.counts.cold ? r.counts.cold.control : ''} | ${r.counts.location ? r.counts.location.control : ''} | ${fmt(cold.p50)} | ${fmt(cold.p99)} | ${cold.floorRun ? ratioCell(cold) : 'floor'} | ${r.byMode.location ? fmt(r.byMode.location.p50) : ''} | ${r.byMode.location ? ratioCell(r.byMode.location) : ''} | ${r.byMode.cold ? fmt(r.byMode.warm.p50) : ''} | ${r.byMode.cold ? ratioCell(r.byMode.warm) : ''} | ${cold.floorRun ? fmt(cold.floorRun.p50) : ''} | ${cold.sliceRatios ? `${fmt(Math.min(...cold.sliceRatios), 2)}-${fmt(Math.max(...cold.sliceRatios), 2)}` : ''} | ${cold.errors + (r.byMode.cold ? r.byMode.warm.errors + r.byMode.location.errors : 0)} |`;
  }),
  '',
  ...extra,
  '',
  ...startup,
];
const out = only.length ? join(here, '.tmp', `results-${port}.md`) : join(here, 'results.md');
writeFileSync(out, lines.join('\n'));
console.log(`\nWrote ${out}`);
stop();
process.exit(rows.some((r) => r.expected !== undefined && countOf(r).max > r.expected) ? 2 : 0);
