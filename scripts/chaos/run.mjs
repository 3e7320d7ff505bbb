#!/usr/bin/env node
// `npm run chaos`: the fault suite (docs/quality.md, "Fault suite"). Starts the local runtime on
// state of its own, runs every scenario in it at once, kills the runtime hard while their work is
// in flight, restarts it on the same state, keeps the cron ticking, and checks that every item was
// done exactly once and the work each kill hit recovered in time. Writes docs/chaos-report.md and
// exits non-zero when a scenario fails.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { client, sleep } from './http.mjs';
import { parseOptions, usage } from './options.mjs';
import { seededRandom } from './random.mjs';
import { markdown, verdict } from './report.mjs';
import { createRuntime, startCronTicker } from './runtime.mjs';
import { campaignScenario } from './scenarios/campaign.mjs';
import { exportScenario } from './scenarios/export.mjs';
import { importScenario } from './scenarios/import.mjs';
import { moveScenario } from './scenarios/move.mjs';
import { newsletterScenario } from './scenarios/newsletter.mjs';
import { notesScenario } from './scenarios/notes.mjs';
import { scoringScenario } from './scenarios/scoring.mjs';
import { webhooksScenario } from './scenarios/webhooks.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const chaosDir = join(root, '.state', 'chaos');

let opts;
try {
  opts = parseOptions(process.argv.slice(2), process.env);
} catch (err) {
  console.error(err.message);
  process.exit(2);
}
if (opts.help) {
  console.log(usage());
  process.exit(0);
}

const startedAt = Date.now();
const rand = seededRandom(opts.seed);
const runId = `${opts.seed.toString(36)}${startedAt.toString(36).slice(-4)}`;
const elapsed = () => `${((Date.now() - startedAt) / 1000).toFixed(0).padStart(4)} s`;
const log = (msg) => console.log(`[${elapsed()}] ${msg}`);

const adminToken = 'chaos-admin-token';
const base = `http://127.0.0.1:${opts.port}`;
const runtime = createRuntime({
  root,
  port: opts.port,
  inspectorPort: opts.port + 1000,
  persistDir: join(chaosDir, 'state'),
  logFile: join(chaosDir, 'wrangler.log'),
  // What .dev.vars holds for `npm start`, plus limits out of the suite's way and a short clear of a moved workspace's old copy.
  vars: {
    ADMIN_TOKEN: adminToken,
    ALLOW_UNSAFE_WEBHOOK_HOSTS: '127.0.0.1,localhost',
    BOOKMARK_SECRET: 'chaos-bookmark-secret',
    PUBLIC_BASE_URL: base,
    RATE_LIMIT_PER_IP_PER_MINUTE: '1000000',
    MOVE_CLEAR_AFTER_SECONDS: '10',
  },
});
process.on('exit', () => {
  const pid = runtime.pid();
  if (pid) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {}
  }
});
process.on('SIGINT', () => process.exit(130));
process.on('SIGTERM', () => process.exit(143));

const s = opts.sizes;
const factories = {
  campaign: () => Object.assign(campaignScenario({ size: s.campaign }), { sizeText: `${s.campaign} recipients` }),
  import: () => Object.assign(importScenario({ size: s.import }), { sizeText: `${s.import} rows` }),
  export: () => Object.assign(exportScenario({ size: s.export }), { sizeText: `${s.export} contacts` }),
  webhooks: () => Object.assign(webhooksScenario({ size: s.webhooks, downSeconds: opts.webhookDownSeconds }), { sizeText: `${s.webhooks} events` }),
  move: () => Object.assign(moveScenario({ writers: s.writers, seed: rand }), { sizeText: `1 move, ${s.writers} writers` }),
  newsletter: () => Object.assign(newsletterScenario({ size: s.newsletter, kills: opts.kills }), { sizeText: `${s.newsletter} subscribers` }),
  notes: () => Object.assign(notesScenario({ size: s.notes, kills: opts.kills }), { sizeText: `${s.notes} keys` }),
  scoring: () => Object.assign(scoringScenario({ size: s.scoring }), { sizeText: `${s.scoring} contacts` }),
};
const scenarios = opts.only.map((name) => Object.assign(factories[name](), { samples: [], polling: false }));
const kills = [];
const ctx = { http: client(base, adminToken), runId, rand, log };
let harnessError = null;

/** Every scenario's poll, each skipped while its previous one still runs (a poll waits out a restart). */
function startPoller() {
  const timer = setInterval(() => {
    for (const sc of scenarios) {
      if (sc.polling || sc.setupError) continue;
      sc.polling = true;
      sc.poll()
        .then((p) => sc.samples.push({ t: Date.now(), p }))
        .catch((err) => (sc.pollError = err.message))
        .finally(() => (sc.polling = false));
    }
  }, 1000);
  return () => clearInterval(timer);
}

const openWork = () => scenarios.flatMap((sc) => sc.book.open().map((w) => `${sc.name}#${w.index}`));

