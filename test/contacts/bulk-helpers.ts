import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { buildApp } from '../../src/app';
import type { Bindings } from '../../src/env';
import { BRIEF_LEASES, type TestWorkspace } from '../support/harness';
import { heldQueue } from '../support/plans';
import { deliver } from '../support/send-queue';

const app = buildApp();

/** The test env (rate-limit leases brief, so a request's after-work ends soon) with the send and event queues held: what a handler enqueues waits in `sent` until `drain`. */
export function heldEnv(overrides: Partial<Record<keyof Bindings, unknown>> = {}) {
  const sends = heldQueue();
  const events = heldQueue();
  return {
    env: { ...(env as unknown as Bindings), ...BRIEF_LEASES, SEND_QUEUE: sends.queue, EVENTS_QUEUE: events.queue, ...overrides } as Bindings,
    sent: sends.bodies,
  };
}

/** A request to the app against `target` (a held env), the body sent as is. */
export async function callWith(
  target: Bindings,
  ws: TestWorkspace,
  method: string,
  path: string,
  body?: BodyInit,
  contentType = 'text/csv',
  headers: Record<string, string> = {},
) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`https://api.test${path}`, {
      method,
      headers: {
        authorization: `Bearer ${ws.key}`,
        'cf-connecting-ip': ws.ip,
        ...(body === undefined ? {} : { 'content-type': contentType }),
        ...headers,
      },
      body,
    }),
    target,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, headers: res.headers, body: (type.includes('json') ? await res.json() : await res.text()) as any };
}

export const upload = (target: Bindings, ws: TestWorkspace, csv: BodyInit, contentType = 'text/csv') =>
  callWith(target, ws, 'POST', '/v1/contact-imports', csv, contentType);

/** Hands the held send queue's messages to the consumer, ten at a time, until none is left. */
export async function drain(target: Bindings, sent: any[]): Promise<number> {
  let batches = 0;
  while (sent.length) {
    await deliver(target, sent, sent.splice(0, 10));
    batches++;
  }
  return batches;
}
