#!/usr/bin/env node
// `npm test`: installs if needed (as `npm start` does), then runs every stage, each to its end
// whatever the ones before it gave, and closes with one line per stage and the run's total.
// Runs on the machine's Node (20 or newer); the stages run on the Node 24 the install carries.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installIfNeeded } from './install.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'node_modules', '.bin');
const reports = join(root, '.state', 'test');
const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };

/** The cold-mode subset: what a fresh Worker instance would answer differently (caches off). */
const COLD = [
  'round-trip',
  'stage-change-races',
  'test/platform/auth',
  'test/platform/failed-auth',
  'test/platform/shards',
  'test/platform/instance-cache',
  'test/contacts',
];

/** `checks`: one pass or fail each; `tests`: a Vitest run, counted per test from its JSON report. */
const STAGES = [
  { name: 'types', cmd: ['tsc', '--noEmit'] },
  { name: 'client types', cmd: ['tsc', '--noEmit', '-p', 'client'] },
  { name: 'lint', cmd: ['biome', 'check', '.'] },
  { name: 'module boundaries', cmd: ['depcruise', 'src', '--config', '.dependency-cruiser.cjs'] },
  { name: 'OpenAPI client types', cmd: ['node', 'scripts/openapi-types.mjs'] },
  { name: 'OpenAPI lint', cmd: ['redocly', 'lint', 'openapi.json', 'openapi.operator.json'] },
  { name: 'suite', vitest: [] },
  { name: 'cold-mode subset', vitest: COLD, env: { INSTANCE_CACHES: 'off' } },
];

const seconds = (ms) => (ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`);

/** Runs one stage; a check's output is kept and shown only if it fails, a Vitest run's goes straight through. */
function runStage(stage, index) {
  const started = Date.now();
  const report = join(reports, `${index}.json`);
  const args = stage.vitest
    ? ['vitest', 'run', '--silent=passed-only', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`, ...stage.vitest]
    : stage.cmd;
  console.log(`\n▶ ${stage.name}: ${args.join(' ')}`);
  return new Promise((resolve) => {
    const child = spawn(args[0], args.slice(1), { cwd: root, env: { ...env, ...stage.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    if (stage.vitest) {
      const noise = workerdNoise();
      relayLines(child.stdout, (line) => noise(line) || process.stdout.write(`${line}\n`));
      relayLines(child.stderr, (line) => noise(line) || process.stderr.write(`${line}\n`));
    } else {
      child.stdout.on('data', (d) => output.push(d));
      child.stderr.on('data', (d) => output.push(d));
    }
    child.on('error', (err) => output.push(Buffer.from(String(err))));
    child.on('close', (code) => {
      const ms = Date.now() - started;
      if (!stage.vitest) {
        if (code !== 0) process.stdout.write(Buffer.concat(output));
        return resolve({ stage, ms, passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, ok: code === 0 });
      }
      const counts = vitestCounts(report);
      // A run that reports no failure can still exit non-zero (an error outside any test): the stage fails then.
      const failed = counts ? counts.failed + (code !== 0 && counts.failed === 0 ? 1 : 0) : 1;
      resolve({ stage, ms, passed: counts?.passed ?? 0, failed, ok: code === 0, tests: true });
    });
  });
}

/** The dot reporter's run of dots (one per test, with its colour codes) at the start of a line. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character starts each colour code of the dots.
const DOTS = /^(?:\x1b\[[0-9;]*m|[·x*-])+/;

/**
 * Calls `onLine` with each whole line of a stream. The dot reporter's dots pass through as they
 * come; a report workerd prints straight after them is handed on as a line of its own.
 */
function relayLines(stream, onLine) {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop();
    for (const line of lines) {
      const dots = line.match(DOTS)?.[0] ?? '';
      if (dots && dots.length < line.length) {
        process.stdout.write(dots);
        onLine(line.slice(dots.length));
      } else onLine(line);
    }
    // A line of dots is shown as it grows, not when it ends.
    if (rest && rest.match(DOTS)?.[0] === rest) {
      process.stdout.write(rest);
      rest = '';
    }
  });
  stream.on('end', () => rest && onLine(rest));
}

/**
 * workerd's own reports that are not errors of the suite, outside any test: a fetch whose host does
 * not resolve (tests post to example hosts with no network) and a Durable Object reset between
 * files. Each comes with lines of native stack, and the promise it rejected is reported as a bare
 * `internal error; reference = <id>`: that line never names a cause (the line before it does, and
 * that one is shown unless it is one of these), so it is dropped too.
 */
function workerdNoise() {
  let inStack = false;
  const drop = () => {
    inStack = true;
    return true;
  };
  return (line) => {
    if (/ffi\.rs:\d+: failed: failed to lookup address information/.test(line)) return drop();
    if (line.includes('changed, invalidating this Durable Object')) return drop();
    if (/^uncaught exception; .*internal error; reference = \w+$/.test(line)) return drop();
    // The local Workflows engine reports each instance stopped from outside (a cancelled enrollment) as an aborted engine.
    if (line.includes('Aborting engine: User called terminate')) return drop();
    // ...and each `wait_for` that timed out as the timeout the run catches.
    if (line.includes('WorkflowTimeoutError: Execution timed out after')) return drop();
    // A dropped report's stack runs on: native frames, or the test runner's frames of a reset.
    if (line.startsWith('stack: ') && line.includes('workerd@')) return inStack || line.includes('wdErrId = ');
    if (inStack && /^\s+at \S/.test(line)) return true;
    inStack = false;
    return false;
  };
}

function vitestCounts(file) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    return { passed: report.numPassedTests, failed: report.numFailedTests };
  } catch {
    return null;
  }
}

const started = Date.now();
try {
  await installIfNeeded(root);
} catch (err) {
  console.error(err.message);
  process.exit(1);
}
rmSync(reports, { recursive: true, force: true });
mkdirSync(reports, { recursive: true });
const results = [];
for (const [i, stage] of STAGES.entries()) results.push(await runStage(stage, i));

console.log('\nnpm test:');
for (const r of results) {
  const what = r.tests ? `${r.passed} passed, ${r.failed} failed` : r.ok ? 'passed' : 'FAILED';
  console.log(`  ${r.ok ? '✓' : '✗'} ${r.stage.name.padEnd(22)} ${what.padEnd(26)} ${seconds(r.ms)}`);
}
const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const ok = results.every((r) => r.ok);
console.log(`${passed} passed, ${failed} failed (tests and checks, ${results.length} stages, ${seconds(Date.now() - started)})`);
process.exit(ok ? 0 : 1);
