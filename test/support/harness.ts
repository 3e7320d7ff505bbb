import { env, exports } from 'cloudflare:workers';
import { expect } from 'vitest';

export const ADMIN_TOKEN = 'test-admin-token';
const BASE = 'https://api.test';

/**
 * Environment values for requests whose background work a test waits for
 * (waitOnExecutionContext): their rate-limit leases go back after 50 ms instead of 2 s,
 * so the wait does not last a lease's spending time.
 */
export const BRIEF_LEASES = { RATE_LIMIT_LEASE_MS: '50' } as const;

/** False when the suite runs as fresh instances would serve it (`INSTANCE_CACHES=off`): what only an instance's memory spares is not asserted then. */
export const instanceCachesOn = (env as unknown as { INSTANCE_CACHES?: string }).INSTANCE_CACHES !== 'off';

export type ApiResponse<T = any> = { status: number; body: T; headers: Headers };

let ipCounter = 0;
/** Each harness caller gets its own source IP so the per-IP limit of one test never touches another. */
export const freshIp = () => `198.51.${Math.floor(++ipCounter / 250) % 250}.${(ipCounter % 250) + 1}`;

export async function call<T = any>(
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string>; ip?: string } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.ip) headers['cf-connecting-ip'] = opts.ip;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await (exports as any).default.fetch(new Request(`${BASE}${path}`, { method, headers, body }));
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

export function admin<T = any>(method: string, path: string, body?: unknown) {
  return call<T>(method, `/admin/v1${path}`, { key: ADMIN_TOKEN, body });
}

export async function adminOk<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await admin<T>(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The data databases of the test run (wrangler.toml): suites that walk the route table spread their workspaces over both. */
export const SHARDS = ['SHARD_0', 'SHARD_1'] as const;
export const shardFor = (i: number) => SHARDS[i % SHARDS.length];
let placed = 0;

export type TestWorkspace = {
  id: string;
  key: string;
  keyId: string;
  ip: string;
  api: <T = any>(
    method: string,
    path: string,
    body?: unknown,
    extra?: { headers?: Record<string, string>; rawBody?: string },
  ) => Promise<ApiResponse<T>>;
};

/**
 * A fresh workspace with an API key (and by default a default pipeline), isolated by its own source IP.
 * `bulk`: for suites that drive every route of the table from one workspace, far beyond one client's
 * minute of traffic: the per-key limit is lifted and each call comes from a fresh source IP.
 */
export async function makeWorkspace(
  settings: Record<string, unknown> = {},
  opts: { pipeline?: boolean; bulk?: boolean } = {},
): Promise<TestWorkspace> {
  const lifted = opts.bulk ? { rate_limits: { per_key_per_minute: 1_000_000 } } : {};
  // In turn over the shards, so a file's workspaces land alike in every run (unplaced ones are drawn at random).
  const shard = shardFor(placed++);
  const ws = await adminOk('POST', '/workspaces', { name: `ws-${crypto.randomUUID().slice(0, 8)}`, shard, ...lifted, ...settings });
  const key = await adminOk('POST', `/workspaces/${ws.id}/api-keys`, { name: 'test key' });
  if (opts.pipeline !== false) {
    await adminOk('POST', `/workspaces/${ws.id}/pipelines`, {
      name: 'Sales',
      is_default: true,
      stages: [{ name: 'New' }, { name: 'Qualified' }, { name: 'Won' }],
    });
  }
  const ip = freshIp();
  return {
    id: ws.id,
    key: key.key,
    keyId: key.id,
    ip,
    api: (method, path, body, extra = {}) => call(method, path, { key: key.key, body, ip: opts.bulk ? freshIp() : ip, ...extra }),
  };
}

/**
 * Polls until `check` passes: for effects written after the response (waitUntil, queue). The bound
 * only ends a wait for something that never comes: a busy machine is slow, not wrong.
 */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > deadline) {
      expect.fail(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    }
    await new Promise((r) => setTimeout(r, 25));
    value = await read();
  }
  return value;
}

export const uuidRe = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
