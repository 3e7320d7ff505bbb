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
  return { base, admin, workspaceId: ws.id, key };
}

export function scenarios(ctx) {
  return [
    { name: 'floor: one indexed SELECT', auth: false, request: () => ({ method: 'GET', path: `/bench/floor/select?id=${ctx.workspaceId}` }) },
    { name: 'floor: one INSERT', auth: false, request: () => ({ method: 'POST', path: '/bench/floor/insert' }) },
    { name: 'GET /v1/pipelines', floor: 'floor: one indexed SELECT', expected: 2, request: () => ({ method: 'GET', path: '/v1/pipelines' }) },
  ];
}
