import type { Context, MiddlewareHandler } from 'hono';
import type { HitResult } from '../durable-objects/rate-limiter';
import type { Bindings } from '../env';
import { DEFAULT_RATE_LIMITS, type Workspace } from './workspace';
import { hit, limitVar, WINDOW_MS } from './rate-limit';
import type { ApiError } from './errors';
import { SharedErrors } from './shared-errors';
import { surfaceOf } from './error-surfaces';

/*
 * Limits on the unauthenticated form posts of the hosted pages. Each family of
 * public POST routes has a budget per source IP and minute
 * (RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE, default 10; unsubscribing
 * RATE_LIMIT_UNSUBSCRIBE_PER_IP_PER_MINUTE, default 600), and bookings one per
 * workspace and hour (`rate_limits.bookings_per_hour`, default 100): a booking
 * mails an address of the caller's choosing from the workspace's sender. A
 * request is counted (the limiter's `hit`) before any work, so a refused one
 * writes and sends nothing.
 */

export type PublicFamily = 'booking' | 'booking-manage' | 'pay' | 'unsubscribe';

const HOUR_MS = 3_600_000;
/** What a refusal for an unreachable limiter asks the caller to wait, in seconds. */
const UNAVAILABLE_RETRY_S = 30;

/**
 * Families refused (503) while the limiter cannot be reached. A booking fails closed: it
 * sends mail to an address of the caller's choosing, so admitting it uncounted would reopen
 * the relay exactly when nothing counts, and it already needs the slot-lock Durable Objects,
 * so an outage that stops the limiter stops booking anyway. The others fail open, like the
 * API's limits: they mail no address of the caller's choosing, act only on unguessable
 * tokens, and an unsubscribe must keep working.
 */
const FAILS_CLOSED: ReadonlySet<PublicFamily> = new Set(['booking']);

export type Refusal = { status: 429 | 503; retryAfter: number; error: ApiError };

/**
 * A family's budget per source IP and minute. Unsubscribing is generous (600): mailbox providers
 * post one-click unsubscribes (RFC 8058) from a few shared addresses, a refused one would keep
 * mailing a person who asked to stop, and it only ever removes mail on an unguessable token.
 */
export const publicIpLimit = (env: Bindings, family: PublicFamily) =>
  family === 'unsubscribe' ? limitVar(env.RATE_LIMIT_UNSUBSCRIBE_PER_IP_PER_MINUTE, 600) : limitVar(env.RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE, 10);

function judge(counted: HitResult | null, limit: number, failsClosed: boolean, per: string, now = Date.now()): Refusal | null {
  if (!counted)
    return failsClosed
      ? { status: 503, retryAfter: UNAVAILABLE_RETRY_S, error: SharedErrors.limiterUnavailable({ seconds: UNAVAILABLE_RETRY_S }) }
      : null;
  if (counted.count <= limit) return null;
  const retryAfter = Math.max(1, Math.ceil((counted.resetAt - now) / 1000));
  return { status: 429, retryAfter, error: SharedErrors.rateLimited({ limit, per, seconds: retryAfter }) };
}

/** Counts a public form post against its source IP's budget for the family; over it, the request is answered here. */
export const limitPublicPost =
  (family: PublicFamily): MiddlewareHandler<{ Bindings: Bindings }> =>
  async (c, next) => {
    const ip = c.req.header('cf-connecting-ip') ?? 'unknown';
    const counted = await hit(c.env, `public-ip:${ip}:${family}`, WINDOW_MS);
    const refusal = judge(counted, publicIpLimit(c.env, family), FAILS_CLOSED.has(family), 'requests per minute per source IP');
    if (refusal) return refuse(c, refusal);
    await next();
  };

/** Counts a booking about to be made through the hosted page or its embed against the workspace's hourly budget (fails closed, see FAILS_CLOSED). */
export async function countPublicBooking(env: Bindings, ws: Workspace): Promise<Refusal | null> {
  const limit = ws.rateLimits.bookings_per_hour ?? DEFAULT_RATE_LIMITS.bookings_per_hour;
  return judge(await hit(env, `bookings:${ws.id}`, HOUR_MS), limit, true, 'bookings per hour for this workspace');
}

const sentJson = (c: Context) => /^application\/(?:[\w.-]+\+)?json\b/i.test(c.req.header('content-type') ?? '');

const wait = (seconds: number) => (seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`);

/**
 * The refusal as the hosted pages answer errors: a small HTML page for the page's form post,
 * the framework-shape JSON error when JSON was sent; `Retry-After` on both.
 */
export function refuse(c: Context, refusal: Refusal): Response {
  c.header('Retry-After', String(refusal.retryAfter));
  c.header('Cache-Control', 'no-store');
  if (sentJson(c)) return c.json(refusal.error.bodyOn(surfaceOf(c.req.method, c.req.path)), refusal.status);
  c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'");
  const title = refusal.status === 429 ? 'Too many requests' : 'Temporarily unavailable';
  return c.html(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1f2933}</style></head><body><main><h1>${title}</h1><p>Please wait ${wait(refusal.retryAfter)}, then try again.</p></main></body></html>`,
    refusal.status,
  );
}
