// The one install step `npm start` and `npm test` share: `npm ci` when node_modules is missing or
// was installed from another package-lock.json, nothing (and no output) otherwise. Runs on the machine's Node (20
// or newer); what it installs carries the Node 24 that wrangler and Vitest need.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the install records the lockfile it installed (a hash: file times change with every checkout). */
const stamp = (root) => join(root, 'node_modules', '.installed-lock');
const lockHash = (root) =>
  createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .digest('hex');

/** Whether the installed tree is current: its binaries are there and it was installed from this lockfile. */
export function installed(root) {
  const bins = ['wrangler', 'vitest', 'tsc'].map((b) => join(root, 'node_modules', '.bin', b));
  return bins.every(existsSync) && existsSync(stamp(root)) && readFileSync(stamp(root), 'utf8') === lockHash(root);
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
      if (code === 0) {
        writeFileSync(stamp(root), lockHash(root));
        return resolve(true);
      }
      process.stderr.write(Buffer.concat(output));
      reject(new Error(`npm ci failed (exit ${code})`));
    });
  });
}
