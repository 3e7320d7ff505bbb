// The verdicts and the markdown report: per scenario, what each kill hit, how long the work it hit
// took to finish after the restart, whether progress resumed, and the final counts.

const secs = (ms) => (ms === null || ms === undefined ? 'n/a' : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`);
const fmt = (n) => n.toLocaleString('en-US');

/**
 * Per kill: the waves it hit (started before it, not finished by it), whether they finished within
 * the recovery window after the restart (and before the next kill), and when progress resumed.
 */
export function analyse(scenario, kills, { recoveryMs }) {
  const waves = scenario.book.waves;
  const samples = scenario.samples;
  const perKill = kills.map((k, i) => {
    const nextKill = kills[i + 1]?.killedAt ?? Number.POSITIVE_INFINITY;
    // Work that finished while the kill was landing (before the runtime was gone) was not hit.
    const hit = waves.filter((w) => hitsOf(w, [k]).length > 0);
    const own = waves.find((w) => w.index === k.index);
    if (hit.length === 0) {
      const why = own?.skipped
        ? `skipped: ${own.skipped}`
        : own?.error
          ? 'its wave did not start'
          : own
            ? 'missed: its wave finished before the kill'
            : 'nothing in flight';
      return { index: k.index, hit: 0, state: 'missed', text: why, ok: true };
    }
    const finished = hit.every((w) => w.doneAt !== null && w.doneAt <= nextKill);
    const recovery = finished ? Math.max(...hit.map((w) => w.doneAt)) - k.readyAt : null;
    let resumed = null;
    // Progress of the waves it hit only (a wave started later moves on its own).
    const of = (s) => hit.reduce((n, w) => n + (s.p[w.index] ?? 0), 0);
    const after = samples.filter((s) => s.t >= k.readyAt && s.t < nextKill);
    if (after.length) {
      const first = of(after[0]);
      const moved = after.find((s) => of(s) > first);
      if (moved) resumed = moved.t - k.readyAt;
    }
    if (recovery !== null && (resumed === null || recovery < resumed)) resumed = Math.max(0, recovery);
    const ok = recovery !== null && recovery <= recoveryMs;
    const text = ok
      ? `recovered ${secs(Math.max(0, recovery))} after the restart`
      : recovery !== null
        ? `recovered only ${secs(recovery)} after the restart`
        : `not recovered${Number.isFinite(nextKill) ? ' before the next kill' : ''}; progress ${resumed === null ? 'never resumed' : `resumed after ${secs(resumed)}`}`;
    return { index: k.index, hit: hit.length, state: ok ? 'recovered' : 'late', recovery, resumed, text, ok };
  });
  return perKill;
}

/** The verdict of one scenario from its waves, its kills and its verify step. */
export function verdict(scenario, kills, opts) {
  const v = scenario.verified;
  const perKill = analyse(scenario, kills, opts);
  const waves = scenario.book.waves;
  const sum = (k) => (v?.perWave ?? []).reduce((n, w) => n + (w[k] ?? 0), 0);
  const items = v ? (v.items ?? 0) + sum('items') : 0;
  const lost = v ? (v.lost ?? 0) + sum('lost') : null;
  const doubled = v ? (v.doubled ?? 0) + sum('doubled') : null;
  const problems = [];
  if (scenario.setupError) problems.push(`setup failed: ${scenario.setupError}`);
  if (scenario.verifyError) problems.push(`the final count failed: ${scenario.verifyError}`);
  for (const w of waves) {
    if (w.error) problems.push(`wave ${w.index} failed to start: ${w.error}`);
    else if (!w.skipped && w.doneAt === null) problems.push(`wave ${w.index} ${w.superseded ? 'was superseded unfinished' : 'never finished'}`);
  }
  for (const k of perKill) if (!k.ok) problems.push(`kill ${k.index}: ${k.text}`);
  for (const c of v?.checks ?? []) if (!c.ok) problems.push(c.text);
  for (const w of v?.perWave ?? []) for (const c of w.checks) if (!c.ok) problems.push(`wave ${w.index}: ${c.text}`);
  if (lost) problems.push(`${fmt(lost)} lost`);
  if (doubled) problems.push(`${fmt(doubled)} doubled`);
  const lastReady = kills.length ? kills[kills.length - 1].readyAt : null;
  const allDone = waves.every((w) => w.skipped || (!w.error && w.doneAt !== null));
  const finalRecovery =
    lastReady === null || !allDone ? null : Math.max(0, ...waves.filter((w) => w.doneAt !== null).map((w) => w.doneAt - lastReady));
  const baseline = waves.find((w) => w.index === 0);
  const baselineChecks = v?.perWave.find((w) => w.index === 0)?.checks ?? [];
  const baselineOk = Boolean(baseline && baseline.doneAt !== null && baselineChecks.every((c) => c.ok));
  return {
    name: scenario.name,
    pass: problems.length === 0,
    problems,
    items,
    lost,
    doubled,
    perKill,
    finalRecovery,
    allDone,
    baselineOk,
    baselineMs: baseline?.doneAt ? baseline.doneAt - baseline.startedAt : null,
  };
}

/** The kills that landed while a wave's work ran (started before, not finished by the time the runtime was gone). */
const hitsOf = (w, kills) =>
  w.skipped || w.error ? [] : kills.filter((k) => w.startedAt < k.killedAt && (w.doneAt === null || w.doneAt > k.deadAt));

/** One wave's line: when it started, which kills hit it, when it finished. */
function waveLine(w, kills) {
  if (w.index === 0) return `wave 0 (baseline, no kill): ${w.doneAt !== null ? `done in ${secs(w.doneAt - w.startedAt)}` : 'never finished'}`;
  if (w.skipped) return `wave ${w.index}: skipped (${w.skipped})`;
  if (w.error) return `wave ${w.index}: did not start (${w.error})`;
  const own = kills.find((k) => k.index === w.index);
  const hits = hitsOf(w, kills);
  const head = `wave ${w.index}: started ${own ? `${secs(own.killedAt - w.startedAt)} before kill ${w.index}` : 'after the last kill'}`;
  if (hits.length === 0) return `${head}, done ${secs(w.doneAt - w.startedAt)} after its start: no kill landed in it`;
  const last = hits[hits.length - 1];
  const which = `in flight at kill${hits.length > 1 ? 's' : ''} ${hits.map((k) => k.index).join(', ')}`;
  return `${head}; ${which}; ${w.doneAt !== null ? `finished ${secs(Math.max(0, w.doneAt - last.readyAt))} after the restart${hits.length > 1 ? ` of kill ${last.index}` : ''}` : 'never finished'}`;
}

export function markdown({ run, scenarios, verdicts, kills, opts }) {
  const lines = [];
  const passed = verdicts.filter((v) => v.pass).length;
  lines.push('# Chaos report', '');
  lines.push(
    `Run of \`npm run chaos\` (the fault suite, [docs/quality.md](quality.md#fault-suite-npm-run-chaos)) on ${run.date}: ${run.machine}. Command: \`${run.command}\`, seed ${opts.seed} (\`--seed ${opts.seed}\` replays the kill moments and start offsets). Took ${secs(run.durationMs)}.`,
    '',
    `The runtime is \`wrangler dev\` on port ${opts.port} with its own state (\`.state/chaos/state\`, copied from a folder migrated by \`scripts/migrate.mjs\`); each kill is a \`SIGKILL\` of its whole process group while work is in flight, and each restart runs on the same state. Queue messages live in the runtime's memory, so each kill loses every message in flight: only the sweeps bring that work back. Cron ticks every ${opts.tickMs[0] / 1000}-${opts.tickMs[1] / 1000} s. A kill's waves must finish within ${opts.recoveryMs / 1000} s of the restart, everything within ${opts.boundMs / 1000} s of the last one.`,
    '',
    `**${passed} of ${verdicts.length} scenarios pass** over ${kills.length} kill${kills.length === 1 ? '' : 's'}${run.harnessError ? `; the run stopped early: ${run.harnessError}` : ''}.`,
    '',
  );
  lines.push('| scenario | size per wave | items | lost | doubled | recovery per kill | after the last restart | baseline (no kill) | result |');
  lines.push('| --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |');
  for (const [i, s] of scenarios.entries()) {
    const v = verdicts[i];
    const perKill = v.perKill.length
      ? v.perKill
          .map(
            (k) =>
              `k${k.index}: ${k.state === 'missed' ? 'missed' : k.recovery !== null ? secs(Math.max(0, k.recovery)) : 'none'}${k.state === 'late' ? ' (late)' : ''}`,
          )
          .join(', ')
      : 'no kills';
    const na = (n) => (n === null ? 'n/a' : fmt(n));
    lines.push(
      `| ${s.name} | ${s.sizeText} | ${fmt(v.items)} | ${na(v.lost)} | ${s.verified?.doubledApplies === false ? 'n/a' : na(v.doubled)} | ${perKill} | ${v.finalRecovery === null ? (kills.length ? 'unfinished' : 'n/a') : secs(v.finalRecovery)} | ${v.baselineOk ? `pass (${secs(v.baselineMs)})` : 'FAIL'} | ${v.pass ? 'pass' : '**FAIL**'} |`,
    );
  }
  lines.push(
    '',
    '"missed": the kill came after that wave had finished (nothing of it in flight); "late": finished, but after the recovery window; "none": not finished before the next kill (or the end).',
    '',
  );
  lines.push('## Kills', '');
  if (kills.length === 0) lines.push('None: only the baseline wave ran.', '');
  else {
    lines.push('| kill | at (since start) | after a delay of (planned) | runtime back after | scenarios with work in flight |');
    lines.push('| --- | --- | --- | --- | --- |');
    for (const k of kills) {
      const inFlight = verdicts.filter((v) => v.perKill.find((p) => p.index === k.index)?.hit).map((v) => v.name);
      lines.push(
        `| ${k.index} | ${secs(k.killedAt - run.startedAt)} | ${secs(k.delayMs)} (${secs(k.plannedMs)}) | ${secs(k.readyAt - k.killedAt)} | ${inFlight.join(', ') || 'none'} |`,
      );
    }
    lines.push('');
  }
  lines.push('## Scenarios', '');
  for (const [i, s] of scenarios.entries()) {
    const v = verdicts[i];
    lines.push(`### ${s.name}: ${v.pass ? 'pass' : 'FAIL'}`, '');
    lines.push(`${s.title}. ${s.setupText ?? ''}`, '');
    if (v.problems.length) {
      lines.push('Failed on:', '');
      for (const p of v.problems) lines.push(`- ${p}`);
      lines.push('');
    }
    for (const k of v.perKill) lines.push(`- kill ${k.index}: ${k.hit ? `hit ${k.hit} wave${k.hit > 1 ? 's' : ''}, ${k.text}` : k.text}`);
    for (const w of s.book.waves) {
      const vw = s.verified?.perWave.find((x) => x.index === w.index);
      const head = waveLine(w, kills);
      const checks = (vw?.checks ?? []).map((c) => `${c.ok ? '' : '**FAIL** '}${c.text}`).join('; ');
      lines.push(`- ${head}${checks ? `. ${checks}` : ''}`);
    }
    for (const c of s.verified?.checks ?? []) lines.push(`- ${c.ok ? '' : '**FAIL** '}${c.text}`);
    lines.push('');
  }
  lines.push('## Sizes and settings', '');
  lines.push(
    `\`${JSON.stringify({ kills: opts.kills, only: opts.only, sizes: opts.sizes, webhookDownSeconds: opts.webhookDownSeconds, killDelayMs: opts.killDelayMs, tickMs: opts.tickMs, recoveryMs: opts.recoveryMs, boundMs: opts.boundMs })}\``,
    '',
  );
  return `${lines.join('\n')}\n`;
}
