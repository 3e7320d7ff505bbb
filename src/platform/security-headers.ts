import type { MiddlewareHandler } from 'hono';

/** Whether a Content-Security-Policy lets other sites frame the page (a `frame-ancestors` other than `'none'`). */
const framingAllowed = (csp: string | null) => {
  const directive = csp?.split(';').find((d) => d.trim().toLowerCase().startsWith('frame-ancestors'));
  return directive !== undefined && directive.trim().toLowerCase() !== "frame-ancestors 'none'";
};

/**
 * Headers on every answer. `nosniff`: a browser takes a body as its declared
 * type only, so an answer echoing input is never run as a script or read as a
 * page. `X-Frame-Options: DENY`: no answer can be framed to trick a click on
 * its buttons, except a page whose own policy names who may frame it (the
 * embeddable booking page); browsers that read `frame-ancestors` follow it
 * either way, older ones only this header.
 */
export const securityHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set('X-Content-Type-Options', 'nosniff');
  if (!framingAllowed(c.res.headers.get('content-security-policy'))) c.res.headers.set('X-Frame-Options', 'DENY');
};
