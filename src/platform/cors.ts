import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env';
import { SharedErrors } from './shared-errors';

/**
 * Server-to-server only: no response ever carries Access-Control-Allow-Origin,
 * so browsers block cross-origin reads, and preflights are refused outright.
 */
export const serverToServerOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method === 'OPTIONS') {
    throw SharedErrors.crossOrigin();
  }
  await next();
  c.res.headers.delete('access-control-allow-origin');
};
