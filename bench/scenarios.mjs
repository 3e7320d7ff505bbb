// What the benchmark seeds and measures. Each scenario: name, request(i), the
// expected D1 round trips, and the floor its p50 is compared with.
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { contactAt, seedPhone, TAG_NAMES } from './data.mjs';
import { load, percentile, setInstanceCaches } from './load.mjs';

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
const ORDERS = 100;
const SUPPRESSIONS = 200;
const EMAIL_RECIPIENTS = 10_000;

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
  const ws = await admin('POST', '/admin/v1/workspaces', {
    name: 'Bench',
    rate_limits: { per_key_per_minute: 1_000_000, emails_per_minute: 1_000_000 },
  });
  const pipeline = await admin('POST', `/admin/v1/workspaces/${ws.id}/pipelines`, {
    name: 'Sales',
    is_default: true,
    stages: [{ name: 'New' }, { name: 'Won' }],
  });
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
    paymentIds[i] = (
      await api('POST', '/v1/payments', {
        type: 'one_time',
        title: `Seed payment ${i}`,
        amount: 1_000_000,
        contact_id: contactIds[i * 11],
        metadata: {
          document: {
            provider: 'stripe',
            id: `in_seed_${i}`,
            number: `INV-${i}`,
            type: 'tax_invoice',
            url: `https://files.example.com/in_seed_${i}.pdf`,
          },
        },
      })
    ).id;
  });
  // Orders: pending ones with an external reference (replayed by the bench), and paid ones with a large total (refunded 0.01 at a time).
  const orderRefs = Array.from({ length: ORDERS }, (_, i) => `bench-order-${i}`);
  const paidOrderIds = new Array(ORDERS);
  await inParallel(ORDERS, 4, async (i) => {
    await api('POST', '/v1/orders', { contact_id: contactIds[i * 13], external_reference: orderRefs[i], items: orderItems(i) });
    paidOrderIds[i] = (
      await api('POST', '/v1/orders', {
        contact_id: contactIds[i * 17],
        financial_status: 'paid',
        items: [{ title: `Seed order ${i}`, unit_price: 1_000_000 }],
      })
    ).id;
  });
  const defaultLimitKeys = await seedDefaultLimitKeys(admin, ws.shard);
  const booking = await seedBookings(admin, api, ws.id);
  const template = await admin('POST', `/admin/v1/workspaces/${ws.id}/templates`, {
    name: 'bench_offer',
    language: 'en_US',
    category: 'marketing',
    body: 'Hi {{1}}, your code is {{2}}',
  });
  // Email: a verified default sender, suppressions to look up, and one processed key to replay.
  await admin('POST', `/admin/v1/workspaces/${ws.id}/sender-profiles`, {
    from_name: 'Bench',
    from_email: 'bench@mail.bench.example',
    domain_verified: true,
    is_default: true,
  });
  await inParallel(SUPPRESSIONS, 4, async (i) => api('POST', '/v1/suppressions', { email: `suppressed${i}@example.org` }));
  const replaySend = await api('POST', '/v1/emails', { to: 'replay@example.org', subject: 'Replay', text: 'Hello', idempotency_key: 'bench-replay' });
  // Newsletters: one with 50 issues (half published), for the newsletter and issue reads.
  const newsletter = await api('POST', '/v1/newsletters', { name: 'Bench weekly' });
  const issueIds = [];
  const publishedIds = [];
  await inParallel(50, 4, async (i) => {
    const issue = await api('POST', `/v1/newsletters/${newsletter.id}/issues`, {
      subject: `Issue ${i}`,
      content: { markdown: `# Issue ${i}\n\nBench words.` },
      external_reference: `bench-issue-${i}`,
    });
    if (i % 2 === 0) {
      await api('POST', `/v1/newsletter-issues/${issue.id}/publish`);
      publishedIds.push(issue.id);
    }
    issueIds.push(issue.id);
  });
  // Email campaigns: 10,000 contacts with email consent subscribed, and a draft to estimate and read.
  await fetch(`${base}/bench/email-subscribe`, { method: 'POST', body: JSON.stringify({ workspace_id: ws.id, count: EMAIL_RECIPIENTS }) });
  const emailCampaign = await api('POST', '/v1/email-campaigns', {
    name: 'Bench estimate',
    subject: 'Hello [[first_name : there]]',
    content: { markdown: '# Hello\n\nBench words.' },
  });
  const hooks = await seedWebhookLog(api);
  const automation = await seedAutomation(api);
  const withEmail = Array.from({ length: 50 }, (_, i) => contactAt(i, CONTACTS, tagIds).email).find(Boolean);
  const { importId, exportId } = await seedContactFiles(base, key, api, withEmail);
  log(`seeded workspace ${ws.id}`);
  // A small workspace moved to the other shard, so the operator's move read has a move to read.
  const mover = await admin('POST', '/admin/v1/workspaces', { name: 'Bench mover', shard: ws.shard });
  const move = await admin('POST', `/admin/v1/workspaces/${mover.id}/move`, { to: ws.shard === 'SHARD_0' ? 'SHARD_1' : 'SHARD_0' });
  const ctx = {
    hooks,
    automation,
    booking,
    base,
    admin,
    adminToken,
    moveId: move.id,
    moverId: mover.id,
    workspaceId: ws.id,
    shard: ws.shard,
    pipelineId: pipeline.id,
    key,
    contactIds,
    dealIds,
    paymentIds,
    orderRefs,
    paidOrderIds,
    stageIds: pipeline.stages.map((s) => s.id),
    templateId: template.id,
    newsletterId: newsletter.id,
    replaySendId: replaySend.id,
    issueIds,
    publishedIssueId: publishedIds[0],
    emailCampaignId: emailCampaign.id,
    importId,
    exportId,
    tagIds,
    defaultLimitKeys,
    summary: `Seed: ${CONTACTS.toLocaleString('en-US')} contacts (identifier history, consent seeds, timeline rows, tags, search index) written in ${seedSeconds.toFixed(1)} s through a bench-only bulk route; ${DEALS} deals and ${PAYMENTS} payments through the API; ${ORDERS} pending and ${ORDERS} paid orders through the API.`,
  };
  const measurements = [
    ['call costs', measureCallCosts],
    ['contact search latency', measureSearchLatency],
    ['contact filter latency', measureFilterLatency],
    ['webhook delivery throughput', measureWebhookThroughput],
    ['lead scoring throughput', measureScoringThroughput],
    ['contact import throughput', measureImportThroughput],
    ['payment-request expiry sweep', measureExpirySweep],
    ['slot race', measureSlotRace],
    ['whatsapp inbound webhook', measureWhatsAppInbound],
    ['whatsapp campaign fan-out', measureWhatsAppCampaign],
    ['email campaign fan-out', measureEmailCampaign],
    ['many tenants on one shard', measureManyTenants],
    ['fair send: 10 recipients behind a 20,000 campaign', measureFairSend],
    ['automation enrollments', measureAutomationEnrollments],
  ];
  ctx.measurementNames = measurements.map(([name]) => name);
  ctx.extraMeasurements = async (selected = () => true) => {
    const out = [];
    for (const [name, measure] of measurements) if (selected(name)) out.push(...(await measure(ctx, log)));
    return out;
  };
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
      {
        or: [
          { field: 'country', op: 'eq', value: 'US' },
          { field: 'company_name', op: 'starts_with', value: 'hoo' },
        ],
      },
    ],
  },
});

/** Filter trees whose answers are computed on every request (their index ranges are exact already). */
const NOT_STORED = new Set(['$jsonb_contains tag', 'custom_fields.plan']);

const FIFTY_TAGS = Array.from({ length: 50 }, (_, k) => `segment-${k}`);

/** Representative filter trees on the seeded contacts (goal: each under 50 ms p50 on one connection). */
function filterTrees(ctx) {
  return [
    ['equality, indexed', { $where: { field: 'lifecycle_stage', op: 'eq', value: 'customer' } }],
    ['range', { $where: { field: 'lead_score', op: 'gte', value: 90 } }],
    ['$jsonb_contains tag', { $jsonb_contains: { tags: [ctx.tagIds[0]] } }],
    ['virtual consent field', { $where: { field: 'email_subscribed', op: 'eq', value: true } }],
    ['custom_fields.plan', { $where: { field: 'custom_fields.plan', op: 'eq', value: 'gold' } }],
    [
      'nested or, starts_with',
      {
        $where: {
          or: [
            { field: 'company_name', op: 'starts_with', value: 'hoo' },
            {
              and: [
                { field: 'country', op: 'eq', value: 'DE' },
                { field: 'first_name', op: 'starts_with', value: 'an' },
              ],
            },
          ],
        },
      },
    ],
  ];
}

/**
 * An equivalent tree no earlier request asked for, so nothing stored answers it: a `$where` tree
 * or'ed with an email no contact holds. A top-level operator (a tag) cannot sit in an `or`: its
 * one-tag answer is never stored (one index range counts as cheaply as a stored answer reads).
 */
function computedEveryTime(filter, nowhere) {
  if (!filter.$where) return filter;
  return { ...filter, $where: { or: [filter.$where, { field: 'email', op: 'eq', value: nowhere }] } };
}