/** Waits until no wave of any scenario is owed work, or `deadline`; logs what is open every 15 s. */
async function settle(deadline, what) {
  let lastLog = Date.now();
  for (;;) {
    await sleep(1000);
    const open = openWork();
    if (open.length === 0) return true;
    if (Date.now() >= deadline) {
      log(`${what}: still open after the wait: ${open.join(', ')}`);
      return false;
    }
    if (Date.now() - lastLog >= 15_000) {
      lastLog = Date.now();
      log(`${what}: waiting for ${open.join(', ')}`);
    }
  }
}

/** True when a kill landed while the wave's work was running. */
const hitByKill = (w) => kills.some((k) => w.startedAt < k.killedAt && (w.doneAt === null || w.doneAt > k.deadAt));

/**
 * What a scenario's work takes (from its start's answer to done) and what its start takes to
 * answer, from its latest wave no kill landed in: the baseline at first, then the kill waves a
 * kill missed, which ran under the load the kill waves see.
 */
function timingOf(sc) {
  const clean = sc.book.waves.filter((w) => w.doneAt !== null && w.triggeredAt && !hitByKill(w));
  const w = clean[clean.length - 1];
  return {
    work: w ? Math.max(300, w.doneAt - w.triggeredAt) : 5000,
    answer: w ? w.triggeredAt - w.startedAt : 200,
  };
}

/**
 * How long before the planned kill a scenario sends its wave's start: a random share (0.2-0.6) of
 * its usual work, plus what its start takes to answer, so the kill lands inside the work.
 */
function leadFor(sc) {
  if (sc.leadMs) return sc.leadMs(rand);
  const { work, answer } = timingOf(sc);
  return Math.min(60_000, rand.between(0.2, 0.6) * work + answer);
}

/**
 * The kill moment, once every start answered: a random point of the span in which every wave's
 * work is expected to be running (from its start's answer to 70% of its usual work; a wave
 * whose work comes after the kill, like a newsletter issue due then, sets no end but may name a
 * moment the kill must come before, `killBy`). Starts answer
 * sooner or later than planned, so the plan alone would often land after a short wave ended.
 * When no span is common to all, the kill comes as soon as the last start answered.
 */
function killMoment(index) {
  let from = 0;
  let to = Number.POSITIVE_INFINITY;
  for (const sc of live()) {
    const w = sc.book.get(index);
    if (!w?.triggeredAt || w.error || w.skipped) continue;
    from = Math.max(from, w.triggeredAt);
    if (!sc.leadMs) to = Math.min(to, w.triggeredAt + 0.7 * timingOf(sc).work);
    if (w.killBy) to = Math.min(to, w.killBy);
  }
  const now = Date.now();
  from = Math.max(from, now);
  if (!Number.isFinite(to) || to <= from) return from;
  return from + rand() * (to - from);
}

const live = () => scenarios.filter((sc) => !sc.setupError);
const failWave = (sc, index, err) => {
  const w = sc.book.get(index) ?? sc.book.add(index);
  w.error = err.message;
  log(`${sc.name}: wave ${index} did not start: ${err.message}`);
};

/** What a wave needs before its start (a campaign written, a file built), so the start itself is one quick request. */
async function prepareWaves(index) {
  await Promise.all(
    live()
      .filter((sc) => sc.prepareWave)
      .map((sc) => Promise.resolve(sc.prepareWave(index)).catch((err) => failWave(sc, index, err))),
  );
}

/** Each scenario's start, at `killAt` less its lead (at once for the baseline); resolves when every start answered. */
function startWaves(index, killAt) {
  return Promise.all(
    live().map(async (sc) => {
      if (sc.book.get(index)?.error) return;
      if (killAt) await sleep(killAt - sc.lead - Date.now());
      const sentAt = Date.now();
      try {
        await sc.startWave(index, { killAt });
      } catch (err) {
        return failWave(sc, index, err);
      }
      if (Date.now() - sentAt > 3000) log(`${sc.name}: wave ${index}'s start took ${((Date.now() - sentAt) / 1000).toFixed(1)} s to answer`);
      const w = sc.book.get(index);
      if (w) Object.assign(w, { startedAt: sentAt, triggeredAt: Date.now() });
    }),
  );
}

/** Starts the runtime again after a kill; a start that fails (wrangler exits early) is tried twice more. */
async function restart() {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runtime.start();
    } catch (err) {
      if (attempt === 3) throw err;
      log(`restart failed (${err.message}); trying again in 10 s`);
      await sleep(10_000);
    }
  }
}

