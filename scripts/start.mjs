#!/usr/bin/env node
// `npm start`: install if needed, migrate the local D1, start `wrangler dev`,
// make sure the demo workspace exists and print its API key.
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedDemo } from './demo-seed.mjs';
import { installIfNeeded } from './install.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.PORT ?? 8787);
const persist = join(root, '.state');
const bin = join(root, 'node_modules', '.bin');
const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };

/** How often a long step says it is still working. */
const PROGRESS_EVERY_MS = 10_000;

/**
 * Runs a step. `quiet` keeps its output unless it fails (then all of it is shown), except lines
 * `progress` picks out, which are shown as they come; a step that runs long says so every 10 s.
 */
function run(label, cmd, args, { quiet = false, progress = () => false } = {}) {
  console.log(`${label}...`);
  const started = Date.now();
  const ticker = setInterval(
    () => console.log(`  ...still ${label.toLowerCase()} (${Math.round((Date.now() - started) / 1000)} s)`),
    PROGRESS_EVERY_MS,
  );
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, env, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    const output = [];
    for (const [source, sink] of quiet
      ? [
          [child.stdout, process.stdout],
          [child.stderr, process.stderr],
        ]
      : []) {
      eachLine(source, (line) => {
        if (progress(line)) console.log(`  ${line.trim()}`);
        else output.push([sink, line]);
      });
    }
    child.on('exit', (code) => {
      clearInterval(ticker);
      if (code === 0) return resolve();
      for (const [sink, line] of output) sink.write(`${line}\n`);
      console.error(`\n${cmd} ${args.join(' ')} failed (exit ${code})`);
      process.exit(code ?? 1);
    });
  });
}

/** Calls `onLine` for each whole line a child's output stream writes. */
function eachLine(source, onLine) {
  let rest = '';
  source.setEncoding('utf8');
  source.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) onLine(line);
  });
}

/** Fails fast when the port is taken (another `npm start`, say), before anything touches the local state. */
function ensurePortFree() {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => {
      console.error(
        `Port ${port} is already in use: is another \`npm start\` running? Stop it, or start on another port: PORT=${port + 1} npm start`,
      );
      process.exit(1);
    });
    probe.listen(port, '127.0.0.1', () => probe.close(resolve));
  });
}

function readDevVars() {
  const file = join(root, '.dev.vars');
  if (!existsSync(file)) {
    copyFileSync(join(root, '.dev.vars.example'), file);
    console.log('Created .dev.vars from .dev.vars.example');
  }
  const vars = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^\s*([A-Z0-9_]+)\s*=\s*(.*)\s*$/.exec(line);
    if (m) vars[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
  }
  return vars;
}

