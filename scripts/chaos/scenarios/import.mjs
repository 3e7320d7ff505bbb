// 2. A CSV contact import of N rows per wave (`POST /v1/contact-imports`, text/csv): it completes
// with N created and nothing applied twice. Each wave's rows have addresses of their own domain,
// so the contacts it made are counted by a filter on the workspace's contacts.
import { request, retrying } from '../http.mjs';
import { check, waveBook, workspace } from './common.mjs';

const domain = (index) => `w${index}.import.chaos.test`;

export function importScenario({ size }) {
  const book = waveBook();
  let ctx;
  let w;

  const contactsOfWave = async (index) => {
    const filter = JSON.stringify({ $where: { field: 'email', op: 'ends_with', value: `@${domain(index)}` } });
    const page = await w.api('GET', `/contacts?limit=0&filter=${encodeURIComponent(filter)}`);
    return page.total;
  };

  return {
    name: 'import',
    title: `CSV contact import of ${size} rows`,
    unit: 'rows',
    book,

    async setup(context) {
      ctx = context;
      w = await workspace(ctx, 'import');
      return `workspace ${w.ws} (${w.shard})`;
    },

    prepareWave(index) {
      const lines = ['email,name,company_name'];
      for (let i = 0; i < size; i++) lines.push(`i${i}@${domain(index)},Import ${index}-${i},Wave ${index}`);
      book.add(index, { csv: `${lines.join('\n')}\n` });
    },

    async startWave(index) {
      const wave = book.get(index);
      const csv = wave.csv;
      // Sent again only if the runtime failed to answer; the key makes the retry the same import.
      const res = await retrying(
        () =>
          request(ctx.http.base, 'POST', '/v1/contact-imports', {
            token: w.key,
            raw: csv,
            contentType: 'text/csv',
            headers: { 'idempotency-key': `chaos-import-${ctx.runId}-${index}` },
          }),
        { what: 'POST /v1/contact-imports' },
      );
      if (res.status !== 201) throw new Error(`POST /v1/contact-imports: ${res.status} ${res.text.slice(0, 200)}`);
      wave.id = res.body.id;
      wave.csv = null;
    },

    async poll() {
      const progress = {};
      for (const wave of book.waves) {
        if (!wave.id) continue;
        if (wave.doneAt === null) {
          const imp = await w.api('GET', `/contact-imports/${wave.id}`);
          wave.record = imp;
          if (imp.status === 'completed' || imp.status === 'failed') book.done(wave, Date.parse(imp.completed_at) || Date.now());
        }
        progress[wave.index] = wave.record?.processed_rows ?? 0;
      }
      return progress;
    },

    async verify() {
      const perWave = [];
      for (const wave of book.waves) {
        if (!wave.id) continue;
        const imp = await w.api('GET', `/contact-imports/${wave.id}`);
        const present = await contactsOfWave(wave.index);
        const lost = Math.max(0, size - present);
        const doubled = imp.updated + Math.max(0, imp.created + imp.updated + imp.failed - size);
        perWave.push({
          index: wave.index,
          items: size,
          lost,
          doubled,
          checks: [
            check(imp.status === 'completed', `status ${imp.status}`),
            check(
              imp.total_rows === size && imp.processed_rows === size,
              `total_rows ${imp.total_rows}, processed_rows ${imp.processed_rows} of ${size}`,
            ),
            check(
              imp.created === size && imp.updated === 0 && imp.failed === 0,
              `created ${imp.created}, updated ${imp.updated}, failed ${imp.failed}${imp.errors?.length ? ` (first error: row ${imp.errors[0].row} ${imp.errors[0].message})` : ''}`,
            ),
            check(present === size, `${present} of ${size} contacts of the wave in the workspace`),
          ],
        });
      }
      return { perWave, checks: [] };
    },
  };
}
