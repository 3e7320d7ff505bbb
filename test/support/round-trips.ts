import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { countingEnv, type Counter } from '../../bench/counting-d1';
import { buildApp } from '../../src/app';
import { BRIEF_LEASES, makeWorkspace, type TestWorkspace } from './harness';

const app = buildApp();

/** Calls the app with D1 bindings that count round trips (the shards' in `roundTrips`, the control plane's in `control`); the counts are read when the response is ready. */
export async function counted(ws: TestWorkspace, method: string, path: string, body?: unknown) {
  const counter: Counter = { queries: 0, statements: 0 };
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`https://api.test${path}`, {
      method,
      headers: { authorization: `Bearer ${ws.key}`, 'cf-connecting-ip': ws.ip, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    countingEnv({ ...env, ...BRIEF_LEASES }, counter),
    ctx,
  );
  const { queries: roundTrips, statements } = counter;
  const control = counter.control ?? 0;
  const json = (await res.json()) as any;
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: json, roundTrips, statements, control };
}

/**
 * A workspace whose key is already looked up and cached (the first request of a key pays a
 * control-plane look-up that is not the route's), its per-key limit out of the way.
 */
export async function warmWorkspace(settings: Record<string, unknown> = {}) {
  const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 }, ...settings });
  const warm = await counted(ws, 'GET', '/v1/pipelines');
  if (warm.status !== 200) throw new Error(`warm-up -> ${warm.status}`);
  return ws;
}

let phoneCounter = 0;

/** A new contact of the workspace, with a phone of its own: its id. */
export async function contactOf(ws: TestWorkspace): Promise<string> {
  const res = await ws.api('POST', '/v1/contacts', { phone: `+1202554${String(1000 + (++phoneCounter % 9000)).padStart(4, '0')}` });
  if (res.status !== 201) throw new Error(`contact create -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}