async function waitForServer(base, child) {
  for (let i = 0; i < 240; i++) {
    if (child.exitCode !== null) throw new Error('wrangler dev exited before it was ready');
    try {
      const res = await fetch(`${base}/v1/openapi.json`);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error('wrangler dev did not become ready within 120 s');
}

await ensurePortFree();
await installIfNeeded(root).catch((err) => {
  console.error(err.message);
  process.exit(1);
});
const vars = readDevVars();
if (!vars.ADMIN_TOKEN) {
  console.error('.dev.vars must set ADMIN_TOKEN');
  process.exit(1);
}
mkdirSync(persist, { recursive: true });
await run(
  'Applying migrations to the local databases',
  process.execPath,
  [join(root, 'scripts', 'migrate.mjs'), '--local', '--persist-to', persist],
  {
    quiet: true,
    progress: (line) => line.startsWith('Migrating '),
  },
);
console.log(`Starting wrangler dev on port ${port}...`);

const base = `http://127.0.0.1:${port}`;
// Mail sent by the sweeps has no request to take its links' origin from: point them at this server
// unless .dev.vars names another origin.
const publicBase = vars.PUBLIC_BASE_URL ? [] : ['--var', `PUBLIC_BASE_URL:${base}`];
const child = spawn(join(bin, 'wrangler'), ['dev', '--port', String(port), '--persist-to', persist, '--test-scheduled', ...publicBase], {
  cwd: root,
  env,
  stdio: ['inherit', 'pipe', 'pipe'],
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => {
  if (!ready) flushStartupOutput();
  process.exit(code ?? 0);
});

// wrangler's start-up output (banner, bindings table) is held back until the server answers,
// then dropped, so the key block below is the last thing on screen; if wrangler fails first,
// all of it is shown. Errors always pass straight through, and so does everything after start-up
// (request lines, reloads), except the bindings table and the harmless warning that the
// `Request.cf` placeholder is used without internet.
let ready = false;
const held = [];
const flushStartupOutput = () => {
  for (const [stream, line] of held.splice(0)) stream.write(`${line}\n`);
};
const isError = (line) =>
  /\[ERROR\]|\[wrangler:error\]|^\s*✘|^Error(?!: getaddrinfo ENOTFOUND workers\.cloudflare\.com)|Uncaught|exception/i.test(line);
let skipping = null;
function shouldDrop(line) {
  if (skipping === 'bindings') {
    if (line.trim() === '') skipping = null;
    return true;
  }
  if (skipping === 'cf') {
    if (/^\s+at |^Error: getaddrinfo ENOTFOUND workers\.cloudflare\.com/.test(line)) return true;
    skipping = null;
  }
  if (line.startsWith('Your Worker has access to the following bindings')) {
    skipping = 'bindings';
    return true;
  }
  // The minute's cron tick (runCronEveryMinute) would otherwise log a line every minute.
  if (line.includes('/__scheduled')) return true;
  if (line.includes('Unable to fetch the `Request.cf` object')) {
    skipping = 'cf';
    return true;
  }
  return false;
}
function relay(source, stream) {
  eachLine(source, (line) => {
    if (shouldDrop(line)) return;
    if (ready || isError(line)) stream.write(`${line}\n`);
    else held.push([stream, line]);
  });
}
relay(child.stdout, process.stdout);
relay(child.stderr, process.stderr);

try {
  await waitForServer(base, child);
  const demo = await seedDemo({ base, adminToken: vars.ADMIN_TOKEN, stateFile: join(persist, 'demo.json'), readFileSync, writeFileSync, existsSync });
  await new Promise((r) => setTimeout(r, 500)); // let wrangler log the seeding requests, then drop those lines
  held.length = 0;
  ready = true;
  // `npm run example` and `npm run check:pages` find the server here, whatever PORT it was started on.
  writeFileSync(join(persist, 'server.json'), JSON.stringify({ url: base }, null, 2));
  console.log(`
  Workspace API running at ${base}

  Demo workspace:  ${demo.workspace_id}
  API key:         ${demo.api_key}
  Operator token:  ${vars.ADMIN_TOKEN} (from .dev.vars)
  API reference:   ${base}/docs
  OpenAPI 3.1:     ${base}/v1/openapi.json

  Try it:
    curl -s ${base}/v1/contacts -H "Authorization: Bearer ${demo.api_key}"
    curl -s -X POST ${base}/v1/contacts -H "Authorization: Bearer ${demo.api_key}" \\
      -H "Content-Type: application/json" -d '{"email": "grace@example.com", "name": "Grace Hopper"}'

  Cron sweeps run every minute, as deployed (newsletters, scheduled campaigns, retries).
  Ctrl+C stops the server; the data stays in .state/ for the next start.
`);
  runCronEveryMinute(base);
} catch (err) {
  flushStartupOutput();
  console.error(`Could not prepare the demo workspace: ${err.message}`);
  child.kill('SIGINT');
  process.exit(1);
}

/**
 * `wrangler dev` fires no cron triggers by itself; deployed, the `* * * * *` trigger runs every
 * sweep each minute, so locally this does the same through wrangler's `/__scheduled` route.
 */
function runCronEveryMinute(base) {
  const tick = () =>
    fetch(`${base}/__scheduled?cron=${encodeURIComponent('* * * * *')}`).catch((err) => console.error(`cron tick failed: ${err.message}`));
  const untilNextMinute = 60_000 - (Date.now() % 60_000);
  setTimeout(() => {
    tick();
    setInterval(tick, 60_000);
  }, untilNextMinute);
}
