import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export const reasonPhrase = (status: number): string => REASONS[status] ?? 'Error';

/**
 * Every deliberate non-2xx answer is an ApiError carrying its exact body. The
 * API has two body shapes; the constructors below are the only ways to build one.
 */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.message === 'string' ? body.message : `HTTP ${status}`);
  }

  /** The domain envelope's `error.code`, else the status: what a recorded failure (a campaign recipient, a delivery) keeps. */
  get code(): string {
    return (this.body.error as { code?: string } | undefined)?.code ?? String(this.status);
  }
}

/** Framework shape: `{statusCode, message, error}` plus optional `error_code` and extra fields. */
export function httpError(
  status: ContentfulStatusCode,
  message: string | string[],
  extra: Record<string, unknown> = {},
): ApiError {
  return new ApiError(status, { statusCode: status, message, error: reasonPhrase(status), ...extra });
}

/** Framework shape with an `error_code` (deals, payments, orders, bookings, contacts). */
export function codedError(
  status: ContentfulStatusCode,
  errorCode: string,
  message: string,
  extra: Record<string, unknown> = {},
): ApiError {
  return httpError(status, message, { error_code: errorCode, ...extra });
}

/** Domain envelope: `{error: {code, message}}`. */
export function domainError(status: ContentfulStatusCode, code: string, message: string): ApiError {
  return new ApiError(status, { error: { code, message } });
}

export const notFound = (message: string) => httpError(404, message);
export const badRequest = (message: string | string[]) => httpError(400, message);

export function renderError(err: unknown, c: Context): Response {
  if (err instanceof ApiError) {
    return c.json(err.body, err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return c.json({ statusCode: status, message: err.message || reasonPhrase(status), error: reasonPhrase(status) }, status);
  }
  console.error('unhandled error', c.req.method, c.req.path, err);
  return c.json({ statusCode: 500, message: 'Internal server error', error: reasonPhrase(500) }, 500);
}