/** A write to a contact moves the workspace's data generation: the next list answer is computed again. */
function contactTouch(ctx) {
  let touches = 0;
  return (i) => () =>
    fetch(`${ctx.base}/v1/contacts/${ctx.contactIds[i]}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ custom_fields: { touched: ++touches } }),
    }).then((r) => {
      if (r.status !== 200) throw new Error(`touch -> ${r.status}`);
      return r.arrayBuffer();
    });
}

/** Each filter tree alone, one request at a time: the latency a single client sees. */
async function measureFilterLatency(ctx, log, rounds = 10) {
  const headers = { authorization: `Bearer ${ctx.key}` };
  const touch = contactTouch(ctx);
  const lines = [];
  for (const [label, filter] of filterTrees(ctx)) {
    const path = `/v1/contacts?filter=${encodeURIComponent(JSON.stringify(filter))}`;
    for (const [variant, before] of [
      ['counted after a write', touch],
      ['repeated, stored answer', () => undefined],
    ]) {
      const result = await load({
        base: ctx.base,
        headers,
        connections: 1,
        seconds: 120,
        maxRequests: rounds,
        makeRequest: (i) => ({ method: 'GET', path, before: before(i) }),
      });
      log(`filter latency (1 connection, ${label}, ${variant}): p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`);
      lines.push(
        `- ${label}, ${variant}: p50 **${result.p50.toFixed(1)} ms**${result.p50 < 50 ? '' : ' (goal: under 50 ms)'}, p99 ${result.p99.toFixed(1)} ms, ${result.requests} requests, ${result.errors} errors`,
      );
    }
  }
  return [
    '## Contact filter latency (1 connection)',
    '',
    `One client, no other load, on ${ctx.contactIds.length.toLocaleString('en-US')} contacts. The \`total\` is always exact: "counted after a write" follows a contact write (untimed) that moves the workspace's data generation, so the total and the page are computed; "repeated" is the same request again with nothing changed, answered from the stored answer of that generation:`,
    '',
    ...lines,
    '',
  ];
}

/** Keys a line measured at the default per-key limit takes in turn (per line), each far from its 100 a minute. */
const DEFAULT_LIMIT_KEYS = 200;
const DEFAULT_LIMIT_LINES = 3;

/**
 * A workspace on the bench workspace's shard with the default rate limits (100 requests a minute
 * per key, so an instance leases 10 tokens at a time) and its keys: a line measured at that limit
 * spreads its requests over 200 keys, as 200 integrations of that size would.
 */
async function seedDefaultLimitKeys(admin, shard) {
  const ws = await admin('POST', '/admin/v1/workspaces', { name: 'Bench default limits', shard });
  const keys = new Array(DEFAULT_LIMIT_KEYS * DEFAULT_LIMIT_LINES);
  await inParallel(
    keys.length,
    8,
    async (i) => (keys[i] = (await admin('POST', `/admin/v1/workspaces/${ws.id}/api-keys`, { name: `default-${i}` })).key),
  );
  return keys;
}

/** A layer line at the default per-key limit: request `i` under the line's `i`-th key in turn. */
const atDefaultLimit = (ctx, line, path, method) => (i) => ({
  method,
  path,
  headers: { authorization: `Bearer ${ctx.defaultLimitKeys[line * DEFAULT_LIMIT_KEYS + (i % DEFAULT_LIMIT_KEYS)]}` },
});

/** Ten order lines (decimal quantities and discounts, so the money math runs on every line). */
function orderItems(i) {
  return Array.from({ length: 10 }, (_, k) => ({
    title: `Item ${i}.${k}`,
    sku: `SKU-${k}`,
    unit_price: 4.99 + k,
    quantity: 1 + (k % 4) / 2,
    ...(k % 3 === 0 ? { discount_percent: 12.5 } : {}),
  }));
}

/** A seeded contact's identity, as a client would send it again. */
function identityOf(i) {
  const c = contactAt(i, CONTACTS, []);
  return c.phone ? { phone: c.phone } : { email: c.email };
}

/** The variables every bench server runs with (besides bench/wrangler.toml's): the operator token, no per-IP limit in the way, the local webhook receiver, the WhatsApp signing secret. */
export const benchVars = (adminToken) => ({
  ADMIN_TOKEN: adminToken,
  RATE_LIMIT_PER_IP_PER_MINUTE: '1000000000',
  ALLOW_UNSAFE_WEBHOOK_HOSTS: '127.0.0.1,localhost',
  WHATSAPP_APP_SECRET: BENCH_WHATSAPP_APP_SECRET,
});

