#!/usr/bin/env node
// `npm run bench:profile -- "<scenario name>" ["<scenario name>" ...]`: samples the Worker's
// CPU while the benchmark's load runs one scenario at a time, and prints, per request, the
// functions and the modules it spends it in. The Worker runs under Miniflare directly (the
// runtime's own inspector: `wrangler dev` keeps that session for itself), built from
// bench/wrangler.toml, on fresh in-memory databases seeded by the benchmark's seed
// (BENCH_CONTACTS, default here 2,000). Profiles are written to bench/.tmp/<scenario>.cpuprofile
// (open them in Chrome's DevTools). Everything the runtime runs for the Worker, Durable Objects
// included, is on one thread: "busy" is that isolate's share of it, "idle" the rest.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { convertV4MiniflareOptions, Miniflare } from 'miniflare';
import WebSocket from 'ws';
import { load } from './load.mjs';

process.env.BENCH_CONTACTS ??= '2000';
const { benchVars, scenarios, seed } = await import('./scenarios.mjs');

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const out = join(here, '.tmp');
const names = process.argv.slice(2);
if (names.length === 0) {
  console.error(
    'usage: npm run bench:profile -- "<scenario name>" ... (names as in bench/results.md, or an extra measurement\'s, e.g. "email campaign fan-out")',
  );
  process.exit(1);
}
mkdirSync(out, { recursive: true });

const build = spawnSync(
  process.execPath,
  [
    join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
    'deploy',
    '--dry-run',
    '--outdir',
    join(out, 'bundle'),
    '-c',
    join(here, 'wrangler.toml'),
  ],
  { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] },
);
if (build.status !== 0) process.exit(build.status ?? 1);
const bundle = join(out, 'bundle', 'worker.js');
const adminToken = 'bench-admin-token';
const inspectorPort = Number(process.env.BENCH_INSPECTOR_PORT ?? 9231);

const mf = new Miniflare(
  convertV4MiniflareOptions({
    host: '127.0.0.1',
    port: Number(process.env.BENCH_PORT ?? 8796),
    inspectorPort,
    workers: [
      {
        name: 'bench',
        modules: [{ type: 'ESModule', path: bundle }],
        modulesRoot: dirname(bundle),
        compatibilityDate: '2026-11-01',
        compatibilityFlags: ['nodejs_compat'],
        d1Databases: { DB: 'bench-control', SHARD_0: 'bench-shard-0', SHARD_1: 'bench-shard-1' },
        durableObjects: {
          RATE_LIMITER: { className: 'RateLimiter', useSQLite: true },
          SLOT_LOCK: { className: 'SlotLock', useSQLite: true },
          EMAIL_CLAIMS: { className: 'IdempotencyClaims', useSQLite: true },
        },
        queueProducers: { EVENTS_QUEUE: 'bench-events', SEND_QUEUE: 'bench-sends' },
        queueConsumers: { 'bench-events': { maxBatchSize: 100, maxBatchTimeout: 1 }, 'bench-sends': { maxBatchSize: 10, maxBatchTimeout: 0 } },
        bindings: {
          EMAIL_PROVIDER: 'sandbox',
          PAYMENT_PROVIDER: 'sandbox',
          WHATSAPP_PROVIDER: 'sandbox',
          ...benchVars(adminToken),
        },
      },
    ],
  }),
);
const base = (await mf.ready).origin;

// The migrations, as `wrangler d1 migrations apply` would run them (drizzle-kit's statement breakpoints).
for (const [binding, dir] of [
  ['DB', 'control'],
  ['SHARD_0', 'data'],
  ['SHARD_1', 'data'],
]) {
  const db = await mf.getD1Database(binding);
  const folder = join(root, 'migrations', dir);
  for (const file of readdirSync(folder)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const statements = readFileSync(join(folder, file), 'utf8')
      .split('--> statement-breakpoint')
      .map((s) => s.trim())
      .filter(Boolean);
    await db.batch(statements.map((s) => db.prepare(s)));
  }
}
const ctx = await seed({ base, adminToken, log: () => {} });

const targets = await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json();
const target = targets.find((t) => t.id === 'core:user:bench');
const ws = new WebSocket(target.webSocketDebuggerUrl);
await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
let lastId = 0;
const pending = new Map();
ws.on('message', (data) => {
  const message = JSON.parse(String(data));
  pending.get(message.id)?.(message.result);
  pending.delete(message.id);
});
const send = (method, params = {}) =>
  new Promise((resolve) => {
    pending.set(++lastId, resolve);
    ws.send(JSON.stringify({ id: lastId, method, params }));
  });
await send('Profiler.enable');
await send('Profiler.setSamplingInterval', { interval: 100 });

const source = readFileSync(bundle, 'utf8').split('\n');
/** The source file a bundle line came from (esbuild marks each module with a `// path` comment). */
function fileAt(line) {
  for (let i = line; i >= 0; i--) {
    const m = /^\/\/ (\.\.\/|)(node_modules\/|)([\w@./-]+\.[cm]?[jt]s)$/.exec(source[i] ?? '');
    if (m) return m[3];
  }
  return 'worker.js';
}

