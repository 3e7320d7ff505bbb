import { expect } from 'vitest';
import { exports } from 'cloudflare:workers';
import { BRIEF_LEASES, freshIp, type TestWorkspace } from '../support/harness';
import { rowsIn } from '../support/db';

let phoneCounter = 0;
export const freshPhone = () => `+1303557${String(1000 + (++phoneCounter % 9000)).padStart(4, '0')}`;

export async function mint(ws: TestWorkspace, body: Record<string, unknown> = {}) {
  const res = await ws.api('POST', '/v1/payment-requests', { amount: 25, phone: freshPhone(), ...body });
  if (res.status !== 201) throw new Error(`payment request create -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The path part of a pay link (`/pay/<token>`), to call through the harness. */
export const payPath = (payUrl: string) => new URL(payUrl).pathname;

/** A browser-like request to the public pages: redirects are answered, not followed; a post comes from an IP of its own (the pay page's per-IP limit stays out of the way). */
export async function page(method: 'GET' | 'POST', payUrl: string) {
  const res: Response = await (exports as any).default.fetch(
    new Request(`https://api.test${payPath(payUrl)}`, {
      method,
      redirect: 'manual',
      ...(method === 'POST' ? { body: '', headers: { 'content-type': 'application/x-www-form-urlencoded', 'cf-connecting-ip': freshIp() } } : {}),
    }),
  );
  return { status: res.status, body: await res.text(), headers: res.headers };
}

export const openPage = (payUrl: string) => page('GET', payUrl);
export const pressPay = (payUrl: string) => page('POST', payUrl);

/** Moves a link's expiry into the past (the API only accepts future instants). */
export async function backdate(workspaceId: string, id: string, ms = 60_000) {
  await rowsIn(workspaceId, 'UPDATE payment_requests SET expires_at = ?2 WHERE id = ?1 RETURNING id', id, new Date(Date.now() - ms).toISOString());
}

export const expectStatus = (res: { status: number; body: any }, status: number) => expect(res.status, JSON.stringify(res.body)).toBe(status);

/** The workspace's payment-request events in the outbox, oldest first. */
export async function requestEvents(workspaceId: string, id?: string) {
  const rows = await rowsIn<{ type: string; data: string }>(
    workspaceId,
    "SELECT type, data FROM event_outbox WHERE workspace_id = ?1 AND type LIKE 'payment_request.%' ORDER BY created_at, id",
    workspaceId,
  );
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.data) })).filter((e) => id === undefined || e.data.payment_request_id === id);
}

/** Calls a fresh app with extra environment values (another payment provider, its secrets), as the Worker would run with them. */
export function appWith(overrides: Record<string, string>) {
  return async (method: string, path: string, opts: { key?: string; ip?: string; body?: string; headers?: Record<string, string> } = {}) => {
    const { createExecutionContext, waitOnExecutionContext } = await import('cloudflare:test');
    const { env: base } = await import('cloudflare:workers');
    const { buildApp } = await import('../../src/app');
    const ctx = createExecutionContext();
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key) headers.authorization = `Bearer ${opts.key}`;
    if (opts.ip) headers['cf-connecting-ip'] = opts.ip;
    const res = await buildApp().fetch(
      new Request(`https://api.test${path}`, { method, headers, body: opts.body, redirect: 'manual' }),
      { ...base, ...BRIEF_LEASES, ...overrides },
      ctx,
    );
    const text = await res.text();
    await waitOnExecutionContext(ctx);
    let body: any = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* HTML */
    }
    return { status: res.status, body, headers: res.headers };
  };
}