export function scenarios(ctx) {
  const nonce = Date.now().toString(36);
  const n = ctx.contactIds.length;
  const contactIndex = (i) => (i * 7919) % n;
  return [
    { name: SELECT_FLOOR, auth: false, request: () => ({ method: 'GET', path: `/bench/floor/select?id=${ctx.workspaceId}` }) },
    { name: INSERT_FLOOR, auth: false, request: () => ({ method: 'POST', path: '/bench/floor/insert' }) },
    {
      name: 'layer: floor + a key limiter call per request (read replication on)',
      floor: SELECT_FLOOR,
      auth: false,
      request: () => ({ method: 'GET', path: `/bench/layers/limiter?id=${ctx.workspaceId}` }),
    },
    {
      name: 'layer: floor + leased key token + leased IP token',
      floor: SELECT_FLOOR,
      auth: false,
      request: () => ({ method: 'GET', path: `/bench/layers/limiters?id=${ctx.workspaceId}` }),
    },
    {
      name: 'layer: the floor query on the workspace shard (the database the routes read)',
      floor: SELECT_FLOOR,
      auth: false,
      request: () => ({ method: 'GET', path: `/bench/layers/shard-select?shard=${ctx.shard}&id=${ctx.pipelineId}` }),
    },
    {
      name: "layer: the select floor answering 2 KB (a contact answer's size)",
      floor: SELECT_FLOOR,
      auth: false,
      request: () => ({ method: 'GET', path: `/bench/layers/sized?id=${ctx.workspaceId}&bytes=2000` }),
    },
    {
      name: 'layer: the floor query twice in one batch',
      floor: SELECT_FLOOR,
      auth: false,
      request: () => ({ method: 'GET', path: `/bench/layers/batch?id=${ctx.workspaceId}` }),
    },
    {
      name: 'layer: the GET /v1/deals statement raw (no framework, no mapping)',
      floor: SELECT_FLOOR,
      auth: false,
      request: () => ({ method: 'GET', path: `/bench/layers/raw-list?list=deals&shard=${ctx.shard}&ws=${ctx.workspaceId}` }),
    },
    {
      name: 'layer: the GET /v1/orders statement raw (no framework, no mapping)',
      floor: SELECT_FLOOR,
      auth: false,
      request: () => ({ method: 'GET', path: `/bench/layers/raw-list?list=orders&shard=${ctx.shard}&ws=${ctx.workspaceId}` }),
    },
    {
      name: 'layer: insert floor, two round trips (read, then insert)',
      floor: INSERT_FLOOR,
      auth: false,
      request: () => ({ method: 'POST', path: '/bench/layers/two-round-trips' }),
    },
    {
      name: 'layer: two round trips behind the whole /v1 middleware stack (write session)',
      floor: INSERT_FLOOR,
      request: () => ({ method: 'POST', path: '/bench/layers/stack' }),
    },
    {
      name: 'layer: two round trips behind the whole /v1 middleware stack, read replication on (bookmark record)',
      floor: INSERT_FLOOR,
      request: () => ({ method: 'POST', path: '/bench/layers/stack-replicas' }),
    },
    {
      name: 'layer: two round trips behind the whole /v1 middleware stack, on the shard binding (no session)',
      floor: INSERT_FLOOR,
      request: () => ({ method: 'POST', path: '/bench/layers/stack-shard' }),
    },
    {
      name: 'layer: floor + auth (cached key, leased key and IP tokens)',
      floor: SELECT_FLOOR,
      request: () => ({ method: 'GET', path: '/bench/layers/auth' }),
    },
    { name: 'layer: floor + auth + request log', floor: SELECT_FLOOR, request: () => ({ method: 'GET', path: '/bench/layers/auth-log' }) },
    { name: 'layer: floor + the whole /v1 middleware stack', floor: SELECT_FLOOR, request: () => ({ method: 'GET', path: '/bench/layers/stack' }) },
    {
      name: 'layer: floor + the whole /v1 middleware stack, default per-key limit (100 a minute, 200 keys in turn)',
      floor: SELECT_FLOOR,
      request: atDefaultLimit(ctx, 0, '/bench/layers/stack', 'GET'),
    },
    {
      name: 'layer: two round trips behind the whole /v1 middleware stack, default per-key limit (100 a minute, 200 keys in turn)',
      floor: INSERT_FLOOR,
      request: atDefaultLimit(ctx, 1, '/bench/layers/stack', 'POST'),
    },
    {
      name: 'layer: two round trips behind the whole /v1 middleware stack, read replication on, default per-key limit (100 a minute, 200 keys in turn)',
      floor: INSERT_FLOOR,
      request: atDefaultLimit(ctx, 2, '/bench/layers/stack-replicas', 'POST'),
    },
    { name: 'GET /v1/pipelines', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/pipelines' }) },
    {
      // An operator read: one control-plane query (x-d1-control), nothing on a shard.
      name: 'GET /admin/v1/moves/{id}',
      floor: SELECT_FLOOR,
      expected: 0,
      request: () => ({ method: 'GET', path: `/admin/v1/moves/${ctx.moveId}`, headers: { authorization: `Bearer ${ctx.adminToken}` } }),
    },
    {
      name: 'GET /admin/v1/moves?workspace_id=',
      floor: SELECT_FLOOR,
      expected: 0,
      request: () => ({ method: 'GET', path: `/admin/v1/moves?workspace_id=${ctx.moverId}`, headers: { authorization: `Bearer ${ctx.adminToken}` } }),
    },
    {
      name: 'GET /v1/contacts/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/contacts/${ctx.contactIds[contactIndex(i)]}` }),
    },
    {
      name: 'GET /v1/contacts/{id}/score',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/contacts/${ctx.contactIds[contactIndex(i)]}/score` }),
    },
    {
      name: 'POST /v1/contacts (create)',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: '/v1/contacts',
        body: { name: `New Person ${i}`, email: `new.${nonce}.${i}@example.org`, phone: seedPhone(n + i), tags: ['vip'] },
      }),
    },
    {
      // The claim before the route and the stored answer after it: two round trips on top of the create's one.
      name: 'POST /v1/contacts (create, Idempotency-Key)',
      floor: INSERT_FLOOR,
      expected: 3,
      request: (i) => ({
        method: 'POST',
        path: '/v1/contacts',
        headers: { 'Idempotency-Key': `bench-${nonce}-${i}` },
        body: { name: `Keyed Person ${i}`, email: `keyed.${nonce}.${i}@example.org` },
      }),
    },
    {
      // The same key and body again: the stored answer, read in the claim's one round trip.
      name: 'POST /v1/contacts (Idempotency-Key, replay)',
      floor: INSERT_FLOOR,
      expected: 1,
      request: () => ({
        method: 'POST',
        path: '/v1/contacts',
        headers: { 'Idempotency-Key': `bench-${nonce}-replayed` },
        body: { name: 'Replayed Person', email: `replayed.${nonce}@example.org` },
      }),
    },
    {
      name: 'POST /v1/contacts (upsert existing)',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'POST', path: '/v1/contacts', body: { ...identityOf(contactIndex(i)), job_title: `Buyer ${nonce} ${i}` } }),
    },
    {
      name: 'GET /v1/contacts?search= (3+ chars, repeated: stored answer)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/contacts?search=${encodeURIComponent(SEARCH_TERMS[i % SEARCH_TERMS.length])}` }),
    },
    {
      // Page sizes 1-50 with the eight terms: 200 different requests in turn, nothing stored to answer from.
      name: 'GET /v1/contacts?search= (3+ chars, FTS, every answer computed)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'GET',
        path: `/v1/contacts?search=${encodeURIComponent(SEARCH_TERMS[i % SEARCH_TERMS.length])}&limit=${50 - (i % 50)}`,
      }),
    },
    {
      name: 'GET /v1/contacts?search= (1-2 chars, repeated: stored answer)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/contacts?search=${SHORT_TERMS[i % SHORT_TERMS.length]}` }),
    },
    {
      name: 'GET /v1/contacts?filter=$where (repeated: stored answer)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/contacts?filter=${encodeURIComponent(FILTER)}` }),
    },
    {
      // A different (equivalent) tree on every request: nothing stored to answer from, every total counted.
      name: 'GET /v1/contacts?filter= (custom_fields.plan, every answer counted)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'GET',
        path: `/v1/contacts?filter=${encodeURIComponent(
          JSON.stringify({
            $where: {
              or: [
                { field: 'custom_fields.plan', op: 'eq', value: 'gold' },
                { field: 'custom_fields.plan', op: 'eq', value: `none-${nonce}-${i}` },
              ],
            },
          }),
        )}`,
      }),
    },
    ...filterTrees(ctx).map(([label, filter]) => ({
      // A tag's and a custom field's totals are read from their index ranges, never stored.
      name: `GET /v1/contacts?filter= (${label}, repeated: ${NOT_STORED.has(label) ? 'computed, not stored' : 'stored answer'})`,
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/contacts?filter=${encodeURIComponent(JSON.stringify(filter))}` }),
    })),
    ...filterTrees(ctx).map(([label, filter]) => ({
      name: `GET /v1/contacts?filter= (${label}, computed)`,
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'GET',
        path: `/v1/contacts?filter=${encodeURIComponent(JSON.stringify(computedEveryTime(filter, `none-${nonce}-${i}@example.org`)))}`,
      }),
    })),
    {
      name: 'POST /v1/contacts (create, 50 tags)',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: '/v1/contacts',
        body: { name: `Tagged Person ${i}`, email: `tagged.${nonce}.${i}@example.org`, tags: FIFTY_TAGS },
      }),
    },
    {
      // One read batch for every item (holders, labels, blacklist), then one write batch: half the items new, half existing.
      name: 'POST /v1/contacts/batch (100 items)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({
        method: 'POST',
        path: '/v1/contacts/batch',
        body: {
          contacts: Array.from({ length: 100 }, (_, k) =>
            k % 2
              ? { email: `batch.${nonce}.${i}.${k}@example.org`, tags: ['vip', `batch ${k % 5}`] }
              : { ...identityOf(contactIndex(i * 50 + k)), city: `Batch ${i}` },
          ),
        },
      }),
    },
    {
      // The file is checked and stored in R2 before the one insert; the queue does the rest.
      name: 'POST /v1/contact-imports (3 rows)',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: '/v1/contact-imports',
        headers: { 'content-type': 'text/csv' },
        rawBody: `email,name,tags\nload.${nonce}.${i}.a@example.org,A ${i},vip\nload.${nonce}.${i}.b@example.org,B ${i},\nload.${nonce}.${i}.c@example.org,,vip|new\n`,
      }),
    },
    { name: 'GET /v1/contact-imports', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/contact-imports' }) },
    {
      name: 'GET /v1/contact-imports/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/contact-imports/${ctx.importId}` }),
    },
    {
      name: 'POST /v1/contact-exports',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'POST', path: '/v1/contact-exports', body: { filter: { email: `nobody.${nonce}.${i}@example.org` } } }),
    },
    { name: 'GET /v1/contact-exports', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/contact-exports' }) },
    {
      name: 'GET /v1/contact-exports/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/contact-exports/${ctx.exportId}` }),
    },
    {
      // The export row, then its one part streamed from R2.
      name: 'GET /v1/contact-exports/{id}/download (1 contact)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/contact-exports/${ctx.exportId}/download` }),
    },
    {
      // The read batch (pipelines, stages, the contact), then the write batch.
      name: 'POST /v1/deals',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({
        method: 'POST',
        path: '/v1/deals',
        body: { title: `Deal ${i}`, amount: 250 + (i % 1000), contact_id: ctx.contactIds[contactIndex(i + 1)] },
      }),
    },
    {
      name: 'POST /v1/deals (email, new contact)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({
        method: 'POST',
        path: '/v1/deals',
        body: { title: `Deal ${i}`, email: `deal.${nonce}.${i}@example.org`, name: `Buyer ${i}` },
      }),
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
      // The deal and the stage read, then the move. Each visit of a deal moves it to the other stage.
      expected: 2,
      request: (i) => ({
        method: 'POST',
        path: `/v1/deals/${ctx.dealIds[i % DEALS]}/stage`,
        body: { stage_id: ctx.stageIds[(i + Math.floor(i / DEALS)) % 2] },
      }),
    },
    {
      name: 'POST /v1/payments (one_time)',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: '/v1/payments',
        body: { type: 'one_time', title: `Payment ${i}`, amount: 49.9, method: 'card', contact_id: ctx.contactIds[contactIndex(i + 3)] },
      }),
    },
    {
      name: 'POST /v1/payments (installments, 12)',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: '/v1/payments',
        body: { type: 'installments', installment_count: 12, title: `Plan ${i}`, amount: 1200, contact_id: ctx.contactIds[contactIndex(i + 4)] },
      }),
    },
    {
      name: 'GET /v1/payments?search=',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/payments?search=${encodeURIComponent(SEARCH_TERMS[i % SEARCH_TERMS.length])}` }),
    },
    {
      // Below trigram size: each payment of the workspace is tested on its search-index row.
      name: 'GET /v1/payments?search= 1-2 characters',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/payments?search=${encodeURIComponent(SHORT_TERMS[i % SHORT_TERMS.length])}` }),
    },
    {
      name: 'GET /v1/meeting-types/{id}/slots (62 days, 5 hosts, 500 bookings)',
      floor: SELECT_FLOOR,
      // The meeting type, its pool and the calendar of the range, in one batch.
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/meeting-types/${ctx.booking.typeId}/slots?from=${ctx.booking.from}&to=${ctx.booking.to}` }),
    },
    {
      name: 'POST /v1/bookings (SlotLock, round-robin)',
      floor: INSERT_FLOOR,
      // Everything decided on (meeting type, members, contact, calendar, fairness, double submit) in one batch, then the write guarded on the calendar read.
      expected: 2,
      // Each request takes its own 5-minute slot beyond the seeded range.
      request: (i) => ({
        method: 'POST',
        path: '/v1/bookings',
        body: {
          meeting_type_id: ctx.booking.typeId,
          start_at: new Date(Date.parse(ctx.booking.to) + 86_400_000 + i * 300_000).toISOString(),
          timezone: 'UTC',
          contact_id: ctx.contactIds[contactIndex(i + 5)],
        },
      }),
    },
    {
      name: 'POST /v1/payments/{id}/refund',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'POST', path: `/v1/payments/${ctx.paymentIds[i % PAYMENTS]}/refund`, body: { amount: 0.01 } }),
    },
    {
      name: 'POST /v1/orders (10 items, new)',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: '/v1/orders',
        body: { contact_id: ctx.contactIds[contactIndex(i + 5)], items: orderItems(i), shipping_total: 4.95, coupon_codes: ['BENCH'] },
      }),
    },
    {
      name: 'POST /v1/orders (10 items, replay)',
      floor: INSERT_FLOOR,
      // The seeded pending orders: every replay replaces the lines and recomputes the money. The read
      // batch carries a create guarded on the reference being free (it writes nothing), then the replay.
      expected: 2,
      request: (i) => ({
        method: 'POST',
        path: '/v1/orders',
        body: {
          contact_id: ctx.contactIds[(i % ORDERS) * 13],
          external_reference: ctx.orderRefs[i % ORDERS],
          items: orderItems(i),
          note: `replay ${i}`,
        },
      }),
    },
    {
      name: 'POST /v1/orders/{id}/refunds',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'POST', path: `/v1/orders/${ctx.paidOrderIds[i % ORDERS]}/refunds`, body: { amount: 0.01 } }),
    },
    { name: 'GET /v1/orders', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/orders' }) },
    {
      name: 'POST /v1/payment-requests',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: '/v1/payment-requests',
        body: { amount: 120, title: `Link ${i}`, contact_id: ctx.contactIds[contactIndex(i + 5)] },
      }),
    },
    {
      name: 'GET /v1/contacts/{id}/documents',
      floor: SELECT_FLOOR,
      expected: 1,
      // Contacts holding a seeded payment, with its invoice pointer.
      request: (i) => ({ method: 'GET', path: `/v1/contacts/${ctx.contactIds[(i % PAYMENTS) * 11]}/documents` }),
    },
    {
      // Read (template + contact), write (contact, conversation, the sandbox outbox row, the message already sent).
      name: 'POST /v1/templates/{id}/send (new recipient)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({
        method: 'POST',
        path: `/v1/templates/${ctx.templateId}/send`,
        body: {
          to: seedPhone(2 * n + i),
          body_variables: [
            { type: 'text', text: `Guest ${i}` },
            { type: 'text', text: 'SPRING20' },
          ],
        },
      }),
    },
    {
      // Claim (Durable Object), read batch (the platform list's look-up on the control plane beside it: one `x-d1-control` more),
      // write batch (counters, the sandbox's outbox row, the send row already sent), completion (Durable Object).
      name: 'POST /v1/emails (fresh key, sandbox provider)',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({
        method: 'POST',
        path: '/v1/emails',
        body: {
          to: `r${i % 1000}@example.org`,
          subject: `Receipt ${i}`,
          html: `<p>Order <a href="https://shop.example.org/o/${i}">${i}</a></p>`,
          idempotency_key: `bench-${nonce}-${i}`,
          tracking: { clicks: true },
        },
      }),
    },
    {
      // Answered by the claim Durable Object alone: the difference to the floor is the claim's latency.
      name: 'POST /v1/emails (replay)',
      floor: SELECT_FLOOR,
      expected: 0,
      request: () => ({
        method: 'POST',
        path: '/v1/emails',
        body: { to: 'replay@example.org', subject: 'Replay', text: 'Hello', idempotency_key: 'bench-replay' },
      }),
    },
    // Sent emails read back: the list's total and page are one statement, the single read another.
    { name: 'GET /v1/emails', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/emails' }) },
    {
      name: 'GET /v1/emails/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/emails/${ctx.replaySendId}` }),
    },
    {
      name: 'GET /v1/suppressions?email=',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/suppressions?email=suppressed${i % SUPPRESSIONS}@example.org` }),
    },
    // Newsletters: the list and the single read (with the active subscriber count) are one query or batch each.
    { name: 'GET /v1/newsletters', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/newsletters' }) },
    {
      name: 'GET /v1/newsletters/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/newsletters/${ctx.newsletterId}` }),
    },
    // The newsletter check, then the count and the page in one batch.
    {
      name: 'GET /v1/newsletters/{id}/issues',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/newsletters/${ctx.newsletterId}/issues?status=published` }),
    },
    {
      name: 'GET /v1/newsletter-issues/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: (i) => ({ method: 'GET', path: `/v1/newsletter-issues/${ctx.issueIds[i % ctx.issueIds.length]}` }),
    },
    // An external_reference replay: the newsletter and the reference lookup in one batch, then the update.
    {
      name: 'POST /v1/newsletters/{id}/issues (replay)',
      floor: SELECT_FLOOR,
      expected: 2,
      request: (i) => ({
        method: 'POST',
        path: `/v1/newsletters/${ctx.newsletterId}/issues`,
        body: { subject: `Issue ${i % 50}`, external_reference: `bench-issue-${i % 50}` },
      }),
    },
    // Publishing a published issue answers it as is: one read.
    {
      name: 'POST /v1/newsletter-issues/{id}/publish (published)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'POST', path: `/v1/newsletter-issues/${ctx.publishedIssueId}/publish` }),
    },
    // Email campaigns: the list (count and page in one batch), the single read, and the estimate (an untargeted campaign is counted in
    // the statement that reads it: the entries of the eligible-contacts index, less the workspace lists' entries and the platform
    // list's, whose addresses the control plane answers first: one `x-d1-control` more).
    { name: 'GET /v1/email-campaigns', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/email-campaigns' }) },
    {
      name: 'GET /v1/email-campaigns/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/email-campaigns/${ctx.emailCampaignId}` }),
    },
    {
      name: 'GET /v1/email-campaigns/{id}/estimate (every seeded contact)',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/email-campaigns/${ctx.emailCampaignId}/estimate` }),
    },
    // Create: one insert (no snippet lookup unless the content names a snippet).
    {
      name: 'POST /v1/email-campaigns',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: '/v1/email-campaigns',
        body: { name: `Bench ${i}`, subject: 'Hi [[first_name]]', content: { markdown: `# Offer ${i}\n\nWords.` } },
      }),
    },
    // Automations: a create is one batch (no referenced objects to look up), reads one statement each,
    // a rename reads then writes, an enrollment is one guarded batch (the Workflows instance is not D1).
    {
      name: 'POST /v1/automations',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: '/v1/automations',
        body: {
          name: `Bench ${i}`,
          trigger: { event: 'order.paid' },
          steps: [
            { id: 'wait', type: 'wait', duration: 'P7D' },
            { id: 'done', type: 'end' },
          ],
        },
      }),
    },
    { name: 'GET /v1/automations', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/automations' }) },
    {
      name: 'GET /v1/automations/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/automations/${ctx.automation.id}` }),
    },
    {
      name: 'PATCH /v1/automations/{id}',
      floor: INSERT_FLOOR,
      expected: 2,
      request: (i) => ({ method: 'PATCH', path: `/v1/automations/${ctx.automation.id}`, body: { name: `Bench flow ${i}` } }),
    },
    {
      name: 'POST /v1/automations/{id}/activate',
      floor: INSERT_FLOOR,
      expected: 1,
      request: () => ({ method: 'POST', path: `/v1/automations/${ctx.automation.id}/activate` }),
    },
    {
      name: 'POST /v1/automations/{id}/enrollments',
      floor: INSERT_FLOOR,
      expected: 1,
      request: (i) => ({
        method: 'POST',
        path: `/v1/automations/${ctx.automation.id}/enrollments`,
        body: { contact_id: ctx.contactIds[contactIndex(i)] },
      }),
    },
    {
      name: 'GET /v1/automations/{id}/enrollments',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/automations/${ctx.automation.id}/enrollments` }),
    },
    {
      name: 'GET /v1/automation-enrollments/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/automation-enrollments/${ctx.automation.enrollmentId}` }),
    },
    {
      name: 'POST /v1/automation-enrollments/{id}/cancel',
      floor: INSERT_FLOOR,
      expected: 2,
      request: () => ({ method: 'POST', path: `/v1/automation-enrollments/${ctx.automation.enrollmentId}/cancel` }),
    },
    // Webhook events and delivery logs: a count and a page in one batch, a single read, and the two sends (one write each; the attempt runs from the queue).
    { name: 'GET /v1/webhook-events', floor: SELECT_FLOOR, expected: 1, request: () => ({ method: 'GET', path: '/v1/webhook-events' }) },
    {
      name: 'GET /v1/webhook-events/{id}',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/webhook-events/${ctx.hooks.eventId}` }),
    },
    {
      name: 'GET /v1/webhook-endpoints/{id}/deliveries',
      floor: SELECT_FLOOR,
      expected: 1,
      request: () => ({ method: 'GET', path: `/v1/webhook-endpoints/${ctx.hooks.endpointId}/deliveries` }),
    },
    {
      name: 'POST /v1/webhook-endpoints/{id}/deliveries/{delivery_id}/retry',
      floor: INSERT_FLOOR,
      expected: 1,
      request: () => ({ method: 'POST', path: `/v1/webhook-endpoints/${ctx.hooks.endpointId}/deliveries/${ctx.hooks.deliveryId}/retry` }),
    },
    {
      name: 'POST /v1/webhook-endpoints/{id}/test',
      floor: INSERT_FLOOR,
      expected: 1,
      request: () => ({ method: 'POST', path: `/v1/webhook-endpoints/${ctx.hooks.endpointId}/test` }),
    },
  ];
}

/**
 * An active manual automation whose runs end at once (so enrolling many contacts leaves nothing
 * running), and the enrollment of one contact in a second one that waits a month (the enrollment
 * read and cancel lines: cancelling a cancelled enrollment answers it as it is).
 */
async function seedAutomation(api) {
  const flow = { trigger: { event: 'manual' }, re_enrollment: 'always' };
  const automation = await api('POST', '/v1/automations', { name: 'Bench flow', ...flow, steps: [{ id: 'done', type: 'end' }] });
  const holding = await api('POST', '/v1/automations', { name: 'Bench hold', ...flow, steps: [{ id: 'month', type: 'wait', duration: 'P30D' }] });
  for (const a of [automation, holding]) await api('POST', `/v1/automations/${a.id}/activate`);
  const contact = await api('POST', '/v1/contacts', { email: 'automation@bench.example' });
  const enrollment = await api('POST', `/v1/automations/${holding.id}/enrollments`, { contact_id: contact.id });
  return { id: automation.id, enrollmentId: enrollment.id };
}

/**
 * An endpoint answering 204 from a receiver kept for the whole run (so redeliveries and test events
 * end at once, leaving no retries behind), subscribed to a type the routes never emit, with one
 * delivery (a test event) and the id of one event.
 */
async function seedWebhookLog(api) {
  const { createServer } = await import('node:http');
  const server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  server.unref();
  const endpoint = await api('POST', '/v1/webhook-endpoints', { url: `http://127.0.0.1:${server.address().port}/log`, events: ['deal.won'] });
  const { event_id } = await api('POST', `/v1/webhook-endpoints/${endpoint.id}/test`);
  const deliveries = await api('GET', `/v1/webhook-endpoints/${endpoint.id}/deliveries`);
  const [event] = (await api('GET', '/v1/webhook-events?limit=1')).data;
  return { endpointId: endpoint.id, deliveryId: deliveries.data.find((d) => d.event_id === event_id).id, eventId: event.id };
}