async function main() {
  log(`chaos run ${runId}: seed ${opts.seed}, ${opts.kills} kills, scenarios ${opts.only.join(', ')}`);
  mkdirSync(chaosDir, { recursive: true });
  log('preparing the state (a migrated copy; the first run on a new set of migrations applies them)...');
  const built = await runtime.prepareState();
  if (built) log('migrations applied to a fresh template');
  const startMs = await runtime.start();
  log(`runtime up on ${base} after ${(startMs / 1000).toFixed(1)} s`);

  await Promise.all(
    scenarios.map(async (sc) => {
      try {
        sc.setupText = await sc.setup(ctx);
        log(`${sc.name}: ready (${sc.setupText})`);
      } catch (err) {
        sc.setupError = err.message;
        log(`${sc.name}: setup failed: ${err.message}`);
      }
    }),
  );
  const stopCron = startCronTicker({ base, rand, minMs: opts.tickMs[0], maxMs: opts.tickMs[1] });
  const stopPoller = startPoller();

  log('wave 0: the baseline, no kill');
  await prepareWaves(0);
  await startWaves(0, null);
  await settle(Date.now() + opts.baselineTimeoutMs, 'baseline');
  for (const sc of scenarios) {
    const b = sc.book.get(0);
    log(`${sc.name}: baseline ${b?.doneAt ? `done in ${((b.doneAt - b.startedAt) / 1000).toFixed(1)} s` : 'NOT done'}`);
  }

  for (let k = 1; k <= opts.kills; k++) {
    await prepareWaves(k);
    for (const sc of scenarios) sc.lead = leadFor(sc);
    const plannedMs = Math.max(...scenarios.map((sc) => sc.lead)) + rand.between(...opts.killDelayMs);
    const cycleStart = Date.now();
    const killAt = cycleStart + plannedMs;
    log(
      `kill ${k} planned in ${(plannedMs / 1000).toFixed(1)} s; waves start ${scenarios.map((sc) => `${sc.name} -${(sc.lead / 1000).toFixed(1)} s`).join(', ')}`,
    );
    // Every start is let through to its answer: a wave is either started or not.
    await startWaves(k, killAt);
    await sleep(killMoment(k) - Date.now());
    const killedAt = Date.now();
    await runtime.kill();
    const deadAt = Date.now();
    log(`kill ${k}: runtime killed (SIGKILL to its process group); open: ${openWork().join(', ') || 'nothing'}`);
    await restart();
    const readyAt = Date.now();
    kills.push({ index: k, killedAt, deadAt, readyAt, plannedMs, delayMs: killedAt - cycleStart });
    for (const sc of scenarios) {
      const w = sc.book.get(k);
      if (w) w.kill = { killedAt, deadAt, readyAt };
    }
    log(`kill ${k}: runtime back after ${((readyAt - killedAt) / 1000).toFixed(1)} s`);
    const last = k === opts.kills;
    const deadline = readyAt + (last ? opts.boundMs : opts.recoveryMs);
    const settled = await settle(deadline, `after kill ${k}`);
    if (settled) log(`kill ${k}: every wave finished`);
  }

  stopPoller();
  stopCron();
  // Let a poll that is still running land before the final count.
  while (scenarios.some((sc) => sc.polling)) await sleep(200);
  for (const sc of scenarios) await sc.finish?.();
  log('final count from the service...');
  for (const sc of scenarios) {
    if (sc.setupError) continue;
    try {
      sc.verified = await sc.verify();
    } catch (err) {
      sc.verifyError = err.message;
    }
  }
}

try {
  await main();
} catch (err) {
  harnessError = err.message;
  console.error(`chaos run stopped: ${err.stack ?? err.message}`);
}
await runtime.stop().catch(() => {});
for (const sc of scenarios) await sc.stop?.();

const verdicts = scenarios.map((sc) => verdict(sc, kills, opts));
// A run that stopped early proved nothing about any scenario.
if (harnessError) for (const v of verdicts) Object.assign(v, { pass: false, problems: [...v.problems, `the run stopped first: ${harnessError}`] });
const report = markdown({
  run: {
    date: `${new Date(startedAt).toISOString().replace('T', ' ').slice(0, 16)} UTC`,
    machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')} at the end, Node ${process.version}`,
    command: `npm run chaos${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
    startedAt,
    durationMs: Date.now() - startedAt,
    harnessError,
  },
  scenarios,
  verdicts,
  kills,
  opts,
});
const reportPath = join(root, opts.report);
mkdirSync(dirname(reportPath), { recursive: true });
writeFileSync(reportPath, report);
console.log('');
for (const v of verdicts) {
  console.log(
    `${v.pass ? 'pass' : 'FAIL'}  ${v.name.padEnd(11)} items ${v.items}, lost ${v.lost ?? 'n/a'}, doubled ${v.doubled ?? 'n/a'}; ${v.perKill.map((k) => `k${k.index} ${k.state}${k.recovery != null ? ` ${(k.recovery / 1000).toFixed(0)}s` : ''}`).join(', ') || 'no kills'}`,
  );
  for (const p of v.problems) console.log(`        ${p}`);
}
console.log(`\nreport: ${relative(process.cwd(), reportPath)} (runtime log: ${relative(process.cwd(), join(chaosDir, 'wrangler.log'))})`);
process.exit(harnessError ? 2 : verdicts.every((v) => v.pass) ? 0 : 1);
