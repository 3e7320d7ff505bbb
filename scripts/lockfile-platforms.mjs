#!/usr/bin/env node
// The registry this project installs from does not serve workerd's macOS and
// Windows builds, so `npm install` leaves them out of package-lock.json and
// `npm ci` then refuses the lock. Run this after any `npm install` that rewrote
// the lock: it records those optional platform packages (never installed on
// Linux) so the lock stays complete for every platform.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
let added = 0;
for (const [path, meta] of Object.entries(packages)) {
  if (!path.endsWith('node_modules/workerd')) continue;
  for (const dep of Object.keys(meta.optionalDependencies ?? {})) {
    const key = `${path.slice(0, -'workerd'.length)}${dep}`;
    if (packages[key]) continue;
    const [, os, arch] = /workerd-(darwin|windows|linux)-(64|arm64)$/.exec(dep) ?? [];
    if (!os) continue;
    packages[key] = {
      version: meta.optionalDependencies[dep],
      cpu: [arch === '64' ? 'x64' : 'arm64'],
      dev: true,
      license: 'Apache-2.0',
      optional: true,
      os: [os === 'windows' ? 'win32' : os],
      engines: { node: '>=16' },
    };
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: ${added} platform entries added`);