/**
 * Bookings: five hosts on a round-robin type (all week, 5-minute slots) and
 * 500 confirmed bookings spread over 62 days, for the slots and booking scenarios.
 */
async function seedBookings(admin, api, workspaceId) {
  const hosts = [];
  for (let i = 0; i < 5; i++)
    hosts.push(
      (await admin('POST', `/admin/v1/workspaces/${workspaceId}/users`, { name: `Host ${i}`, email: `host${i}@bench.example`, role: 'agent' })).id,
    );
  const hours = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));
  const type = await admin('POST', `/admin/v1/workspaces/${workspaceId}/meeting-types`, {
    name: 'Bench call',
    slug: 'bench-call',
    duration_minutes: 5,
    scheduling_kind: 'round_robin',
    host_user_ids: hosts,
    timezone: 'America/New_York',
    weekly_hours: hours,
    buffer_after_minutes: 5,
  });
  const from = new Date(Math.ceil((Date.now() + 86_400_000) / 3_600_000) * 3_600_000);
  const to = new Date(from.getTime() + 62 * 86_400_000);
  await inParallel(500, 4, async (i) => {
    const start = new Date(from.getTime() + Math.floor((i * 62 * 288) / 500) * 300_000).toISOString();
    await api('POST', '/v1/bookings', {
      meeting_type_id: type.id,
      start_at: start,
      timezone: 'UTC',
      invitee: { name: `Invitee ${i}`, email: `invitee${i}@bench.example` },
    });
  });
  return { typeId: type.id, from: from.toISOString(), to: to.toISOString() };
}

