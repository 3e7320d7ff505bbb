#!/usr/bin/env node
// `npm start`: install if needed, migrate the local D1, start `wrangler dev`,
// make sure the demo workspace exists and print its API key.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { seedDemo } from './demo-seed.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.PORT ?? 8787);
const persist = join(root, '.state');
const bin = join(root, 'node_modules', '.bin');
const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };

function run(cmd, args) {
  const res = spawnSync(cmd, args, { cwd: root, env, stdio: 'inherit' });
  if (res.status !== 0) {
    console.error(`\n${cmd} ${args.join(' ')} failed (exit ${res.status})`);
    process.exit(res.status ?? 1);
  }
}

function installIfNeeded() {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  if (existsSync(join(bin, 'wrangler')) && existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  console.log('Installing dependencies...');
  run('npm', ['ci', '--no-audit', '--no-fund']);
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

installIfNeeded();
const vars = readDevVars();
if (!vars.ADMIN_TOKEN) {
  console.error('.dev.vars must set ADMIN_TOKEN');
  process.exit(1);
}
mkdirSync(persist, { recursive: true });
run(process.execPath, [join(root, 'scripts', 'migrate.mjs'), '--local', '--persist-to', persist]);

const child = spawn(join(bin, 'wrangler'), ['dev', '--port', String(port), '--persist-to', persist, '--test-scheduled'], {
  cwd: root,
  env,
  stdio: 'inherit',
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));

const base = `http://127.0.0.1:${port}`;
try {
  await waitForServer(base, child);
  const demo = await seedDemo({ base, adminToken: vars.ADMIN_TOKEN, stateFile: join(persist, 'demo.json'), readFileSync, writeFileSync, existsSync });
  console.log(`
  Demo workspace ready: ${demo.workspace_id}
  API key:              ${demo.api_key}
  Operator token:       ${vars.ADMIN_TOKEN} (from .dev.vars)
  API reference:        ${base}/docs

  Try it:
    curl -s ${base}/v1/contacts -H "Authorization: Bearer ${demo.api_key}"
    curl -s -X POST ${base}/v1/contacts -H "Authorization: Bearer ${demo.api_key}" \\
      -H "Content-Type: application/json" -d '{"email": "grace@example.com", "name": "Grace Hopper"}'
`);
} catch (err) {
  console.error(`Could not prepare the demo workspace: ${err.message}`);
  child.kill('SIGINT');
  process.exit(1);
}
