#!/usr/bin/env node
// Applies the migrations of every D1 database in a wrangler config: first the control plane
// (`DB`), then every data shard (`SHARD_<n>`) in parallel, at most `--concurrency` at a time
// (default 4), each from the `migrations_dir` its entry names. A failing shard stops no other;
// the run ends with a report per shard and, if any failed, the command that resumes with just
// those (wrangler records each applied migration in the database, so a re-run applies only
// what is missing). `--only SHARD_3,SHARD_7` limits the shards. Other arguments go on to
// `wrangler d1 migrations apply` (`--local`/`--remote`, `--persist-to <dir>`, `-c <config>`),
// e.g. `npm run db:migrate:local -- --persist-to .state`.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runPool } from './pool.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'node_modules', '.bin');

/** The `binding` of every `[[d1_databases]]` table, in file order. */
export function d1Bindings(toml) {
  const bindings = [];
  let inD1 = false;
  for (const line of toml.split('\n')) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line);
    if (header) {
      inD1 = header[1] === 'd1_databases';
      continue;
    }
    const binding = inD1 && /^\s*binding\s*=\s*"([^"]+)"/.exec(line);
    if (binding) bindings.push(binding[1]);
  }
  return bindings;
}

/** Takes `--name value` out of `args`: its value, or undefined. */
function takeFlag(args, name) {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const [, value] = args.splice(at, 2);
  return value;
}

const args = process.argv.slice(2);
const concurrency = Number(takeFlag(args, '--concurrency') ?? 4);
const only = takeFlag(args, '--only')?.split(',').filter(Boolean);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error('--concurrency must be a positive integer');
  process.exit(2);
}
const configFlag = args.findIndex((a) => a === '-c' || a === '--config');
const config = configFlag >= 0 ? resolve(args[configFlag + 1]) : join(root, 'wrangler.toml');
const bindings = d1Bindings(readFileSync(config, 'utf8'));
if (bindings.length === 0) {
  console.error(`no [[d1_databases]] in ${config}`);
  process.exit(1);
}
const isShard = (b) => /^SHARD_\d+$/.test(b);
const control = bindings.filter((b) => !isShard(b));
const shards = bindings.filter((b) => isShard(b) && (!only || only.includes(b)));
const unknown = (only ?? []).filter((b) => !bindings.includes(b));
if (unknown.length) {
  console.error(`--only names no database of ${config}: ${unknown.join(', ')}`);
  process.exit(2);
}

/** One database's migrations; its output is kept and shown with its name, so parallel runs stay readable. */
function migrate(binding) {
  return new Promise((done, fail) => {
    const child = spawn(join(bin, 'wrangler'), ['d1', 'migrations', 'apply', binding, ...(configFlag >= 0 ? [] : ['-c', config]), ...args], {
      cwd: root,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CI: 'true' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', fail);
    child.on('close', (code) => {
      if (code === 0) return done();
      const tail = output.trim().split('\n').filter(Boolean).slice(-15);
      fail(new Error(`exit ${code}\n${tail.map((l) => `    ${l}`).join('\n')}`));
    });
  });
}

// The control plane first: the code needs its tables whatever the shards do.
if (!only) {
  for (const binding of control) {
    console.log(`Migrating ${binding}`);
    try {
      await migrate(binding);
    } catch (err) {
      console.error(`migrations for ${binding} failed: ${err.message}`);
      process.exit(1);
    }
  }
}
console.log(`Migrating ${shards.length} shard(s), at most ${concurrency} at a time`);
const outcomes = await runPool(shards, concurrency, async (binding) => {
  await migrate(binding);
  console.log(`  ${binding}: migrated`);
});
const failed = outcomes.filter((o) => !o.ok);
console.log(`\n${outcomes.length - failed.length} of ${outcomes.length} shard(s) migrated`);
for (const o of failed) console.error(`  ${o.item}: FAILED ${o.error.message}`);
if (failed.length) {
  const rest = process.argv.slice(2).filter((a, i, all) => a !== '--only' && all[i - 1] !== '--only');
  console.error(`\nResume with: node scripts/migrate.mjs ${[...rest, '--only', failed.map((o) => o.item).join(',')].join(' ')}`);
  process.exit(1);
}