/** Ten invitees racing for one slot of a one-host type: one books it, nine answer SLOT_TAKEN. */
async function measureSlotRace(ctx, log, rounds = 10) {
  const user = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/users`, {
    name: 'Race host',
    email: 'race@bench.example',
    role: 'agent',
  });
  const hours = Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [['00:00', '24:00']]]));
  const type = await ctx.admin('POST', `/admin/v1/workspaces/${ctx.workspaceId}/meeting-types`, {
    name: 'Race',
    slug: 'race',
    duration_minutes: 30,
    scheduling_kind: 'one_on_one',
    host_user_ids: [user.id],
    timezone: 'UTC',
    weekly_hours: hours,
  });
  const times = [];
  let wrong = 0;
  for (let r = 0; r < rounds; r++) {
    const start = new Date(Math.ceil((Date.now() + 3 * 86_400_000) / 3_600_000) * 3_600_000 + r * 1_800_000).toISOString();
    const t0 = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        fetch(`${ctx.base}/v1/bookings`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            meeting_type_id: type.id,
            start_at: start,
            timezone: 'UTC',
            invitee: { name: `Racer ${i}`, email: `racer${r}-${i}@bench.example` },
          }),
        }).then((res) => res.status),
      ),
    );
    times.push(performance.now() - t0);
    if (answers.filter((s) => s === 201).length !== 1 || answers.filter((s) => s === 409).length !== 9) wrong++;
  }
  times.sort((a, b) => a - b);
  const p50 = times[Math.floor(times.length / 2)];
  log(
    `slot race: 10 parallel bookings of one slot, ${rounds} rounds, p50 ${p50.toFixed(1)} ms for all ten answers, ${wrong} rounds not 1 x 201 + 9 x 409`,
  );
  return [
    '## Ten parallel bookings of one slot',
    '',
    `${rounds} rounds of 10 invitees posting the same slot of a one-host type at once: every round answered one 201 and nine 409 \`SLOT_TAKEN\` (${wrong} rounds differed); all ten answers arrived within **${p50.toFixed(1)} ms** (p50). The SlotLock Durable Object serializes the claims; each loser re-reads D1 under the lock and sees the winner.`,
    '',
  ];
}

/** Search alone, one request at a time: the latency a single client sees on the seeded contacts. */
async function measureSearchLatency(ctx, log, rounds = 5) {
  const headers = { authorization: `Bearer ${ctx.key}` };
  const touch = contactTouch(ctx);
  const lines = [];
  for (const [label, terms] of [
    ['3+ characters', SEARCH_TERMS],
    ['1-2 characters', SHORT_TERMS],
  ]) {
    for (const [variant, before] of [
      ['computed after a write', touch],
      ['repeated, stored answer', () => undefined],
    ]) {
      const result = await load({
        base: ctx.base,
        headers,
        connections: 1,
        seconds: 120,
        maxRequests: terms.length * rounds,
        makeRequest: (i) => ({ method: 'GET', path: `/v1/contacts?search=${encodeURIComponent(terms[i % terms.length])}`, before: before(i) }),
      });
      log(`search latency (1 connection, ${label}, ${variant}): p50 ${result.p50.toFixed(1)} ms, p99 ${result.p99.toFixed(1)} ms`);
      const shown = terms.map((t) => `\`${t}\``).join(', ');
      lines.push(
        `- ${label} (${shown}), ${variant}: p50 **${result.p50.toFixed(1)} ms**, p99 ${result.p99.toFixed(1)} ms, ${result.requests} requests, ${result.errors} errors`,
      );
    }
  }
  return [
    '## Contact search latency (1 connection)',
    '',
    `One client, no other load, on ${ctx.contactIds.length.toLocaleString('en-US')} contacts. "Computed after a write" follows a contact write (untimed) that moves the workspace's data generation; "repeated" asks again with nothing changed and is answered from the stored answer of that generation (the \`total\` is exact either way):`,
    '',
    ...lines,
    '',
  ];
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
  ctx.profileUnits = seen.size;
  log(`webhook deliveries: ${seen.size}/${count} in ${seconds.toFixed(1)} s (${rate.toFixed(0)}/s)`);
  return [
    '## Webhook delivery throughput',
    '',
    `${count} events published at once to one endpoint on a local receiver: ${seen.size} delivered (signed, one POST each) in ${seconds.toFixed(1)} s, **${rate.toFixed(0)} deliveries/s**, through the real local Queue (batches of up to 100 messages, 1 s batch timeout; per batch and workspace one read and one write, six POSTs in flight).`,
    '',
    'Emitting an event adds no D1 round trip to the write path: the outbox row is one more statement in the batch that makes the change, and the fan-out to the queue runs after the response (`waitUntil`).',
  ];
}

const AUTOMATION_CONTACTS = 1_000;

/**
 * Automations from events (goals: at least 100 enrollments a second, trigger-to-first-step p50 at most
 * 1 s): a workspace of its own with an active automation on `contact.created` whose one step tags the
 * contact, 1,000 seeded contacts, then one `contact.created` event for each committed and published at
 * once (as a burst of writes would); timed until every contact is enrolled and until every run
 * completed. The first step's delay is its start minus its trigger event's creation.
 */
async function measureAutomationEnrollments(ctx, log) {
  const ws = await ctx.admin('POST', '/admin/v1/workspaces', {
    name: 'Bench automations',
    shard: ctx.shard,
    rate_limits: { per_key_per_minute: 1_000_000 },
  });
  const { key } = await ctx.admin('POST', `/admin/v1/workspaces/${ws.id}/api-keys`, { name: 'bench' });
  const api = (method, path, body) => call(ctx.base, key, method, path, body);
  const automation = await api('POST', '/v1/automations', {
    name: 'Bench welcome',
    trigger: { event: 'contact.created' },
    steps: [{ id: 'tag', type: 'add_tag', tag: 'welcomed' }],
  });
  await api('POST', `/v1/automations/${automation.id}/activate`);
  const contacts = Array.from({ length: AUTOMATION_CONTACTS }, (_, k) => contactAt(k, AUTOMATION_CONTACTS, []));
  const seeded = await fetch(`${ctx.base}/bench/seed/contacts`, { method: 'POST', body: JSON.stringify({ workspace_id: ws.id, contacts }) });
  const { ids } = await seeded.json();
  const started = performance.now();
  await fetch(`${ctx.base}/bench/emit`, { method: 'POST', body: JSON.stringify({ workspace_id: ws.id, count: ids.length, contact_ids: ids }) });
  const stats = async () => (await api('GET', `/v1/automations/${automation.id}`)).stats;
  let enrolledAt = null;
  let last = await stats();
  while (last.completed + last.failed < ids.length && performance.now() - started < 300_000) {
    if (enrolledAt === null && last.enrolled >= ids.length) enrolledAt = performance.now();
    await new Promise((r) => setTimeout(r, 100));
    last = await stats();
  }
  const doneAt = performance.now();
  enrolledAt ??= doneAt;
  const page = await api('GET', `/v1/automations/${automation.id}/enrollments?limit=50`);
  const delays = [];
  for (const e of page.data) {
    const [run, event] = await Promise.all([
      api('GET', `/v1/automation-enrollments/${e.id}`),
      api('GET', `/v1/webhook-events/${e.trigger.event_id}`),
    ]);
    if (run.steps[0]) delays.push(Date.parse(run.steps[0].started_at) - Date.parse(event.created_at));
  }
  delays.sort((a, b) => a - b);
  const p50 = delays[Math.floor(delays.length / 2)] ?? Number.NaN;
  const enrollRate = last.enrolled / ((enrolledAt - started) / 1000);
  const stepRate = last.completed / ((doneAt - started) / 1000);
  log(
    `automation enrollments: ${last.enrolled} in ${((enrolledAt - started) / 1000).toFixed(1)} s (${enrollRate.toFixed(0)}/s), first step p50 ${p50} ms, ${stepRate.toFixed(0)} runs/s`,
  );
  return [
    '## Automation enrollments from events',
    '',
    `${ids.length.toLocaleString('en-US')} \`contact.created\` events committed and published at once in a workspace whose active automation starts on them (one step: a tag): **${enrollRate.toFixed(0)} enrollments/s** (goal: at least 100), trigger-to-first-step p50 **${p50} ms** over ${delays.length} runs (goal: at most 1,000 ms), ${last.completed} runs completed (${last.failed} failed), **${stepRate.toFixed(0)} runs/s** end to end. Locally the Workflows engine runs every instance in the same runtime as the requests and the queue consumers.`,
    '',
  ];
}

const SCORING_CONTACTS = 1_000;
const SIGNALS_PER_CONTACT = 5;

/**
 * Lead scoring (goal: at least 1,000 signals a second): a workspace of its own scoring with the default rules, 1,000
 * seeded contacts, then 5,000 signals recorded 25 to a batch by eight writers, each batch handed on as a request's
 * would be; timed from the first signal until none is left uncounted.
 */
