// What the scenarios share: a workspace of their own with limits out of the way, seeding contacts
// in batches, the sandbox outbox read back per address, and the bookkeeping of waves.
import { mapLimit, must, request, sleep } from '../http.mjs';

/** Limits that would otherwise answer 429 to the suite's own traffic. */
const UNLIMITED = { per_key_per_minute: 1_000_000, emails_per_minute: 1_000_000 };

/** A workspace (on `shard` when given), a key, and an `api` bound to that key. */
export async function workspace(ctx, name, extra = {}) {
  const ws = await ctx.http.admin('POST', '/workspaces', { name: `chaos ${name} ${ctx.runId}`, rate_limits: UNLIMITED, ...extra });
  const key = await ctx.http.admin('POST', `/workspaces/${ws.id}/api-keys`, { name: 'chaos' });
  return { ws: ws.id, shard: ws.shard, key: key.key, api: ctx.http.api(key.key) };
}

/** A verified default sender, which campaigns and newsletter deliveries need. */
export const verifiedSender = (ctx, ws) =>
  ctx.http.admin('POST', `/workspaces/${ws}/sender-profiles`, {
    from_name: 'Chaos Suite',
    from_email: 'chaos@mail.chaos.test',
    domain_verified: true,
    is_default: true,
  });

/** Creates (or finds: the batch upserts by email) one contact per body, 100 a request; answers their ids in order. */
export async function seedContacts(api, bodies) {
  const chunks = [];
  for (let i = 0; i < bodies.length; i += 100) chunks.push(bodies.slice(i, i + 100));
  const answers = await mapLimit(chunks, 2, (chunk) => api('POST', '/contacts/batch', { contacts: chunk }));
  const ids = [];
  for (const [c, answer] of answers.entries()) {
    for (const item of answer.data) {
      if (item.status !== 201) throw new Error(`seeding contact ${chunks[c][item.index].email}: ${item.status} ${JSON.stringify(item.error)}`);
      ids.push(item.id);
    }
  }
  return ids;
}

/**
 * Creates many contacts in one request: a CSV import (`rows`: objects of one shape, values without
 * commas or quotes), waited for until it completed with every row created. Setup only.
 */
export async function importContacts(ctx, w, rows) {
  const columns = Object.keys(rows[0]);
  const csv = `${[columns.join(','), ...rows.map((r) => columns.map((c) => r[c]).join(','))].join('\n')}\n`;
  const res = await request(ctx.http.base, 'POST', '/v1/contact-imports', { token: w.key, raw: csv, contentType: 'text/csv' });
  if (res.status !== 201) throw new Error(`seeding import: ${res.status} ${res.text.slice(0, 200)}`);
  for (;;) {
    const imp = await w.api('GET', `/contact-imports/${res.body.id}`);
    if (imp.status === 'completed' && imp.created === rows.length) return;
    if (imp.status === 'completed' || imp.status === 'failed') {
      throw new Error(`seeding import ${imp.status}: created ${imp.created} of ${rows.length}, ${JSON.stringify(imp.errors?.[0] ?? null)}`);
    }
    await sleep(1000);
  }
}

/** Every contact of the workspace as `{id, email}`, in pages of 500. */
export async function allContacts(api) {
  const out = [];
  for (let offset = 0; ; ) {
    const page = await api('GET', `/contacts?limit=500&offset=${offset}&sort=created_at`);
    for (const c of page.data) out.push({ id: c.id, email: c.email });
    offset += page.data.length;
    if (page.data.length === 0 || offset >= page.total) return out;
  }
}

/** Email consent `subscribed` for each contact (what the campaign and newsletter baseline asks for). */
export const subscribeEmail = (api, ids) => mapLimit(ids, 6, (id) => api('PUT', `/contacts/${id}/consent/email`, { state: 'subscribed' }));

/**
 * How many emails the sandbox accepted for each address, per subject: `Map<address, Map<subject, n>>`.
 * One read when the workspace's whole outbox fits in a page (500), else one read per address.
 */
export async function outboxCounts(ctx, ws, addresses) {
  const read = (query) =>
    must(
      () => request(ctx.http.base, 'GET', `/admin/v1/workspaces/${ws}/outbox?channel=email&limit=500${query}`, { token: ctx.http.adminToken }),
      'outbox',
    );
  const counts = new Map(addresses.map((a) => [a, new Map()]));
  const add = (row) => {
    let bySubject = counts.get(row.to);
    if (!bySubject) counts.set(row.to, (bySubject = new Map()));
    bySubject.set(row.subject, (bySubject.get(row.subject) ?? 0) + 1);
  };
  const all = await read('');
  if (all.data.length < 500) {
    for (const row of all.data) add(row);
    return counts;
  }
  await mapLimit(addresses, 6, async (to) => {
    const page = await read(`&to=${encodeURIComponent(to)}`);
    if (page.data.length >= 500) throw new Error(`outbox: 500 or more emails to ${to}; cannot count them`);
    for (const row of page.data) add(row);
  });
  return counts;
}

/** Lost and doubled recipients of one subject over `addresses`, from `outboxCounts`. */
export function exactlyOnce(counts, addresses, subject) {
  let lost = 0;
  let doubled = 0;
  const lostExamples = [];
  for (const a of addresses) {
    const n = counts.get(a)?.get(subject) ?? 0;
    if (n === 0) {
      lost++;
      if (lostExamples.length < 3) lostExamples.push(a);
    }
    if (n > 1) doubled += n - 1;
  }
  return { lost, doubled, lostExamples };
}

/**
 * The waves of one scenario: each is a unit of work started before a kill (wave 0: the baseline,
 * started with no kill coming). `doneAt` is when its invariant first held (from the service's
 * own timestamps where it keeps one, else the poll that saw it).
 */
export function waveBook() {
  const waves = [];
  return {
    waves,
    add(index, info = {}) {
      const w = { index, startedAt: Date.now(), doneAt: null, skipped: null, error: null, ...info };
      waves.push(w);
      return w;
    },
    done(w, at = Date.now()) {
      if (w.doneAt === null) w.doneAt = Math.max(at, w.startedAt);
    },
    /** Waves still owed work: not done, not skipped, not failed to start, not superseded by a later wave. */
    open: () => waves.filter((w) => w.doneAt === null && !w.skipped && !w.error && !w.superseded),
    get: (index) => waves.find((w) => w.index === index),
  };
}

/** A check of a verify step: `{ok, text}`. */
export const check = (ok, text) => ({ ok: Boolean(ok), text });
