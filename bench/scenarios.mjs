// What the benchmark seeds and measures. Each scenario: name, request(i), the
// expected D1 round trips, and the floor its p50 is compared with.
import { performance } from 'node:perf_hooks';
import { contactAt, seedPhone, TAG_NAMES } from './data.mjs';
import { load } from './load.mjs';

async function call(base, token, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}


const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const CHUNK = 2_000;
const DEALS = 100;
const PAYMENTS = 100;
const SUPPRESSIONS = 200;

/** Runs `task(0..count-1)`, `width` at a time. */
async function inParallel(count, width, task) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

export async function seed({ base, adminToken, log }) {
  const admin = (method, path, body) => call(base, adminToken, method, path, body);
  await fetch(`${base}/bench/setup`);
  const ws = await admin('POST', '/admin/v1/workspaces', { name: 'Bench', rate_limits: { per_key_per_minute: 1_000_000, emails_per_minute: 1_000_000 } });
  const pipeline = await admin('POST', `/admin/v1/workspaces/${ws.id}/pipelines`, { name: 'Sales', is_default: true, stages: [{ name: 'New' }, { name: 'Won' }] });
  const key = (await admin('POST', `/admin/v1/workspaces/${ws.id}/api-keys`, { name: 'bench' })).key;
  const api = (method, path, body) => call(base, key, method, path, body);
  const tagIds = [];
  for (const name of TAG_NAMES) tagIds.push((await api('POST', '/v1/tags', { name })).id);

  const started = performance.now();
  const contactIds = new Array(CONTACTS);
  await inParallel(Math.ceil(CONTACTS / CHUNK), 2, async (chunk) => {
    const from = chunk * CHUNK;
    const contacts = Array.from({ length: Math.min(CHUNK, CONTACTS - from) }, (_, k) => contactAt(from + k, CONTACTS, tagIds));
    const res = await fetch(`${base}/bench/seed/contacts`, { method: 'POST', body: JSON.stringify({ workspace_id: ws.id, contacts }) });
    if (res.status !== 201) throw new Error(`seeding contacts answered ${res.status}: ${await res.text()}`);
    const { ids } = await res.json();
    ids.forEach((id, k) => (contactIds[from + k] = id));
  });
  const seedSeconds = (performance.now() - started) / 1000;
  log(`seeded ${CONTACTS} contacts in ${seedSeconds.toFixed(1)} s`);

  const dealIds = new Array(DEALS);
  await inParallel(DEALS, 4, async (i) => {
    dealIds[i] = (await api('POST', '/v1/deals', { title: `Seed deal ${i}`, amount: 1000 + i, contact_id: contactIds[i * 7] })).id;
  });
  // Payments with a large recognized charge, so every refund of the run fits its balance.
  const paymentIds = new Array(PAYMENTS);
  await inParallel(PAYMENTS, 4, async (i) => {
    paymentIds[i] = (await api('POST', '/v1/payments', { type: 'one_time', title: `Seed payment ${i}`, amount: 1_000_000, contact_id: contactIds[i * 11] })).id;
  });
  // Email: a verified default sender, suppressions to look up, and one processed key to replay.
  await admin('POST', `/admin/v1/workspaces/${ws.id}/sender-profiles`, { from_name: 'Bench', from_email: 'bench@mail.bench.example', domain_verified: true, is_default: true });
  await inParallel(SUPPRESSIONS, 4, async (i) => api('POST', '/v1/suppressions', { email: `suppressed${i}@example.org` }));
  await api('POST', '/v1/emails', { to: 'replay@example.org', subject: 'Replay', text: 'Hello', idempotency_key: 'bench-replay' });
  log(`seeded workspace ${ws.id}`);
  const ctx = {
    base,
    admin,
    workspaceId: ws.id,
    key,
    contactIds,
    dealIds,
    paymentIds,
    stageIds: pipeline.stages.map((s) => s.id),
    summary: `Seed: ${CONTACTS.toLocaleString('en-US')} contacts (identifier history, consent seeds, timeline rows, tags, search index) written in ${seedSeconds.toFixed(1)} s through a bench-only bulk route; ${DEALS} deals and ${PAYMENTS} payments through the API.`,
  };
  ctx.extraMeasurements = async () => [...(await measureSearchLatency(ctx, log)), ...(await measureWebhookThroughput(ctx, log))];
  return ctx;
}