async function measureScoringThroughput(ctx, log) {
  const ws = await ctx.admin('POST', '/admin/v1/workspaces', { name: 'Bench scoring', shard: ctx.shard });
  await ctx.admin('PUT', `/admin/v1/workspaces/${ws.id}/scoring`, { enabled: true });
  const contacts = Array.from({ length: SCORING_CONTACTS }, (_, k) => contactAt(k, SCORING_CONTACTS, []));
  const seeded = await fetch(`${ctx.base}/bench/seed/contacts`, { method: 'POST', body: JSON.stringify({ workspace_id: ws.id, contacts }) });
  const { ids } = await seeded.json();
  // Switching on rescored the (empty) workspace; the seeded contacts are scored by their signals.
  const started = performance.now();
  const recorded = await fetch(`${ctx.base}/bench/signals`, {
    method: 'POST',
    body: JSON.stringify({ workspace_id: ws.id, contact_ids: ids, per_contact: SIGNALS_PER_CONTACT, per_batch: 25 }),
  });
  const { recorded: count } = await recorded.json();
  const recordedAt = performance.now();
  let pending = count;
  while (pending > 0 && performance.now() - started < 120_000) {
    await new Promise((r) => setTimeout(r, 100));
    pending = (await (await fetch(`${ctx.base}/bench/signals/pending?workspace_id=${ws.id}`)).json()).pending;
  }
  const seconds = (performance.now() - started) / 1000;
  const rate = (count - pending) / seconds;
  ctx.profileUnits = count - pending;
  log(`lead scoring: ${count - pending}/${count} signals scored in ${seconds.toFixed(1)} s (${rate.toFixed(0)}/s)`);
  return [
    '## Lead scoring throughput',
    '',
    `${count.toLocaleString('en-US')} signals for ${SCORING_CONTACTS.toLocaleString('en-US')} contacts, recorded 25 to a D1 batch by eight writers in ${((recordedAt - started) / 1000).toFixed(1)} s, each batch handed to the engine as a committed request's is: all counted after ${seconds.toFixed(1)} s, **${rate.toFixed(0)} signals/s** (goal: 1,000/s), through the real local Queue (a batch's messages for one workspace coalesce into passes of 100 contacts: one read and one write batch each).`,
    '',
    'Recording a signal adds no D1 round trip to the write that causes it: it is one more statement in that batch, written only while the workspace scores contacts.',
  ];
}

/** One small CSV import, and a one-contact export waited on until downloadable: what the file routes' scenarios read. */
async function seedContactFiles(base, key, api, email) {
  const uploaded = await fetch(`${base}/v1/contact-imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'text/csv' },
    body: 'email,name\nseed.import@example.org,Seed Import\n',
  });
  if (uploaded.status !== 201) throw new Error(`POST /v1/contact-imports -> ${uploaded.status} ${await uploaded.text()}`);
  const exported = await api('POST', '/v1/contact-exports', { filter: { email } });
  for (let i = 0; i < 240; i++) {
    if ((await api('GET', `/v1/contact-exports/${exported.id}`)).status === 'completed') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  return { importId: (await uploaded.json()).id, exportId: exported.id };
}

/** A CSV of `rows` contacts for the throughput run: each new (a nonce in the address), with a name, a city, a tag and a custom field. */
function importCsv(rows, nonce) {
  const lines = ['email,name,city,tags,custom_fields.tier'];
  for (let i = 0; i < rows; i++) lines.push(`imp.${nonce}.${i}@example.org,Imported ${i},City ${i % 50},imported|batch ${i % 10},${i % 3}`);
  return `${lines.join('\n')}\n`;
}

/** One CSV import of `BENCH_IMPORT_ROWS` (default 100,000) new contacts through the real local Queue, timed from upload to `completed`. */
async function measureImportThroughput(ctx, log, rows = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000)) {
  const csv = importCsv(rows, Date.now().toString(36));
  const started = performance.now();
  const res = await fetch(`${ctx.base}/v1/contact-imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ctx.key}`, 'content-type': 'text/csv' },
    body: csv,
  });
  const uploaded = await res.json();
  if (res.status !== 201) throw new Error(`POST /v1/contact-imports -> ${res.status} ${JSON.stringify(uploaded)}`);
  const uploadSeconds = (performance.now() - started) / 1000;
  let state = uploaded;
  while (state.status === 'queued' || state.status === 'processing') {
    if (performance.now() - started > 30 * 60_000) break;
    await new Promise((r) => setTimeout(r, 500));
    state = await call(ctx.base, ctx.key, 'GET', `/v1/contact-imports/${uploaded.id}`);
  }
  const seconds = (performance.now() - started) / 1000;
  const rate = state.processed_rows / seconds;
  log(`contact import: ${state.processed_rows}/${rows} rows ${state.status} in ${seconds.toFixed(1)} s (${rate.toFixed(0)} rows/s)`);
  return [
    '## Contact import throughput',
    '',
    `One CSV file of ${rows.toLocaleString('en-US')} new contacts (${(csv.length / 1e6).toFixed(1)} MB; email, name, city, two tags, a custom field) uploaded to \`POST /v1/contact-imports\` (checked whole and stored in R2 in ${uploadSeconds.toFixed(1)} s), then applied through the real local Queue, one message in flight: ${state.processed_rows.toLocaleString('en-US')} rows \`${state.status}\` (${state.created} created, ${state.failed} failed) in ${seconds.toFixed(1)} s, **${rate.toFixed(0)} rows/s** (goal: 1,000). Each message applies up to 10 chunks of 100 rows, each chunk two D1 round trips (one read batch, one write batch carrying the import's progress).`,
    '',
  ];
}

/** Each kind of call alone, sequential and unloaded: what a Durable Object call costs next to a D1 round trip. */
async function measureCallCosts(ctx, log, rounds = 5) {
  const runs = [];
  for (let i = 0; i < rounds; i++) runs.push(await (await fetch(`${ctx.base}/bench/call-costs?count=500`)).json());
  const median = (key) => runs.map((r) => r[key]).sort((a, b) => a - b)[Math.floor(rounds / 2)];
  const [limiter, reused, select, insert] = ['limiter', 'limiterReusedStub', 'selectFloor', 'insertFloor'].map(median);
  log(
    `call costs: limiter ${limiter.toFixed(3)} ms, reused stub ${reused.toFixed(3)} ms, select floor ${select.toFixed(3)} ms, insert floor ${insert.toFixed(3)} ms`,
  );
  return [
    '## Call costs (sequential, no other load)',
    '',
    `500 calls of each kind one after another inside the Worker, median of ${rounds} runs: a key's rate-limiter call (\`hit\`, the object already running) **${limiter.toFixed(3)} ms** (${reused.toFixed(3)} ms through a stub looked up once: the look-up is not the cost), the select floor's D1 round trip **${select.toFixed(3)} ms**, the insert floor's **${insert.toFixed(3)} ms**. The limiter call every \`/v1\` request makes is ${((limiter / select) * 100).toFixed(0)}% of a one-statement read's round trip.`,
    '',
  ];
}

async function measureExpirySweep(ctx, log, count = 1000) {
  await inParallel(count, 8, async (i) => {
    await call(ctx.base, ctx.key, 'POST', '/v1/payment-requests', {
      amount: 10,
      title: `Due ${i}`,
      contact_id: ctx.contactIds[(i * 13) % ctx.contactIds.length],
    });
  });
  const res = await fetch(`${ctx.base}/bench/payment-requests/due`, {
    method: 'POST',
    body: JSON.stringify({ workspace_id: ctx.workspaceId, count }),
  });
  const { due } = await res.json();
  const started = performance.now();
  const run = await ctx.admin('POST', '/admin/v1/sweeps/expire-payment-requests');
  const ms = performance.now() - started;
  const expired = run.result.payment_requests_expired;
  log(`expiry sweep: ${expired}/${due} due links expired in one run, ${ms.toFixed(0)} ms`);
  return [
    '## Payment-request expiry sweep',
    '',
    `One \`expire-payment-requests\` run over ${due} due links: **${expired} expired in ${ms.toFixed(0)} ms** (chunks of 250: one read and one write batch each, the \`payment_request.expired\` outbox rows inserted set-based in the same batch, then handed to the queue).`,
    '',
  ];
}

/** The WhatsApp app secret the bench server runs with (bench/run.mjs passes it as a var). */
const BENCH_WHATSAPP_APP_SECRET = 'bench-whatsapp-app-secret';

/** Signed inbound WhatsApp deliveries per second: each a new message from a seeded contact, 8 at a time. */
async function measureWhatsAppInbound(ctx, log, count = 1000, width = 8) {
  const { createHmac } = await import('node:crypto');
  const nonce = Date.now().toString(36);
  let errors = 0;
  const started = performance.now();
  await inParallel(count, width, async (i) => {
    const from = seedPhone((i * 7919) % ctx.contactIds.length).slice(1);
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'WABA',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { phone_number_id: ctx.workspaceId },
                contacts: [{ wa_id: from, profile: { name: 'Bench' } }],
                messages: [{ from, id: `wamid.bench.${nonce}.${i}`, timestamp: '1767225600', type: 'text', text: { body: `Hello ${i}` } }],
              },
            },
          ],
        },
      ],
    });
    const signature = `sha256=${createHmac('sha256', BENCH_WHATSAPP_APP_SECRET).update(body).digest('hex')}`;
    const res = await fetch(`${ctx.base}/providers/whatsapp/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
      body,
    });
    await res.arrayBuffer();
    if (res.status !== 200) errors++;
  });
  const seconds = (performance.now() - started) / 1000;
  const rate = count / seconds;
  log(`whatsapp inbound: ${count} deliveries in ${seconds.toFixed(1)} s (${rate.toFixed(0)}/s), ${errors} errors`);
  return [
    '## WhatsApp inbound webhook throughput',
    '',
    `${count} signed Cloud API notifications (one text message each, from existing contacts), ${width} at a time: **${rate.toFixed(0)} deliveries/s**, ${errors} errors. Each delivery verifies the signature, finds the workspace by \`phone_number_id\`, reads the contact (one batch) and writes the message, the conversation and \`message.received\` (one batch).`,
    '',
  ];
}

/** A WhatsApp campaign to ~10,000 seeded contacts through the sandbox: recipients per second from execute to `completed`. */
/** The resident memory of the local runtime's processes, in MB (0 where `ps` cannot tell). */
function workerdRssMb() {
  try {
    return (
      execFileSync('ps', ['-C', 'workerd', '-o', 'rss='], { encoding: 'utf8' })
        .split('\n')
        .reduce((n, l) => n + (Number(l.trim()) || 0), 0) / 1024
    );
  } catch {
    return 0;
  }
}

