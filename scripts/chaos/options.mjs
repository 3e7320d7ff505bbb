// The suite's flags. Each `--name value` (or `--name=value`) can also come from the environment as
// CHAOS_NAME (dashes as underscores): `--kills 2` or `CHAOS_KILLS=2`.

export const SCENARIO_NAMES = ['campaign', 'import', 'export', 'webhooks', 'move', 'newsletter', 'notes', 'scoring'];

const FLAGS = {
  kills: { default: '5', help: 'hard kills of the runtime (0: only the no-kill baseline wave)' },
  seed: { default: '', help: 'random seed (kill moments, start offsets); printed in the report to replay a run' },
  only: { default: '', help: `comma list of scenarios to run (${SCENARIO_NAMES.join(', ')}); default all` },
  port: { default: '8790', help: 'port of the runtime under test (its inspector takes port + 1000)' },
  campaign: { default: '1000', help: "recipients of each wave's email campaign" },
  import: { default: '5000', help: "rows of each wave's CSV import" },
  export: { default: '10000', help: "contacts each wave's export holds" },
  webhooks: { default: '100', help: 'webhook events (contact.created) of each wave' },
  'webhook-down': { default: '4', help: "seconds the receiver is down at each wave's start (half 503, half closed)" },
  writers: { default: '3', help: 'writers creating and patching contacts during the moves' },
  newsletter: { default: '200', help: 'subscribers of the newsletter (at most 400)' },
  notes: { default: '100', help: 'keyed requests (Idempotency-Key) of each wave' },
  scoring: { default: '5000', help: 'contacts each rescoring walk scores' },
  'kill-delay': { default: '1-6', help: "seconds (min-max, random) of quiet before each kill cycle's first start" },
  tick: { default: '20-30', help: 'seconds (min-max, random) between cron ticks (GET /__scheduled)' },
  recovery: { default: '120', help: 'seconds after a restart within which the waves a kill hit must recover' },
  bound: { default: '300', help: 'seconds after the last restart before unfinished work fails the run' },
  'baseline-timeout': { default: '240', help: 'seconds the no-kill baseline wave may take' },
  report: { default: 'docs/chaos-report.md', help: 'where the markdown report goes (relative to the repository)' },
};

function range(text, name) {
  const m = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?$/.exec(text);
  if (!m) throw new Error(`--${name} takes N or MIN-MAX (seconds), not ${text}`);
  const min = Number(m[1]);
  const max = m[2] === undefined ? min : Number(m[2]);
  if (max < min) throw new Error(`--${name}: ${max} is below ${min}`);
  return [min * 1000, max * 1000];
}

function integer(text, name, min = 0) {
  const n = Number(text);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} takes an integer >= ${min}, not ${text}`);
  return n;
}

export function usage() {
  const lines = ['npm run chaos -- [flags]   (each flag also as CHAOS_<NAME>, e.g. CHAOS_KILLS=2)', ''];
  for (const [name, f] of Object.entries(FLAGS)) lines.push(`  --${name.padEnd(17)} ${f.help}${f.default ? ` (default ${f.default})` : ''}`);
  return lines.join('\n');
}

export function parseOptions(argv, env) {
  const raw = {};
  for (const [name, f] of Object.entries(FLAGS)) raw[name] = env[`CHAOS_${name.toUpperCase().replaceAll('-', '_')}`] ?? f.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') return { help: true };
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m || !(m[1] in FLAGS)) throw new Error(`unknown argument ${arg}\n\n${usage()}`);
    raw[m[1]] = m[2] ?? argv[++i];
    if (raw[m[1]] === undefined) throw new Error(`--${m[1]} needs a value`);
  }
  const only = raw.only
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = only.filter((s) => !SCENARIO_NAMES.includes(s));
  if (unknown.length) throw new Error(`--only: unknown scenario ${unknown.join(', ')} (known: ${SCENARIO_NAMES.join(', ')})`);
  return {
    kills: integer(raw.kills, 'kills'),
    seed: raw.seed === '' ? Math.floor(Math.random() * 2 ** 31) : integer(raw.seed, 'seed'),
    only: only.length ? only : SCENARIO_NAMES,
    port: integer(raw.port, 'port', 1),
    sizes: {
      campaign: integer(raw.campaign, 'campaign', 1),
      import: integer(raw.import, 'import', 1),
      export: integer(raw.export, 'export', 1),
      webhooks: integer(raw.webhooks, 'webhooks', 1),
      writers: integer(raw.writers, 'writers', 1),
      newsletter: integer(raw.newsletter, 'newsletter', 1),
      notes: integer(raw.notes, 'notes', 1),
      scoring: integer(raw.scoring, 'scoring', 1),
    },
    webhookDownSeconds: Number(raw['webhook-down']),
    killDelayMs: range(raw['kill-delay'], 'kill-delay'),
    tickMs: range(raw.tick, 'tick'),
    recoveryMs: integer(raw.recovery, 'recovery', 1) * 1000,
    boundMs: integer(raw.bound, 'bound', 1) * 1000,
    baselineTimeoutMs: integer(raw['baseline-timeout'], 'baseline-timeout', 1) * 1000,
    report: raw.report,
  };
}
