import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env';
import { httpError } from './errors';

/**
 * Server-to-server only: no response ever carries Access-Control-Allow-Origin,
 * so browsers block cross-origin reads, and preflights are refused outright.
 */
export const serverToServerOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === 'OPTIONS') {
    throw httpError(403, 'Cross-origin requests are not allowed: this API is for server-to-server use');
  }
  await next();
  c.res.headers.delete('access-control-allow-origin');
};
