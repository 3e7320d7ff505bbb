import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { countingEnv, type Counter } from '../../bench/counting-d1';
import { buildApp } from '../../src/app';
import type { TestWorkspace } from './harness';

const app = buildApp();

/** Calls the app with a D1 binding that counts round trips; the count is read when the response is ready. */
export async function counted(ws: TestWorkspace, method: string, path: string, body?: unknown) {
  const counter: Counter = { queries: 0, statements: 0 };
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`https://api.test${path}`, {
      method,
      headers: { authorization: `Bearer ${ws.key}`, 'cf-connecting-ip': ws.ip, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
    countingEnv(env, counter),
    ctx,
  );
  const { queries: roundTrips, statements } = counter;
  const json = (await res.json()) as any;
  await waitOnExecutionContext(ctx);
  return { status: res.status, body: json, roundTrips, statements };
}
