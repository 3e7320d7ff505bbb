// 6. A newsletter issue per wave, scheduled to fall due while the runtime is down (8 s after the
// kill; the baseline's a few seconds after it is scheduled): once the runtime is back, the sweeps
// publish it and every subscriber gets it exactly once (the sandbox outbox, per address and subject).
import { mapLimit } from '../http.mjs';
import { allContacts, check, exactlyOnce, importContacts, outboxCounts, subscribeEmail, verifiedSender, waveBook, workspace } from './common.mjs';

/** The outbox is read newest first, 500 at most: while a wave delivers, its emails are the newest. */
export const NEWSLETTER_MAX = 400;

export function newsletterScenario({ size, kills, dueAfterKillMs = 8000 }) {
  if (size > NEWSLETTER_MAX) throw new Error(`--newsletter is at most ${NEWSLETTER_MAX} subscribers`);
  const book = waveBook();
  let ctx;
  let w;
  let newsletter;
  let addresses = [];
  let issues = [];
  let lastPoll = 0;

  return {
    name: 'newsletter',
    title: `Newsletter issue due while the runtime is down, ${size} subscribers`,
    unit: 'subscribers',
    book,
    /** Scheduled well before the kill (a slow answer must not make the time pass): it only has to fall due while the runtime is down. */
    leadMs: (rand) => rand.between(8000, 12000),

    async setup(context) {
      ctx = context;
      w = await workspace(ctx, 'newsletter');
      await verifiedSender(ctx, w.ws);
      addresses = Array.from({ length: size }, (_, i) => `s${i}@news.chaos.test`);
      await importContacts(
        ctx,
        w,
        addresses.map((email, i) => ({ email, first_name: `S${i}` })),
      );
      const ids = (await allContacts(w.api)).map((c) => c.id);
      await subscribeEmail(w.api, ids);
      newsletter = await w.api('POST', '/newsletters', { name: `Chaos ${ctx.runId}` });
      await mapLimit(ids, 4, (id) => ctx.http.admin('POST', `/workspaces/${w.ws}/newsletters/${newsletter.id}/subscriptions`, { contact_id: id }));
      // Every wave's issue is written now, so a wave only has to schedule its own: a request that cannot run late.
      issues = [];
      for (let index = 0; index <= kills; index++) {
        const subject = `Chaos issue ${index} ${ctx.runId}`;
        const issue = await w.api('POST', `/newsletters/${newsletter.id}/issues`, {
          subject,
          content: { markdown: `# Issue ${index}\n\nHello [[first_name : reader]].` },
          external_reference: `chaos-issue-${ctx.runId}-${index}`,
        });
        issues.push({ id: issue.id, subject });
      }
      return `workspace ${w.ws} (${w.shard}), newsletter ${newsletter.id}, ${size} subscribers`;
    },

    async startWave(index, { killAt }) {
      const wave = book.add(index, { ...issues[index] });
      wave.dueAt = killAt ? killAt + dueAfterKillMs : Date.now() + 5000;
      // The kill may move from its plan; it must still come before the issue falls due.
      if (killAt) wave.killBy = wave.dueAt - 3000;
      await w.api('POST', `/newsletter-issues/${wave.id}/schedule`, { scheduled_at: new Date(wave.dueAt).toISOString() });
    },

    async poll() {
      const open = book.open().filter((x) => x.id);
      if (open.length && Date.now() - lastPoll >= 3000) {
        lastPoll = Date.now();
        let newest = null;
        for (const wave of open) {
          const issue = await w.api('GET', `/newsletter-issues/${wave.id}`);
          wave.status = issue.status;
          wave.publishedAt = issue.published_at;
          if (issue.status !== 'published') continue;
          newest ??= (await ctx.http.admin('GET', `/workspaces/${w.ws}/outbox?channel=email&limit=500`)).data;
          const rows = newest.filter((r) => r.subject === wave.subject);
          wave.delivered = rows.length;
          if (rows.length >= size) book.done(wave, Math.max(...rows.map((r) => Date.parse(r.created_at))));
        }
      }
      return Object.fromEntries(book.waves.map((x) => [x.index, Math.min(x.delivered ?? 0, size)]));
    },

    async verify() {
      const counts = await outboxCounts(ctx, w.ws, addresses);
      const perWave = [];
      for (const wave of book.waves) {
        if (!wave.id) continue;
        const issue = await w.api('GET', `/newsletter-issues/${wave.id}`);
        const { lost, doubled, lostExamples } = exactlyOnce(counts, addresses, wave.subject);
        const checks = [
          check(issue.status === 'published', `issue ${issue.status}${issue.published_at ? ` at ${issue.published_at}` : ''}`),
          check(lost === 0, `${size - lost} of ${size} subscribers have the issue${lost ? ` (none for ${lostExamples.join(', ')}, ...)` : ''}`),
          check(doubled === 0, `${doubled} extra copies`),
        ];
        if (wave.kill) {
          const down = wave.dueAt > wave.kill.killedAt && wave.dueAt < wave.kill.readyAt;
          // The harness's timing, not the service's doing: said, never failed on.
          checks.push(
            check(
              true,
              `${down ? '' : 'NOTE: '}due ${((wave.dueAt - wave.kill.killedAt) / 1000).toFixed(1)} s after the kill, the runtime back ${((wave.kill.readyAt - wave.kill.killedAt) / 1000).toFixed(1)} s after it${down ? '' : ', so not due while it was down (the kill came late)'}`,
            ),
          );
        }
        perWave.push({ index: wave.index, items: size, lost, doubled, checks });
      }
      return { perWave, checks: [] };
    },
  };
}