async function measureEmailCampaign(ctx, log) {
  const markdown =
    '# Hello [[first_name : there]]\n\nNews for [[company_name : you]]: [the spring issue](https://news.example.org/spring) and [the shop](https://shop.example.org/?ref=bench).';
  const campaign = await call(ctx.base, ctx.key, 'POST', '/v1/email-campaigns', {
    name: 'Bench fan-out',
    subject: 'Hi [[first_name : there]]',
    content: { markdown },
  });
  const before = workerdRssMb();
  let peak = before;
  const started = performance.now();
  await call(ctx.base, ctx.key, 'POST', `/v1/email-campaigns/${campaign.id}/send`, {});
  let current = campaign;
  const deadline = started + 900_000;
  while (performance.now() < deadline) {
    current = await call(ctx.base, ctx.key, 'GET', `/v1/email-campaigns/${campaign.id}`);
    peak = Math.max(peak, workerdRssMb());
    if (current.status === 'sent' || current.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (performance.now() - started) / 1000;
  const { targeted, sent, failed } = current.counters;
  const rate = sent / seconds;
  ctx.profileUnits = sent;
  log(`email campaign: ${current.status}, ${sent}/${targeted} sent (${failed} failed) in ${seconds.toFixed(1)} s (${rate.toFixed(0)} recipients/s)`);
  return [
    '## Email campaign fan-out',
    '',
    `One campaign to the ${targeted.toLocaleString('en-US')} email-subscribed seeded contacts through the sandbox provider, from \`send\` to \`sent\`: ${current.status} with ${sent.toLocaleString('en-US')} sent and ${failed} failed in ${seconds.toFixed(1)} s, **${rate.toFixed(0)} recipients/s** (target: 500/s), through the real local send Queue (pages of 500 recipients by keyset, each sending its recipients in chunks of 50 at once before the next page is enqueued, rendered per recipient with open and click tracking asked for, applied only where \`TRACKING_SECRET\` is set, which the bench server does not set; each chunk one bulk send: one read, one reserve, one provider and one settle batch; no batch timeout on the send queue). Resident memory of the local runtime: ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at the peak (all invocations together; one invocation holds at most one page: 500 rendered emails in ten chunks).`,
    '',
  ];
}

async function measureWhatsAppCampaign(ctx, log) {
  const filters = { $where: { field: 'lead_score', op: 'lt', value: 11 } };
  const campaign = await call(ctx.base, ctx.key, 'POST', '/v1/campaigns', {
    name: 'Bench campaign',
    template_id: ctx.templateId,
    audience_filters: filters,
    variables: { 1: '{{contact.first_name|there}}', 2: 'BENCH' },
  });
  const started = performance.now();
  await call(ctx.base, ctx.key, 'POST', `/v1/campaigns/${campaign.id}/execute`, {});
  let current = campaign;
  const deadline = started + 600_000;
  while (performance.now() < deadline) {
    current = await call(ctx.base, ctx.key, 'GET', `/v1/campaigns/${campaign.id}`);
    if (current.status === 'completed' || current.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (performance.now() - started) / 1000;
  const { targeted, sent, failed } = current.stats;
  const rate = sent / seconds;
  ctx.profileUnits = sent;
  log(
    `whatsapp campaign: ${current.status}, ${sent}/${targeted} sent (${failed} failed) in ${seconds.toFixed(1)} s (${rate.toFixed(0)} recipients/s)`,
  );
  return [
    '## WhatsApp campaign fan-out',
    '',
    `One campaign to the seeded contacts with \`lead_score < 11\` (${targeted.toLocaleString('en-US')} recipients, WhatsApp consent subscribed) through the sandbox provider: ${current.status} with ${sent.toLocaleString('en-US')} sent and ${failed} failed in ${seconds.toFixed(1)} s, **${rate.toFixed(0)} recipients/s**, through the real local send Queue (pages of 200 recipients by keyset, each sending its recipients in chunks of 50 at once before the next page is enqueued, each chunk four round trips on the shard; no batch timeout on the send queue).`,
    '',
  ];
}

const TENANTS = 20;
const BIG_TENANT_RECIPIENTS = Number(process.env.BENCH_BIG_TENANT_RECIPIENTS ?? 20_000);
const QUIET_TENANT_CONTACTS = 500;
const MIXED_SECONDS = Number(process.env.BENCH_MIXED_SECONDS ?? 15);
const percent = (a, b) => `${(((a - b) / b) * 100).toFixed(0)}%`;

/** A workspace on `shard` with a pipeline, a key and `contacts` seeded contacts (limits out of the way: this measures sharing, not limits). */
async function seedTenant(ctx, name, contacts) {
  const ws = await ctx.admin('POST', '/admin/v1/workspaces', {
    name,
    shard: ctx.shard,
    rate_limits: { per_key_per_minute: 1_000_000, emails_per_minute: 1_000_000 },
  });
  await ctx.admin('POST', `/admin/v1/workspaces/${ws.id}/pipelines`, { name: 'Sales', is_default: true, stages: [{ name: 'New' }, { name: 'Won' }] });
  const key = (await ctx.admin('POST', `/admin/v1/workspaces/${ws.id}/api-keys`, { name: 'bench' })).key;
  const contactIds = [];
  for (let from = 0; from < contacts; from += CHUNK) {
    const batch = Array.from({ length: Math.min(CHUNK, contacts - from) }, (_, k) => contactAt(from + k, contacts, []));
    const res = await fetch(`${ctx.base}/bench/seed/contacts`, { method: 'POST', body: JSON.stringify({ workspace_id: ws.id, contacts: batch }) });
    if (res.status !== 201) throw new Error(`seeding a tenant answered ${res.status}`);
    contactIds.push(...(await res.json()).ids);
  }
  return { id: ws.id, key, contacts, contactIds };
}

/** A quiet tenant's traffic: 8 reads for every 2 writes, on its own data. */
function mixedRequest(tenant) {
  const one = (i) => tenant.contactIds[(i * 7919) % tenant.contactIds.length];
  return (i) => {
    switch (i % 10) {
      case 0:
      case 1:
        return { method: 'GET', path: `/v1/contacts/${one(i)}` };
      case 2:
        return { method: 'GET', path: `/v1/contacts?search=${SEARCH_TERMS[i % SEARCH_TERMS.length]}` };
      case 3:
        return { method: 'GET', path: '/v1/deals' };
      case 4:
        return { method: 'GET', path: '/v1/orders' };
      case 5:
        return {
          method: 'GET',
          path: `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ $where: { field: 'lifecycle_stage', op: 'eq', value: 'customer' } }))}`,
        };
      case 6:
        return { method: 'GET', path: '/v1/pipelines' };
      case 7:
        return { method: 'GET', path: `/v1/contacts/${one(i + 1)}/documents` };
      case 8:
        return { method: 'POST', path: '/v1/contacts', body: { ...identityAt(i, tenant.contacts), job_title: `Buyer ${i}` } };
      default:
        return i % 20 === 9
          ? { method: 'POST', path: '/v1/deals', body: { title: `Deal ${i}`, amount: 100, contact_id: one(i) } }
          : { method: 'POST', path: '/v1/orders', body: { contact_id: one(i), items: orderItems(i).slice(0, 3) } };
    }
  };
}

function identityAt(i, total) {
  const c = contactAt((i * 7919) % total, total, []);
  return c.phone ? { phone: c.phone } : { email: c.email };
}

/** Every quiet tenant at once, one connection each, for `seconds`: each tenant's summary and all their latencies pooled. */
async function quietLoad(ctx, quiet, seconds) {
  const own = quiet.map(() => []);
  const perTenant = await Promise.all(
    quiet.map((t, k) =>
      load({
        base: ctx.base,
        headers: { authorization: `Bearer ${t.key}` },
        makeRequest: mixedRequest(t),
        connections: 1,
        seconds,
        latencies: own[k],
      }),
    ),
  );
  const pooled = own.flat().sort((a, b) => a - b);
  const errors = perTenant.reduce((n, r) => n + r.errors, 0);
  return {
    perTenant,
    pooled: { p50: percentile(pooled, 50), p99: percentile(pooled, 99), rps: pooled.length / seconds, requests: pooled.length, errors },
  };
}

const setCaches = (ctx, mode, without = []) => setInstanceCaches(ctx.base, mode, without);

/**
 * 20 workspaces on one shard: 19 run a mixed API load (80% reads, 20% writes, one connection
 * each) while the 20th is idle, then while it sends an email campaign to 20,000 recipients.
 * Cold (caches off) throughout, as production spreads requests over instances; the same idle
 * load warm (caches on) shows what the instance's caches buy when many tenants interleave writes.
 */
async function measureManyTenants(ctx, log) {
  const quiet = [];
  for (let k = 0; k < TENANTS - 1; k++) quiet.push(await seedTenant(ctx, `Quiet tenant ${k + 1}`, QUIET_TENANT_CONTACTS));
  const big = await seedTenant(ctx, 'Big tenant', BIG_TENANT_RECIPIENTS);
  await fetch(`${ctx.base}/bench/email-subscribe`, { method: 'POST', body: JSON.stringify({ workspace_id: big.id, count: BIG_TENANT_RECIPIENTS }) });
  await ctx.admin('POST', `/admin/v1/workspaces/${big.id}/sender-profiles`, {
    from_name: 'Big',
    from_email: 'big@mail.bench.example',
    domain_verified: true,
    is_default: true,
  });
  const campaign = await call(ctx.base, big.key, 'POST', '/v1/email-campaigns', {
    name: 'Big send',
    subject: 'Hi [[first_name : there]]',
    content: { markdown: '# Hello [[first_name : there]]\n\nNews for [[company_name : you]].' },
  });
  log(`many tenants: ${quiet.length} quiet tenants of ${QUIET_TENANT_CONTACTS} contacts and one of ${BIG_TENANT_RECIPIENTS} on ${ctx.shard}`);

  // Each phase starts after a short run that warms the runtime (and, warm, the caches).
  const phase = async (mode, without = []) => {
    await setCaches(ctx, mode, without);
    await quietLoad(ctx, quiet, 2);
    return quietLoad(ctx, quiet, MIXED_SECONDS);
  };
  const warm = await phase('on');
  const cacheStats = (await (await fetch(`${ctx.base}/bench/instance-caches`)).json()).namespaces.filter((n) => n.hits + n.misses > 0);
  const idle = await phase('off');
  // What each cache buys: the warm load again with that namespace alone off.
  const each = [];
  for (const n of cacheStats) each.push({ namespace: n.namespace, result: await phase('on', [n.namespace]) });
  log(
    `many tenants, big tenant idle: cold p50 ${idle.pooled.p50.toFixed(1)} ms p99 ${idle.pooled.p99.toFixed(1)} ms; warm p50 ${warm.pooled.p50.toFixed(1)} ms p99 ${warm.pooled.p99.toFixed(1)} ms`,
  );

  await setCaches(ctx, 'off');
  await quietLoad(ctx, quiet, 2);
  const started = performance.now();
  await call(ctx.base, big.key, 'POST', `/v1/email-campaigns/${campaign.id}/send`, {});
  const busy = await quietLoad(ctx, quiet, MIXED_SECONDS);
  let current = campaign;
  while (performance.now() - started < 900_000) {
    current = await call(ctx.base, big.key, 'GET', `/v1/email-campaigns/${campaign.id}`);
    if (current.status === 'sent' || current.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const sendSeconds = (performance.now() - started) / 1000;
  await setCaches(ctx, 'on');
  const worst = Math.max(...quiet.map((_, k) => busy.perTenant[k].p99 / idle.perTenant[k].p99));
  log(
    `many tenants, big tenant sending: cold p50 ${busy.pooled.p50.toFixed(1)} ms p99 ${busy.pooled.p99.toFixed(1)} ms (${(busy.pooled.p99 / idle.pooled.p99).toFixed(2)}x idle p99; worst tenant ${worst.toFixed(2)}x); campaign ${current.status} in ${sendSeconds.toFixed(1)} s`,
  );

  const fmtMs = (n) => n.toFixed(1);
  return [
    '## Many tenants on one shard',
    '',
    `${TENANTS} workspaces on ${ctx.shard} (besides the bench workspace): ${quiet.length} quiet ones of ${QUIET_TENANT_CONTACTS} contacts each, each driven by one client in a closed loop with a mixed load (8 reads for every 2 writes: a contact, a search, a filter, the deals, the orders, the pipelines and a contact's documents; a contact upsert and a deal or an order of 3 lines), ${MIXED_SECONDS} s per phase, limits raised out of the way; and one big tenant of ${BIG_TENANT_RECIPIENTS.toLocaleString('en-US')} email-subscribed contacts, first idle, then sending one campaign to all of them (the quiet load starts as the send is accepted). Cold (instance caches off) unless said otherwise. Goal: each quiet tenant's p99 while the big tenant sends at most 1.5x its p99 while it is idle.`,
    '',
    `- All quiet requests, big tenant idle: p50 **${fmtMs(idle.pooled.p50)} ms**, p99 **${fmtMs(idle.pooled.p99)} ms**, ${idle.pooled.rps.toFixed(0)} requests/s, ${idle.pooled.errors} errors`,
    `- All quiet requests, big tenant sending: p50 **${fmtMs(busy.pooled.p50)} ms**, p99 **${fmtMs(busy.pooled.p99)} ms** (**${(busy.pooled.p99 / idle.pooled.p99).toFixed(2)}x** the idle p99; the worst tenant ${worst.toFixed(2)}x), ${busy.pooled.rps.toFixed(0)} requests/s, ${busy.pooled.errors} errors`,
    `- The big tenant's campaign: ${current.status}, ${current.counters.sent.toLocaleString('en-US')} of ${current.counters.targeted.toLocaleString('en-US')} sent in ${sendSeconds.toFixed(1)} s (${(current.counters.sent / sendSeconds).toFixed(0)} recipients/s while the quiet tenants ran for the first ${MIXED_SECONDS} s)`,
    `- The same idle load with the instance caches on (one instance serving everything): p50 ${fmtMs(warm.pooled.p50)} ms, p99 ${fmtMs(warm.pooled.p99)} ms, ${warm.pooled.rps.toFixed(0)} requests/s: the caches buy ${percent(warm.pooled.rps, idle.pooled.rps)} throughput and ${percent(idle.pooled.p50, warm.pooled.p50)} on the p50.`,
    '',
    'Each cache used in that phase, measured again with it alone off (the others on): what it buys is the throughput with it over the throughput without it.',
    '',
    '| namespace | hits | misses | requests/s without it | p50 ms without it | what it buys |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...each.map(({ namespace, result }) => {
      const n = cacheStats.find((c) => c.namespace === namespace);
      return `| \`${namespace}\` | ${n.hits} | ${n.misses} | ${result.pooled.rps.toFixed(0)} | ${fmtMs(result.pooled.p50)} | ${percent(warm.pooled.rps, result.pooled.rps)} |`;
    }),
    '',
    '| quiet tenant | idle p50 ms | idle p99 ms | sending p50 ms | sending p99 ms | p99 sending / idle |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...quiet.map(
      (_, k) =>
        `| ${k + 1} | ${fmtMs(idle.perTenant[k].p50)} | ${fmtMs(idle.perTenant[k].p99)} | ${fmtMs(busy.perTenant[k].p50)} | ${fmtMs(busy.perTenant[k].p99)} | ${(busy.perTenant[k].p99 / idle.perTenant[k].p99).toFixed(2)}x |`,
    ),
    '',
  ];
}

const FAIR_BIG_RECIPIENTS = 20_000;
const FAIR_SMALL_RECIPIENTS = 10;

/** A tenant with `recipients` email-subscribed contacts (about 9 in 10 seeded contacts have an email, hence a fifth more) and a verified default sender. */
async function emailTenant(ctx, name, recipients) {
  const tenant = await seedTenant(ctx, name, recipients + Math.ceil(recipients / 5) + 5);
  await fetch(`${ctx.base}/bench/email-subscribe`, { method: 'POST', body: JSON.stringify({ workspace_id: tenant.id, count: recipients }) });
  await ctx.admin('POST', `/admin/v1/workspaces/${tenant.id}/sender-profiles`, {
    from_name: name,
    from_email: 'fair@mail.bench.example',
    domain_verified: true,
    is_default: true,
  });
  return tenant;
}

/** Sends a new campaign of `tenant` to all its subscribers: `read` reads it, `until(everyMs)` polls it until it left `sending`. */
async function sendNewCampaign(ctx, tenant, name) {
  const campaign = await call(ctx.base, tenant.key, 'POST', '/v1/email-campaigns', {
    name,
    subject: 'Hi [[first_name : there]]',
    content: { markdown: '# Hello [[first_name : there]]\n\nNews for [[company_name : you]].' },
  });
  const started = performance.now();
  await call(ctx.base, tenant.key, 'POST', `/v1/email-campaigns/${campaign.id}/send`, {});
  const read = () => call(ctx.base, tenant.key, 'GET', `/v1/email-campaigns/${campaign.id}`);
  const until = async (everyMs, deadlineMs = 900_000) => {
    let current = await read();
    while (current.status === 'sending' && performance.now() - started < deadlineMs) {
      await new Promise((r) => setTimeout(r, everyMs));
      current = await read();
    }
    return { current, seconds: (performance.now() - started) / 1000 };
  };
  return { read, until };
}

/**
 * Two tenants on one shard: a small one sends a campaign to 10 recipients alone, then again
 * while a large one's campaign to 20,000 is under way (launched once 2,000 of those were sent).
 * The send queue keeps one message per campaign, so the small send waits behind one page of the
 * large one, not behind its backlog.
 */
async function measureFairSend(ctx, log) {
  const big = await emailTenant(ctx, 'Fair big tenant', FAIR_BIG_RECIPIENTS);
  const small = await emailTenant(ctx, 'Fair small tenant', FAIR_SMALL_RECIPIENTS);
  const alone = await (await sendNewCampaign(ctx, small, 'Alone')).until(25);
  const large = await sendNewCampaign(ctx, big, 'Large send');
  let inFlight = await large.read();
  while (inFlight.status === 'sending' && inFlight.counters.sent < 2_000) {
    await new Promise((r) => setTimeout(r, 100));
    inFlight = await large.read();
  }
  const behind = await (await sendNewCampaign(ctx, small, 'Behind')).until(25);
  const bigAtThen = (await large.read()).counters.sent;
  const largeDone = await large.until(500);
  const { sent, targeted } = largeDone.current.counters;
  log(
    `fair send: 10 recipients alone in ${alone.seconds.toFixed(2)} s, behind the large send (${inFlight.counters.sent} of ${targeted} sent at launch) in ${behind.seconds.toFixed(2)} s; the large send ${largeDone.current.status} in ${largeDone.seconds.toFixed(1)} s`,
  );
  return [
    '## Fair send: 10 recipients behind a 20,000 campaign',
    '',
    `Two workspaces on ${ctx.shard}: a small one sends an email campaign to ${FAIR_SMALL_RECIPIENTS} recipients, first with nothing else sending, then while a large one's campaign to ${targeted.toLocaleString('en-US')} recipients is under way (launched once ${inFlight.counters.sent.toLocaleString('en-US')} of those were sent), through the real local send Queue. Goal: the small send is done within a few seconds either way (it waits behind one page of the large send, never behind its backlog).`,
    '',
    `- The small send alone: ${alone.current.status} in **${alone.seconds.toFixed(2)} s** (${alone.current.counters.sent} sent)`,
    `- The small send behind the large one: ${behind.current.status} in **${behind.seconds.toFixed(2)} s** (${behind.current.counters.sent} sent); the large send had ${bigAtThen.toLocaleString('en-US')} sent when it was done`,
    `- The large send: ${largeDone.current.status}, ${sent.toLocaleString('en-US')} of ${targeted.toLocaleString('en-US')} sent in ${largeDone.seconds.toFixed(1)} s (${(sent / largeDone.seconds).toFixed(0)} recipients/s)`,
    '',
  ];
}
