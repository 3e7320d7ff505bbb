// What the benchmark seeds and measures. Each scenario: name, request(i), the
// expected D1 round trips, and the floor its p50 is compared with.

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

export async function seed({ base, adminToken, log }) {
  const admin = (method, path, body) => call(base, adminToken, method, path, body);
  await fetch(`${base}/bench/setup`);
  const ws = await admin('POST', '/admin/v1/workspaces', { name: 'Bench', rate_limits: { per_key_per_minute: 1_000_000, emails_per_minute: 1_000_000 } });
  await admin('POST', `/admin/v1/workspaces/${ws.id}/pipelines`, { name: 'Sales', is_default: true, stages: [{ name: 'New' }, { name: 'Won' }] });
  const key = (await admin('POST', `/admin/v1/workspaces/${ws.id}/api-keys`, { name: 'bench' })).key;
  log(`seeded workspace ${ws.id}`);
  const ctx = { base, admin, workspaceId: ws.id, key };
  ctx.extraMeasurements = () => measureWebhookThroughput(ctx, log);
  return ctx;
}

export function scenarios(ctx) {
  return [
    { name: 'floor: one indexed SELECT', auth: false, request: () => ({ method: 'GET', path: `/bench/floor/select?id=${ctx.workspaceId}` }) },
    { name: 'floor: one INSERT', auth: false, request: () => ({ method: 'POST', path: '/bench/floor/insert' }) },
    { name: 'GET /v1/pipelines', floor: 'floor: one indexed SELECT', expected: 1, request: () => ({ method: 'GET', path: '/v1/pipelines' }) },
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
  log(`webhook deliveries: ${seen.size}/${count} in ${seconds.toFixed(1)} s (${rate.toFixed(0)}/s)`);
  return [
    '## Webhook delivery throughput',
    '',
    `${count} events published at once to one endpoint on a local receiver: ${seen.size} delivered (signed, one POST each) in ${seconds.toFixed(1)} s, **${rate.toFixed(0)} deliveries/s**, through the real local Queue (batches of up to 25 messages, 1 s batch timeout).`,
    '',
    'Emitting an event adds no D1 round trip to the write path: the outbox row is one more statement in the batch that makes the change, and the fan-out to the queue runs after the response (`waitUntil`).',
  ];
}
