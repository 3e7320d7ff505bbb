#!/usr/bin/env node
// Applies the migrations of every D1 database in a wrangler config: the
// control plane (`DB`) and every data shard (`SHARD_<n>`), each from the
// `migrations_dir` its entry names. Arguments are passed on to
// `wrangler d1 migrations apply` (`--local`/`--remote`, `--persist-to <dir>`,
// `-c <config>`), e.g. `npm run db:migrate:local -- --persist-to .state`.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

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

const args = process.argv.slice(2);
const configFlag = args.findIndex((a) => a === '-c' || a === '--config');
const config = configFlag >= 0 ? resolve(args[configFlag + 1]) : join(root, 'wrangler.toml');
const bindings = d1Bindings(readFileSync(config, 'utf8'));
if (bindings.length === 0) {
  console.error(`no [[d1_databases]] in ${config}`);
  process.exit(1);
}
for (const [i, binding] of bindings.entries()) {
  console.log(`Migrating ${binding} (${i + 1} of ${bindings.length})`);
  const res = spawnSync(join(bin, 'wrangler'), ['d1', 'migrations', 'apply', binding, ...(configFlag >= 0 ? [] : ['-c', config]), ...args], {
    cwd: root,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, CI: 'true' },
    stdio: 'inherit',
  });
  if (res.status !== 0) {
    console.error(`migrations for ${binding} failed (exit ${res.status})`);
    process.exit(res.status ?? 1);
  }
}