const SELECT_FLOOR = 'floor: one indexed SELECT';
const INSERT_FLOOR = 'floor: one INSERT';
/** 3+ characters go through the trigram index: realistic terms of varied selectivity. */
const SEARCH_TERMS = ['garcia', 'nguyen', 'kowal', 'hooli', 'yamamoto', 'pied piper', 'sofia', 'larsen'];
const SHORT_TERMS = ['jo', 'ng', 'li', 'ak'];
const FILTER = JSON.stringify({
  $where: {
    and: [
      { field: 'lifecycle_stage', op: 'in', value: ['prospect', 'customer'] },
      { field: 'lead_score', op: 'gte', value: 70 },
      { or: [{ field: 'country', op: 'eq', value: 'US' }, { field: 'company_name', op: 'starts_with', value: 'hoo' }] },
    ],
  },
});

/** A seeded contact's identity, as a client would send it again. */
function identityOf(i) {
  const c = contactAt(i, CONTACTS, []);
  return c.phone ? { phone: c.phone } : { email: c.email };
}

export function scenarios(ctx) {
  const nonce = Date.now().toString(36);
  const n = ctx.contactIds.length;
  const contactIndex = (i) => (i * 7919) % n;
  return [
    { name: SELECT_FLOOR, auth: false, request: () => ({ method: 'GET', path: `/bench/floor/select?id=${ctx.workspaceId}` }) },
    { name: INSERT_FLOOR, auth: false, request: () => ({ method: 'POST', path: '/bench/floor/insert' }) },
    { name: 'GET /v1/pipelines', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/pipelines' }) },
    { name: 'GET /v1/contacts/{id}', floor: SELECT_FLOOR, expected: 1, request: (i) => ({ method: 'GET', path: `/v1/contacts/${ctx.contactIds[contactIndex(i)]}` }) },
    {
      name: 'POST /v1/contacts (create)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'POST', path: '/v1/contacts', body: { name: `New Person ${i}`, email: `new.${nonce}.${i}@example.org`, phone: seedPhone(n + i), tags: ['vip'] } }),
    },
    {
      name: 'POST /v1/contacts (upsert existing)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'POST', path: '/v1/contacts', body: { ...identityOf(contactIndex(i)), job_title: `Buyer ${nonce} ${i}` } }),
    },
    {
      name: 'GET /v1/contacts?search= (3+ chars, FTS)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/contacts?search=${encodeURIComponent(SEARCH_TERMS[i % SEARCH_TERMS.length])}` }),
    },
    {
      name: 'GET /v1/contacts?search= (1-2 chars)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/contacts?search=${SHORT_TERMS[i % SHORT_TERMS.length]}` }),
    },
    { name: 'GET /v1/contacts?filter=$where', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: `/v1/contacts?filter=${encodeURIComponent(FILTER)}` }) },
    {
      name: 'POST /v1/deals',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'POST', path: '/v1/deals', body: { title: `Deal ${i}`, amount: 250 + (i % 1000), contact_id: ctx.contactIds[contactIndex(i + 1)] } }),
    },
    {
      name: 'POST /v1/deals (email, new contact)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'POST', path: '/v1/deals', body: { title: `Deal ${i}`, email: `deal.${nonce}.${i}@example.org`, name: `Buyer ${i}` } }),
    },
    {
      name: 'POST /v1/deals (existing contact by phone/email)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'POST', path: '/v1/deals', body: { title: `Deal ${i}`, ...identityOf(contactIndex(i + 2)) } }),
    },
    { name: 'GET /v1/deals', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/deals' }) },
    {
      name: 'POST /v1/deals/{id}/stage',
      floor: INSERT_FLOOR,
      expected: 2,
      // Each visit of a deal moves it to the other stage.
      request: (i) => ({ method: 'POST', path: `/v1/deals/${ctx.dealIds[i % DEALS]}/stage`, body: { stage_id: ctx.stageIds[(i + Math.floor(i / DEALS)) % 2] } }),
    },
    {
      name: 'POST /v1/payments (one_time)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'POST', path: '/v1/payments', body: { type: 'one_time', title: `Payment ${i}`, amount: 49.9, method: 'card', contact_id: ctx.contactIds[contactIndex(i + 3)] } }),
    },
    {
      name: 'POST /v1/payments (installments, 12)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'POST', path: '/v1/payments', body: { type: 'installments', installment_count: 12, title: `Plan ${i}`, amount: 1200, contact_id: ctx.contactIds[contactIndex(i + 4)] } }),
    },
    {
      name: 'GET /v1/payments?search=',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/payments?search=${encodeURIComponent(SEARCH_TERMS[i % SEARCH_TERMS.length])}` }),
    },
    {
      name: 'POST /v1/payments/{id}/refund',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'POST', path: `/v1/payments/${ctx.paymentIds[i % PAYMENTS]}/refund`, body: { amount: 0.01 } }),
    },
    {
      // Claim (Durable Object), read batch, write batch (send row), sandbox provider (outbox), sent.
      name: 'POST /v1/emails (fresh key, sandbox provider)',
      floor: INSERT_FLOOR,
      expected: 4,
      request: (i) => ({ method: 'POST', path: '/v1/emails', body: { to: `r${i % 1000}@example.org`, subject: `Receipt ${i}`, html: `<p>Order <a href="https://shop.example.org/o/${i}">${i}</a></p>`, idempotency_key: `bench-${nonce}-${i}`, tracking: { clicks: true } } }),
    },
    {
      // Answered by the claim Durable Object alone: the difference to the floor is the claim's latency.
      name: 'POST /v1/emails (replay)',
      floor: SELECT_FLOOR,
      expected: 0,
      request: () => ({ method: 'POST', path: '/v1/emails', body: { to: 'replay@example.org', subject: 'Replay', text: 'Hello', idempotency_key: 'bench-replay' } }),
    },
    {
      name: 'GET /v1/suppressions?email=',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/suppressions?email=suppressed${i % SUPPRESSIONS}@example.org` }),
    },
  ];
}