function report(profile, requests) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const modules = new Map();
  let idle = 0;
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i + 1] ?? 0;
    const { functionName, url, lineNumber } = nodes.get(id).callFrame;
    total += dt;
    if (functionName === '(idle)') return void (idle += dt);
    const file = url.endsWith('worker.js') ? fileAt(lineNumber) : url || 'runtime';
    const fn = `${functionName || '(anonymous)'}  ${file}`;
    self.set(fn, (self.get(fn) ?? 0) + dt);
    const module = file.replace(/\/[^/]*$/, '');
    modules.set(module, (modules.get(module) ?? 0) + dt);
  });
  const perRequest = (us) => (us / 1000 / requests).toFixed(3).padStart(7);
  const top = (m, n) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, us]) => `${perRequest(us)} ms  ${k}`);
  return [
    `busy ${perRequest(total - idle).trim()} ms per request (idle ${((100 * idle) / total).toFixed(0)}% of the thread)`,
    '  by module:',
    ...top(modules, 12).map((l) => `    ${l}`),
    '  by function (self time):',
    ...top(self, 25).map((l) => `    ${l}`),
  ].join('\n');
}

/** CPU time so far (ms) of this process (the load driver) and of each runtime thread, by thread name. */
function processCpu() {
  const out = new Map([['driver', (process.cpuUsage().user + process.cpuUsage().system) / 1000]]);
  const tick = 10; // USER_HZ: /proc counts CPU in 1/100 s
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let comm;
    try {
      comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (comm !== 'workerd') continue;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
        const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
        const key = `workerd:${name}`;
        out.set(key, (out.get(key) ?? 0) + (Number(fields[11]) + Number(fields[12])) * tick);
      } catch {}
    }
  }
  return out;
}

/**
 * An extra measurement (a campaign fan-out, webhook deliveries) profiled as one run: its queue
 * consumers run in the same isolate, so the report is per unit of work the measurement names
 * (`ctx.profileUnits`: recipients, deliveries).
 */
async function profileMeasurement(name) {
  const cpuBefore = processCpu();
  await send('Profiler.start');
  const lines = await ctx.extraMeasurements((n) => n === name);
  const { profile } = await send('Profiler.stop');
  const cpuAfter = processCpu();
  const units = ctx.profileUnits ?? 1;
  writeFileSync(join(out, `${name.replace(/[^a-z0-9]+/gi, '_')}.cpuprofile`), JSON.stringify(profile));
  console.log(`\n${name}: ${units} units of work`);
  console.log(lines.filter((l) => l.includes('**')).join('\n'));
  console.log(report(profile, units).replace('per request', 'per unit'));
  console.log(
    `  whole machine, CPU per unit: ${[...cpuAfter].map(([k, v]) => `${k} ${((v - (cpuBefore.get(k) ?? 0)) / units).toFixed(3)} ms`).join(', ')}`,
  );
}

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
// Profiles are cold, as the benchmark's goals are (BENCH_PROFILE_CACHES=on profiles one warm instance).
await fetch(`${base}/bench/instance-caches?mode=${process.env.BENCH_PROFILE_CACHES === 'on' ? 'on' : 'off'}`, { method: 'POST' });
for (const name of names) {
  const scenario = scenarios(ctx).find((s) => s.name === name);
  if (!scenario && ctx.measurementNames.includes(name)) {
    await profileMeasurement(name);
    continue;
  }
  if (!scenario) {
    console.error(`no scenario or extra measurement named "${name}"`);
    continue;
  }
  const headers = scenario.auth === false ? {} : { authorization: `Bearer ${ctx.key}` };
  await load({ base, headers, makeRequest: (i) => scenario.request(i + 100), seconds: 2 });
  const sample = scenario.request(99);
  const answer = await fetch(`${base}${sample.path}`, {
    method: sample.method,
    headers: sample.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: sample.body === undefined ? undefined : JSON.stringify(sample.body),
  });
  const bytes = (await answer.arrayBuffer()).byteLength;
  const cpuBefore = processCpu();
  await send('Profiler.start');
  const result = await load({ base, headers, makeRequest: (i) => scenario.request(i + 10_000), seconds });
  const { profile } = await send('Profiler.stop');
  const cpuAfter = processCpu();
  writeFileSync(join(out, `${name.replace(/[^a-z0-9]+/gi, '_')}.cpuprofile`), JSON.stringify(profile));
  console.log(
    `\n${name}: ${result.requests} requests, ${result.rps.toFixed(0)}/s, p50 ${result.p50.toFixed(1)} ms, ${result.errors} errors, ${bytes} bytes per answer`,
  );
  console.log(report(profile, result.requests));
  console.log(
    `  whole machine, CPU per request: ${[...cpuAfter].map(([k, v]) => `${k} ${((v - (cpuBefore.get(k) ?? 0)) / result.requests).toFixed(3)} ms`).join(', ')}`,
  );
}
ws.close();
await mf.dispose();
