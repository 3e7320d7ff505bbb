// 3. A contact export of N contacts per wave: it completes, and the downloaded CSV has exactly N
// data rows, each seeded contact once.
import { parse } from 'csv-parse/sync';
import { request, retrying } from '../http.mjs';
import { allContacts, check, importContacts, waveBook, workspace } from './common.mjs';

export function exportScenario({ size }) {
  const book = waveBook();
  let ctx;
  let w;
  let ids = [];

  return {
    name: 'export',
    title: `Contact export of ${size} contacts`,
    unit: 'rows',
    book,

    async setup(context) {
      ctx = context;
      w = await workspace(ctx, 'export');
      await importContacts(
        ctx,
        w,
        Array.from({ length: size }, (_, i) => ({ email: `x${i}@export.chaos.test`, name: `Export ${i}` })),
      );
      ids = (await allContacts(w.api)).map((c) => c.id);
      if (ids.length !== size) throw new Error(`seeded ${ids.length} contacts of ${size}`);
      return `workspace ${w.ws} (${w.shard}), ${size} contacts`;
    },

    async startWave(index) {
      const wave = book.add(index);
      const res = await retrying(
        () =>
          request(ctx.http.base, 'POST', '/v1/contact-exports', {
            token: w.key,
            body: {},
            headers: { 'idempotency-key': `chaos-export-${ctx.runId}-${index}` },
          }),
        { what: 'POST /v1/contact-exports' },
      );
      if (res.status !== 201) throw new Error(`POST /v1/contact-exports: ${res.status} ${res.text.slice(0, 200)}`);
      wave.id = res.body.id;
    },

    async poll() {
      const progress = {};
      for (const wave of book.waves) {
        if (!wave.id) continue;
        if (wave.doneAt === null) {
          const exp = await w.api('GET', `/contact-exports/${wave.id}`);
          wave.record = exp;
          if (exp.status === 'completed' || exp.status === 'failed') book.done(wave, Date.parse(exp.completed_at) || Date.now());
        }
        progress[wave.index] = wave.record?.row_count ?? 0;
      }
      return progress;
    },

    async verify() {
      const seeded = new Set(ids);
      const perWave = [];
      for (const wave of book.waves) {
        if (!wave.id) continue;
        const exp = await w.api('GET', `/contact-exports/${wave.id}`);
        let rows = [];
        let downloadError = null;
        if (exp.status === 'completed') {
          const res = await retrying(() => request(ctx.http.base, 'GET', `/v1/contact-exports/${wave.id}/download`, { token: w.key }), {
            what: 'export download',
          });
          if (res.status === 200) rows = parse(res.text, { columns: true, bom: true });
          else downloadError = `download answered ${res.status}`;
        }
        const seen = new Map();
        for (const row of rows) seen.set(row.id, (seen.get(row.id) ?? 0) + 1);
        let doubled = 0;
        let foreign = 0;
        for (const [id, n] of seen) {
          if (!seeded.has(id)) foreign += n;
          else if (n > 1) doubled += n - 1;
        }
        const lost = ids.filter((id) => !seen.has(id)).length;
        perWave.push({
          index: wave.index,
          items: size,
          lost,
          doubled,
          checks: [
            check(exp.status === 'completed', `status ${exp.status}${downloadError ? `, ${downloadError}` : ''}`),
            check(exp.row_count === size, `row_count ${exp.row_count} of ${size}`),
            check(rows.length === size, `the file holds ${rows.length} data rows`),
            check(
              lost === 0 && doubled === 0 && foreign === 0,
              `${seen.size} distinct contacts, ${lost} missing, ${doubled} repeated, ${foreign} unknown`,
            ),
          ],
        });
      }
      return { perWave, checks: [] };
    },
  };
}
