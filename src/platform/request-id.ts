import type { Context, MiddlewareHandler } from 'hono';
import { uuidv7 } from './ids';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** The request's id: set by `requestIds` before anything else runs; an answer made outside that chain mints one. */
export function requestIdOf(c: Context): string {
  const known = c.get('requestId') as string | undefined;
  if (known) return known;
  const id = uuidv7();
  c.set('requestId', id);
  return id;
}

/**
 * A fresh UUIDv7 per request, on every answer as `X-Request-Id` (errors and
 * pages included): the request log and an unexpected error's log line carry it,
 * so a client quoting it finds its request.
 */
export const requestIds: MiddlewareHandler = async (c, next) => {
  const id = requestIdOf(c);
  await next();
  c.res.headers.set(REQUEST_ID_HEADER, id);
};
