// 7. Parallel keyed requests: M `POST /v1/contacts/{id}/notes` per wave, each with an
// `Idempotency-Key` of its own, all sent at once so the kill lands among them, and each sent again
// (same key, same body) until it gets a final answer: not a 5xx, not a 429, not 409
// `IDEMPOTENCY_KEY_IN_USE` (the key's first run still holding it). Exactly one note per key.
import { request, sleep } from '../http.mjs';
import { check, seedContacts, waveBook, workspace } from './common.mjs';

export function notesScenario({ size, kills }) {
  const book = waveBook();
  let ctx;
  let w;
  let contacts = [];

  async function keyed(wave, key, body, answered) {
    const rec = { key, body, attempts: 0, final: null, finalAt: null, replayed: false, noteId: null };
    wave.requests.push(rec);
    for (;;) {
      rec.attempts++;
      let res;
      try {
        res = await request(ctx.http.base, 'POST', `/v1/contacts/${wave.contact}/notes`, {
          token: w.key,
          body: { body },
          headers: { 'idempotency-key': key },
          timeoutMs: 30_000,
        });
      } catch (err) {
        if (!err.down) throw err;
        await sleep(1000);
        continue;
      }
      const inUse = res.status === 409 && res.body?.error_code === 'IDEMPOTENCY_KEY_IN_USE';
      if (res.status >= 500 || res.status === 429 || inUse) {
        await sleep(1000 * Number(res.headers.get('retry-after') ?? 1));
        continue;
      }
      rec.final = res.status;
      rec.finalAt = Date.now();
      answered();
      rec.replayed = res.headers.get('idempotent-replayed') === 'true';
      rec.noteId = res.body?.id ?? null;
      return;
    }
  }

  return {
    name: 'notes',
    title: `${size} parallel keyed requests (Idempotency-Key)`,
    unit: 'keys',
    book,

    async setup(context) {
      ctx = context;
      w = await workspace(ctx, 'notes');
      // One contact per wave, so each wave's notes are counted apart.
      contacts = await seedContacts(
        w.api,
        Array.from({ length: kills + 1 }, (_, i) => ({ email: `k${i}@notes.chaos.test`, name: `Keyed ${i}` })),
      );
      return `workspace ${w.ws} (${w.shard}), one contact per wave`;
    },

    /**
     * Fires the requests and answers once the first of them is answered: the runtime is then
     * working through the rest, which is what the kill should land among (before that, they may
     * all still be waiting to be read, and a kill would only cut connections).
     */
    startWave(index) {
      const wave = book.add(index, { contact: contacts[index], requests: [] });
      let answered;
      const first = new Promise((resolve) => (answered = resolve));
      wave.running = Promise.all(
        Array.from({ length: size }, (_, i) => {
          const key = `chaos-${ctx.runId}-w${index}-n${i}`;
          return keyed(wave, key, `Chaos note w${index} n${i} [${key}]`, answered);
        }),
      ).catch((err) => {
        wave.error = err.message;
        answered();
      });
      return first;
    },

    async poll() {
      const progress = {};
      for (const wave of book.waves) {
        const finals = wave.requests.filter((r) => r.final !== null);
        progress[wave.index] = finals.length;
        if (wave.doneAt === null && finals.length === size) book.done(wave, Math.max(...finals.map((r) => r.finalAt)));
      }
      return progress;
    },

    async verify() {
      const perWave = [];
      for (const wave of book.waves) {
        // A plain array, every note of the contact.
        const notes = await w.api('GET', `/contacts/${wave.contact}/notes`);
        const perKey = new Map();
        for (const n of notes) {
          const key = /\[(.+)\]$/.exec(n.body)?.[1];
          if (!perKey.has(key)) perKey.set(key, []);
          perKey.get(key).push(n.id);
        }
        let lost = 0;
        let doubled = 0;
        let unanswered = 0;
        let wrongAnswer = 0;
        const finals = new Map();
        for (const r of wave.requests) {
          const ids = perKey.get(r.key) ?? [];
          if (ids.length === 0) lost++;
          if (ids.length > 1) doubled += ids.length - 1;
          if (r.final === null) unanswered++;
          else {
            finals.set(r.final, (finals.get(r.final) ?? 0) + 1);
            if (r.final !== 201 || !ids.includes(r.noteId)) wrongAnswer++;
          }
        }
        const retried = wave.requests.filter((r) => r.attempts > 1).length;
        perWave.push({
          index: wave.index,
          items: size,
          lost,
          doubled,
          checks: [
            check(wave.requests.length === size, `${wave.requests.length} of ${size} keys sent`),
            check(
              unanswered === 0,
              `${size - unanswered} keys answered finally (${[...finals].map(([s, n]) => `${n}x ${s}`).join(', ')}), ${retried} after retries`,
            ),
            check(lost === 0 && doubled === 0, `${notes.length} notes for ${size} keys: ${lost} keys without a note, ${doubled} extra notes`),
            check(wrongAnswer === 0, `${wrongAnswer} final answers not a 201 naming a stored note of the key`),
          ],
        });
      }
      return { perWave, checks: [] };
    },
  };
}
