import type { MiddlewareHandler } from 'hono';
import type { AdminEnv } from '../env';
import { invalidateKeyCache } from '../platform/auth';
import { httpError } from '../platform/errors';

async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

/** `/admin/v1` is invisible (404) without ADMIN_TOKEN, and 401 on a wrong token (constant-time compare). */
export const requireAdmin: MiddlewareHandler<AdminEnv> = async (c, next) => {
  const expected = c.env.ADMIN_TOKEN;
  if (!expected) throw httpError(404, `Cannot ${c.req.method} ${c.req.path}`);
  const match = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '');
  const [a, b] = await Promise.all([digest(match?.[1] ?? ''), digest(expected)]);
  if (!match || !crypto.subtle.timingSafeEqual(a, b)) throw httpError(401, 'Invalid operator token');
  try {
    await next();
  } finally {
    // Plans, keys and limits change only through here: cached key look-ups must not outlive them.
    if (c.req.method !== 'GET') invalidateKeyCache();
  }
};
