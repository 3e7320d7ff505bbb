// 1. An email campaign to N recipients per wave: every recipient gets the wave's email exactly
// once. Counted from the sandbox outbox (what the provider accepted, per address and subject) and
// held against the campaign's own status and counters.
import { allContacts, check, exactlyOnce, importContacts, outboxCounts, subscribeEmail, verifiedSender, waveBook, workspace } from './common.mjs';

export function campaignScenario({ size }) {
  const book = waveBook();
  let ctx;
  let w;
  let addresses = [];

  return {
    name: 'campaign',
    title: `Email campaign to ${size} recipients`,
    unit: 'recipients',
    book,

    async setup(context) {
      ctx = context;
      w = await workspace(ctx, 'campaign');
      await verifiedSender(ctx, w.ws);
      addresses = Array.from({ length: size }, (_, i) => `r${i}@campaign.chaos.test`);
      await importContacts(
        ctx,
        w,
        addresses.map((email, i) => ({ email, first_name: `R${i}` })),
      );
      await subscribeEmail(
        w.api,
        (await allContacts(w.api)).map((c) => c.id),
      );
      return `workspace ${w.ws} (${w.shard}), ${size} subscribed contacts`;
    },

    /** The campaign, written and estimated ahead: the wave's start is its send alone. */
    async prepareWave(index) {
      const wave = book.add(index, { subject: `Chaos campaign wave ${index} ${ctx.runId}` });
      const campaign = await w.api('POST', '/email-campaigns', {
        name: `chaos wave ${index}`,
        subject: wave.subject,
        content: { markdown: `# Wave ${index}\n\nHello [[first_name : there]].` },
        external_reference: `chaos-campaign-${ctx.runId}-${index}`,
      });
      wave.id = campaign.id;
      const estimate = await w.api('GET', `/email-campaigns/${campaign.id}/estimate`);
      wave.estimate = estimate.count;
    },

    async startWave(index) {
      await w.api('POST', `/email-campaigns/${book.get(index).id}/send`);
    },

    async poll() {
      const progress = {};
      for (const wave of book.waves) {
        if (!wave.id) continue;
        if (wave.doneAt === null) {
          const c = await w.api('GET', `/email-campaigns/${wave.id}`);
          wave.status = c.status;
          wave.counters = c.counters;
          if (c.status === 'sent' || c.status === 'failed') book.done(wave, Date.parse(c.updated_at));
        }
        progress[wave.index] = (wave.counters?.sent ?? 0) + (wave.counters?.failed ?? 0);
      }
      return progress;
    },

    async verify() {
      const counts = await outboxCounts(ctx, w.ws, addresses);
      const subjects = new Set(book.waves.map((x) => x.subject));
      const known = new Set(addresses);
      let unexpected = 0;
      for (const [to, bySubject] of counts) {
        for (const [subject, n] of bySubject) if (!subjects.has(subject) || !known.has(to)) unexpected += n;
      }
      const perWave = [];
      for (const wave of book.waves) {
        if (!wave.id) continue;
        const c = await w.api('GET', `/email-campaigns/${wave.id}`);
        const { lost, doubled, lostExamples } = exactlyOnce(counts, addresses, wave.subject);
        perWave.push({
          index: wave.index,
          items: size,
          lost,
          doubled,
          checks: [
            check(wave.estimate === size, `estimate ${wave.estimate} of ${size}`),
            check(c.status === 'sent', `status ${c.status}`),
            check(
              c.counters.targeted === size && c.counters.sent === size && c.counters.failed === 0,
              `counters targeted ${c.counters.targeted}, sent ${c.counters.sent}, failed ${c.counters.failed}`,
            ),
            check(
              lost === 0,
              `outbox: ${size - lost} of ${size} recipients have the email${lost ? ` (none for ${lostExamples.join(', ')}, ...)` : ''}`,
            ),
            check(doubled === 0, `outbox: ${doubled} extra copies`),
          ],
        });
      }
      return { perWave, checks: [check(unexpected === 0, `${unexpected} outbox emails of no wave`)] };
    },
  };
}
