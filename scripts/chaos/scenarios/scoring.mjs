// 8. A lead-scoring rescoring walk per wave: N contacts with `lifecycle_stage: lead`; each wave
// puts a field rule `lifecycle_stage = lead` worth 10 + the wave's number (the baseline switches
// scoring on), which starts a walk over every contact. The walk finishes (`rescoring` false) with
// every contact scored at the new value (counted by a `lead_score` filter on the contacts).
import { check, importContacts, waveBook, workspace } from './common.mjs';

export function scoringScenario({ size }) {
  const book = waveBook();
  let ctx;
  let w;

  const points = (index) => 10 + index;
  const scoredAt = async (value) => {
    const filter = JSON.stringify({ lead_score: value });
    return (await w.api('GET', `/contacts?limit=0&filter=${encodeURIComponent(filter)}`)).total;
  };

  return {
    name: 'scoring',
    title: `Lead-scoring rescoring walk over ${size} contacts`,
    unit: 'contacts',
    book,

    async setup(context) {
      ctx = context;
      w = await workspace(ctx, 'scoring');
      await importContacts(
        ctx,
        w,
        Array.from({ length: size }, (_, i) => ({ email: `l${i}@scoring.chaos.test`, name: `Lead ${i}`, lifecycle_stage: 'lead' })),
      );
      return `workspace ${w.ws} (${w.shard}), ${size} contacts`;
    },

    async startWave(index) {
      // A newer rule change supersedes the walk of an older one: a wave still open is judged as it stands.
      for (const old of book.open()) old.superseded = true;
      const wave = book.add(index, { points: points(index) });
      await ctx.http.admin('PUT', `/workspaces/${w.ws}/scoring`, {
        enabled: true,
        half_life_days: 30,
        rules: [
          { field: 'lifecycle_stage', equals: 'lead', points: wave.points },
          { signal: 'deal.won', points: 30 },
        ],
      });
    },

    async poll() {
      const current = book.waves[book.waves.length - 1];
      if (!current) return {};
      if (current.doneAt === null) {
        const config = await ctx.http.admin('GET', `/workspaces/${w.ws}/scoring`);
        current.scored = await scoredAt(current.points);
        current.rescoring = config.rescoring;
        if (!config.rescoring && current.scored === size) book.done(current);
      }
      return Object.fromEntries(book.waves.map((x) => [x.index, x.scored ?? 0]));
    },

    async verify() {
      const config = await ctx.http.admin('GET', `/workspaces/${w.ws}/scoring`);
      const perWave = [];
      for (const [i, wave] of book.waves.entries()) {
        const latest = i === book.waves.length - 1;
        const scored = latest ? await scoredAt(wave.points) : (wave.scored ?? 0);
        const checks = [
          check(scored === size, `${scored} of ${size} contacts scored ${wave.points}${latest ? '' : ' (when the next rule change came)'}`),
        ];
        if (latest) checks.push(check(config.rescoring === false, `rescoring ${config.rescoring}`));
        else
          checks.push(check(wave.doneAt !== null, wave.doneAt !== null ? 'walk finished before the next rule change' : 'walk superseded unfinished'));
        perWave.push({ index: wave.index, items: size, lost: size - scored, doubled: 0, checks });
      }
      return { perWave, checks: [], doubledApplies: false };
    },
  };
}