/** Search alone, one request at a time: the latency a single client sees on the seeded contacts. */
async function measureSearchLatency(ctx, log, rounds = 5) {
  const headers = { authorization: `Bearer ${ctx.key}` };
  const lines = [];
  for (const [label, terms] of [['3+ characters', SEARCH_TERMS], ['1-2 characters', SHORT_TERMS]]) {
    const result = await load({
      base: ctx.base,
      headers,
      connections: 1,
      seconds: 120,
      maxRequests: terms.length * rounds,
      makeRequest: (i) => ({ method: 'GET', path: `/v1/contacts?search=${encodeURIComponent(terms[i % terms.length])}` }),
    });
    log(`search latency (1 connection, ${label}): p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`);
    const shown = terms.map((t) => `\`${t}\``).join(', ');
    lines.push(`- search latency (1 connection), ${label} (${shown}): p50 **${result.p50.toFixed(1)} ms**, p99 ${result.p99.toFixed(1)} ms, ${result.requests} requests, ${result.errors} errors`);
  }
  return ['## Contact search latency (1 connection)', '', `One client, no other load, on ${ctx.contactIds.length.toLocaleString('en-US')} contacts:`, '', ...lines, ''];
}

/** Events delivered per second: a local receiver, one endpoint, N events published at once. */
async function measureWebhookThroughput(ctx, log, count = 500) {
  const { createServer } = await import('node:http');
  const seen = new Set();
  let done;
  const finished = new Promise((resolve) => (done = resolve));
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.add(req.headers['webhook-id']);
      res.writeHead(204).end();
      if (seen.size >= count) done();
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${server.address().port}/hook`;
  await call(ctx.base, ctx.key, 'POST', '/v1/webhook-endpoints', { url, events: ['contact.created'] });
  const started = performance.now();
  await fetch(`${ctx.base}/bench/emit`, { method: 'POST', body: JSON.stringify({ workspace_id: ctx.workspaceId, count }) });
  const timeout = new Promise((r) => setTimeout(r, 120_000));
  await Promise.race([finished, timeout]);
  const seconds = (performance.now() - started) / 1000;
  server.close();
  const rate = seen.size / seconds;
  log(`webhook deliveries: ${seen.size}/${count} in ${seconds.toFixed(1)} s (${rate.toFixed(0)}/s)`);
  return [
    '## Webhook delivery throughput',
    '',
    `${count} events published at once to one endpoint on a local receiver: ${seen.size} delivered (signed, one POST each) in ${seconds.toFixed(1)} s, **${rate.toFixed(0)} deliveries/s**, through the real local Queue (batches of up to 25 messages, 1 s batch timeout).`,
    '',
    'Emitting an event adds no D1 round trip to the write path: the outbox row is one more statement in the batch that makes the change, and the fan-out to the queue runs after the response (`waitUntil`).',
  ];
}
