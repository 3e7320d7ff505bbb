// The one install step `npm start` and `npm test` share: `npm ci` when node_modules is missing or
// older than package-lock.json, nothing (and no output) otherwise. Runs on the machine's Node (20
// or newer); what it installs carries the Node 24 that wrangler and Vitest need.
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Whether the installed tree is current: its binaries are there and npm's own marker is newer than the lockfile. */
export function installed(root) {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  const bins = ['wrangler', 'vitest', 'tsc'].map((b) => join(root, 'node_modules', '.bin', b));
  return bins.every(existsSync) && existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
}

/**
 * Installs when needed. npm's warnings are dropped (`--loglevel=error`): on Node 20 they are the
 * engine notices of packages that run on the bundled Node 24, and install-script notices for
 * packages that need none here; an error shows everything npm printed.
 */
export function installIfNeeded(root) {
  if (installed(root)) return Promise.resolve(false);
  console.log('Installing dependencies (npm ci, a minute or two the first time)...');
  return new Promise((resolve, reject) => {
    const child = spawn('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (d) => output.push(d));
    child.stderr.on('data', (d) => output.push(d));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) return resolve(true);
      process.stderr.write(Buffer.concat(output));
      reject(new Error(`npm ci failed (exit ${code})`));
    });
  });
}
