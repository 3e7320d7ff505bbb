import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { buildApp } from '../../src/app';
import { BRIEF_LEASES } from './harness';

const app = buildApp();

export type PageAnswer = { status: number; headers: Headers; body: string; json: any };

/**
 * A post to a hosted page from `ip`, redirects answered rather than followed: a browser's form
 * post (`fields`), or JSON (`json`). `vars` run the Worker with other environment values (a
 * limit, a broken limiter binding); the work it hands to `waitUntil` is waited for.
 */
export async function publicPost(
  path: string,
  opts: { ip: string; fields?: Record<string, string>; json?: unknown; vars?: Record<string, unknown> },
): Promise<PageAnswer> {
  const headers: Record<string, string> = { 'cf-connecting-ip': opts.ip };
  let body: string;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(opts.fields ?? {}).toString();
  }
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`https://api.test${path}`, { method: 'POST', headers, body, redirect: 'manual' }),
    { ...env, ...BRIEF_LEASES, ...opts.vars },
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  let json: any = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* an HTML page */
  }
  return { status: res.status, headers: res.headers, body: text, json };
}

/** A RATE_LIMITER binding that cannot be reached. */
export const unreachableLimiter = {
  idFromName: () => {
    throw new Error('limiter unreachable');
  },
  get: () => {
    throw new Error('limiter unreachable');
  },
};
