import type { MiddlewareHandler } from 'hono';
import type { AdminEnv } from '../env';
import { invalidateKeyCache } from '../platform/key-cache';
import { SharedErrors } from '../platform/shared-errors';
import { AdminErrors } from './errors';
import { failedOperatorTokens } from '../platform/failed-auth';

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/**
 * `/admin/v1` is invisible (404) without ADMIN_TOKEN, and 401 on a wrong token (constant-time
 * compare). Wrong tokens are counted per source IP (src/platform/failed-auth.ts): once an IP
 * spent its budget, every call from it answers 429, the right token too, so the answer tells
 * nothing about a guess. Successful calls are not limited; each asks the counter (one call)
 * whether failures spent the budget.
 */
export const requireAdmin: MiddlewareHandler<AdminEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected) throw SharedErrors.unknownRoute({ method: c.req.method, path: c.req.path });
  const ip = c.req.header('cf-connecting-ip') ?? 'unknown';
  const spent = failedOperatorTokens.known(ip);
  if (spent) throw spent;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
  const [a, b] = await Promise.all([digest(match?.[1] ?? ''), digest(expected)]);
  if (!match) throw AdminErrors.invalidToken();
  if (!crypto.subtle.timingSafeEqual(a, b)) throw (await failedOperatorTokens.fail(c.env, ip)) ?? AdminErrors.invalidToken();
  const refused = await failedOperatorTokens.admit(c.env, ip);
  if (refused) throw refused;
  try {
    await next();
  } finally {
    // Plans, keys and limits change only through here: cached key look-ups must not outlive them.
    if (c.req.method !== 'GET')
      await invalidateKeyCache().catch((err) => console.error('operator write: the location key cache was not invalidated', err));
  }
};
