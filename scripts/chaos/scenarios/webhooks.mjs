// 4. Webhook deliveries to the suite's own receiver, which is down at the start of each wave
// (503, then closed) and comes back: every event the service recorded (`GET /v1/webhook-events`)
// reaches the receiver with a valid signature and is answered 2xx exactly once per `webhook-id`.
import { createReceiver } from '../receiver.mjs';
import { check, seedContacts, waveBook, workspace } from './common.mjs';

const domain = (index) => `w${index}.hooks.chaos.test`;

export function webhooksScenario({ size, downSeconds }) {
  const book = waveBook();
  const receiver = createReceiver();
  let ctx;
  let w;

  /** Every contact.created event of the workspace, read back from the service, by wave. */
  async function eventsByWave() {
    const byWave = new Map();
    let offset = 0;
    for (;;) {
      const page = await w.api('GET', `/webhook-events?type=contact.created&limit=100&offset=${offset}`);
      for (const e of page.data) {
        const m = /@w(\d+)\.hooks\.chaos\.test$/.exec(e.data?.contact?.email ?? '');
        const index = m ? Number(m[1]) : -1;
        if (!byWave.has(index)) byWave.set(index, []);
        byWave.get(index).push(e.id);
      }
      offset += page.data.length;
      if (page.data.length === 0 || offset >= page.total) return byWave;
    }
  }

  return {
    name: 'webhooks',
    title: `Webhook deliveries of ${size} events to a receiver that is down first`,
    unit: 'events',
    book,
    receiver,

    async setup(context) {
      ctx = context;
      await receiver.start();
      w = await workspace(ctx, 'webhooks');
      const endpoint = await w.api('POST', '/webhook-endpoints', { url: receiver.url(), events: ['contact.created'] });
      receiver.setSecret(endpoint.secret);
      return `workspace ${w.ws} (${w.shard}), endpoint ${receiver.url()}, down ${downSeconds} s at each wave's start (503, then closed)`;
    },

    async startWave(index) {
      const wave = book.add(index);
      receiver.outage((downSeconds * 1000) / 2, (downSeconds * 1000) / 2);
      await seedContacts(
        w.api,
        Array.from({ length: size }, (_, i) => ({ email: `h${i}@${domain(index)}`, name: `Hook ${index}-${i}` })),
      );
      wave.created = true;
    },

    async poll() {
      const progress = {};
      for (const wave of book.waves) {
        if (!wave.created) continue;
        // The events are written in the batch of each create: once the creates answered, they are all there.
        if (!wave.eventIds) wave.eventIds = (await eventsByWave()).get(wave.index) ?? [];
        let delivered = 0;
        let last = 0;
        for (const id of wave.eventIds) {
          const e = receiver.seen.get(id);
          if (e?.successes) {
            delivered++;
            last = Math.max(last, e.firstSuccessAt);
          }
        }
        progress[wave.index] = delivered;
        if (wave.doneAt === null && wave.eventIds.length === size && delivered === size) book.done(wave, last);
      }
      return progress;
    },

    async verify() {
      const byWave = await eventsByWave();
      const known = new Set([...byWave.values()].flat());
      const states = {};
      for (const state of ['pending', 'retrying', 'succeeded', 'dead']) {
        const rows = await ctx.http.admin('GET', `/workspaces/${w.ws}/webhook-deliveries?state=${state}&limit=500`);
        states[state] = rows.data.length;
      }
      const stray = [...receiver.seen.keys()].filter((id) => !known.has(id)).length;
      const perWave = [];
      for (const wave of book.waves) {
        const ids = byWave.get(wave.index) ?? [];
        let lost = 0;
        let doubled = 0;
        let refused = 0;
        for (const id of ids) {
          const e = receiver.seen.get(id);
          if (!e?.successes) lost++;
          else doubled += e.successes - 1;
          refused += e?.refused ?? 0;
        }
        perWave.push({
          index: wave.index,
          items: size,
          lost,
          doubled,
          checks: [
            check(ids.length === size, `the service lists ${ids.length} contact.created events of ${size} contacts`),
            check(
              lost === 0,
              `${ids.length - lost} of ${ids.length} events answered 2xx by the receiver (${refused} attempts refused while it was down)`,
            ),
            check(doubled === 0, `${doubled} extra successful deliveries of an id already delivered`),
          ],
        });
      }
      return {
        perWave,
        checks: [
          check(receiver.badSignatures() === 0, `${receiver.badSignatures()} deliveries with a bad signature`),
          check(stray === 0, `${stray} webhook-ids received that the service does not list`),
          check(
            states.pending === 0 && states.retrying === 0 && states.dead === 0,
            `delivery rows (operator view, up to 500 each): ${Object.entries(states)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')}`,
          ),
        ],
      };
    },

    stop: () => receiver.stop(),
  };
}
