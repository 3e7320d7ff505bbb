// 5. An online workspace move to the other shard per wave (`POST /admin/v1/workspaces/{ws}/move`)
// while writers create and patch contacts through it all: each move ends `done`, and every create
// and patch the API answered 2xx is there afterwards (a patch the runtime never answered may or may
// not have landed; its value is allowed too, never an older one).
import { request, sleep } from '../http.mjs';
import { check, seedContacts, waveBook, workspace } from './common.mjs';

const RANK = { copying: 0, switching: 1, done: 2, failed: 2 };

export function moveScenario({ writers, seed }) {
  const book = waveBook();
  let ctx;
  let w;
  let stopped = false;
  const loops = [];
  /** Contacts the writers created: {id, email, acked (value answered 2xx last), unsure: [values sent after it, no answer]}. */
  const written = [];
  const stats = { creates: 0, patches: 0, moving503: 0, unanswered: 0 };

  /** One write until it is answered: 2xx, a 4xx (an error: reported), or no answer at all (`null`) when `once`. */
  async function send(method, path, body, { once = false } = {}) {
    for (;;) {
      if (stopped && !once) return { status: 0 };
      let res;
      try {
        res = await request(ctx.http.base, method, `/v1${path}`, { token: w.key, body, timeoutMs: 30_000 });
      } catch (err) {
        if (!err.down) throw err;
        stats.unanswered++;
        if (once) return null;
        await sleep(1000);
        continue;
      }
      if (res.status === 503 && res.body?.error_code === 'WORKSPACE_MOVING') {
        // Refused whole by the fence: nothing was written, so the same write is sent again.
        stats.moving503++;
        await sleep(1000 * Number(res.headers.get('retry-after') ?? 1));
        continue;
      }
      if (res.status >= 500 || res.status === 429) {
        await sleep(1000);
        continue;
      }
      return res;
    }
  }

  async function writer(n) {
    for (let seq = 0; !stopped; seq++) {
      const email = `m${n}-${seq}@move.chaos.test`;
      // A create sent again after no answer finds its contact (the upsert), so it is safe to repeat.
      const created = await send('POST', '/contacts', { email, name: `Mover ${n}-${seq}`, company_name: 'v0' });
      if (stopped || created.status === 0) return;
      if (created.status >= 300) throw new Error(`writer create ${email}: ${created.status} ${created.text.slice(0, 200)}`);
      const record = { id: created.body.id, email, acked: 'v0', unsure: [] };
      written.push(record);
      stats.creates++;
      for (let p = 1; p <= 3 && !stopped; p++) {
        await sleep(100 + seed() * 200);
        const value = `v${p}`;
        const res = await send('PATCH', `/contacts/${record.id}`, { company_name: value }, { once: true });
        if (res === null) record.unsure.push(value);
        else if (res.status < 300) {
          record.acked = value;
          record.unsure = [];
          stats.patches++;
        } else throw new Error(`writer patch ${email}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      await sleep(100 + seed() * 200);
    }
  }

  return {
    name: 'move',
    title: `Online workspace move while ${writers} writers create and patch contacts`,
    unit: 'writes',
    book,

    async setup(context) {
      ctx = context;
      w = await workspace(ctx, 'move', { shard: 'SHARD_0' });
      await seedContacts(
        w.api,
        Array.from({ length: 200 }, (_, i) => ({ email: `base${i}@move.chaos.test`, name: `Base ${i}`, tags: ['base'] })),
      );
      for (let n = 0; n < writers; n++) {
        loops.push(
          writer(n).catch((err) => {
            stats.writerError ??= err.message;
          }),
        );
      }
      return `workspace ${w.ws} on SHARD_0, 200 contacts to start, ${writers} writers`;
    },

    async prepareWave(index) {
      const ws = await ctx.http.admin('GET', `/workspaces/${w.ws}`);
      book.add(index, { from: ws.shard, to: ws.shard === 'SHARD_0' ? 'SHARD_1' : 'SHARD_0' });
    },

    async startWave(index) {
      const wave = book.get(index);
      let res = await request(ctx.http.base, 'POST', `/admin/v1/workspaces/${w.ws}/move`, { token: ctx.http.adminToken, body: { to: wave.to } });
      if (res.status === 409 && /is already on/.test(res.body?.message ?? '')) {
        // The previous wave's move switched after this wave read the shard: the move goes back the other way.
        const ws = await ctx.http.admin('GET', `/workspaces/${w.ws}`);
        Object.assign(wave, { from: ws.shard, to: ws.shard === 'SHARD_0' ? 'SHARD_1' : 'SHARD_0' });
        res = await request(ctx.http.base, 'POST', `/admin/v1/workspaces/${w.ws}/move`, { token: ctx.http.adminToken, body: { to: wave.to } });
      }
      if (res.status === 409 && /already moving/.test(res.body?.message ?? '')) {
        wave.skipped = 'the previous move was not finished (its old copy still being cleared)';
        return;
      }
      if (res.status !== 202) throw new Error(`POST move: ${res.status} ${res.text.slice(0, 200)}`);
      wave.id = res.body.id;
    },

    async poll() {
      const progress = {};
      for (const wave of book.waves) {
        if (!wave.id) continue;
        if (wave.doneAt === null) {
          const move = await ctx.http.admin('GET', `/moves/${wave.id}`);
          wave.record = move;
          if (move.status === 'done' || move.status === 'failed') book.done(wave, Date.parse(move.finished_at) || Date.now());
        }
        progress[wave.index] = RANK[wave.record?.status ?? 'copying'] * 1_000_000 + (wave.record?.copied_rows ?? 0);
      }
      return progress;
    },

    /** The writers stop before the final count. */
    async finish() {
      stopped = true;
      await Promise.all(loops);
    },

    async verify() {
      const byId = new Map();
      const emails = new Map();
      for (let offset = 0; ; ) {
        const page = await w.api('GET', `/contacts?limit=500&offset=${offset}`);
        for (const c of page.data) {
          byId.set(c.id, c);
          emails.set(c.email, (emails.get(c.email) ?? 0) + 1);
        }
        offset += page.data.length;
        if (page.data.length === 0 || offset >= page.total) break;
      }
      let missing = 0;
      let stale = 0;
      const examples = [];
      for (const r of written) {
        const c = byId.get(r.id);
        if (!c) {
          missing++;
          if (examples.length < 3) examples.push(`${r.email} missing`);
        } else if (c.company_name !== r.acked && !r.unsure.includes(c.company_name)) {
          stale++;
          if (examples.length < 3) examples.push(`${r.email} reads ${c.company_name}, answered ${r.acked}`);
        }
      }
      const doubled = [...emails.values()].reduce((n, k) => n + (k > 1 ? k - 1 : 0), 0);
      const ws = await ctx.http.admin('GET', `/workspaces/${w.ws}`);
      const moves = book.waves.filter((x) => x.id);
      const last = moves[moves.length - 1];
      const perWave = [];
      for (const wave of moves) {
        const move = await ctx.http.admin('GET', `/moves/${wave.id}`);
        perWave.push({
          index: wave.index,
          // The items are the writes, counted once for the whole run below; a move is held by its check.
          items: 0,
          lost: 0,
          doubled: 0,
          checks: [
            check(
              move.status === 'done',
              `move ${wave.from} -> ${wave.to}: ${move.status}${move.error ? ` (${move.error})` : ''}, ${move.copied_rows} rows copied`,
            ),
          ],
        });
      }
      return {
        perWave,
        // The writes are one body of work across every wave: counted here, not per wave.
        items: stats.creates + stats.patches,
        lost: missing + stale,
        doubled,
        checks: [
          check(!stats.writerError, stats.writerError ? `a writer stopped: ${stats.writerError}` : 'writers ran to the end'),
          check(
            missing === 0 && stale === 0,
            `${stats.creates} creates and ${stats.patches} patches answered 2xx: ${missing} contacts missing, ${stale} with an older value${examples.length ? ` (${examples.join('; ')})` : ''}`,
          ),
          check(doubled === 0, `${doubled} repeated addresses among ${byId.size} contacts`),
          check(!last || ws.shard === last.to, `the workspace is on ${ws.shard}${last ? `, the last move's target ${last.to}` : ''}`),
          check(
            true,
            `${stats.moving503} writes answered 503 WORKSPACE_MOVING and sent again; ${stats.unanswered} requests unanswered (runtime down)`,
          ),
        ],
      };
    },
  };
}
