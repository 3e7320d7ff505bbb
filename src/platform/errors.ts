import { DrizzleQueryError } from 'drizzle-orm';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { requestIdOf } from './request-id';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  410: 'Gone',
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
 * Every deliberate non-2xx answer is an ApiError carrying its exact body, made by
 * an entry of an error catalogue (`defineErrors`).
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

/**
 * The body shapes of the contract (README "Errors"): the framework shape
 * `{statusCode, message, error}` with an optional `error_code` and fields of its
 * own, the domain envelope `{error: {code, message}}`, and the feature gate's
 * `{message, error_code}`.
 */
export type ErrorShape = 'framework' | 'domain' | 'feature-gate';

/** One error as a catalogue declares it. */
export type ErrorSpec = {
  status: ContentfulStatusCode;
  /** The text; `{name}` is a value the throw passes (`'Deal limit reached: your plan allows max_deals {cap}'`), `{{name}}` the text `{name}`. */
  message: string;
  /** `error_code` in the framework shape, `error.code` in the domain envelope (required there). */
  code?: string;
  /** The framework shape whatever the catalogue's: request-shape violations and plan limits answer it on every router (README "Errors"). */
  alwaysFramework?: true;
  /** Framework shape: `message` is an array; a message that is one value alone takes an array of strings as is. */
  list?: true;
  /** Values the throw passes that the framework body carries as fields of their own (`merge_request_id`). */
  fields?: readonly string[];
  /** Headers every answer of this error carries. */
  headers?: Readonly<Record<string, string>>;
  /** What the answer means, for the document, where the message is a value alone (`'{problems}'`). */
  about?: string;
};

/** What documents an entry: `errorResponses` builds a route's error answers from these. */
export type ErrorDoc = {
  readonly status: ContentfulStatusCode;
  readonly shape: ErrorShape;
  readonly code?: string;
  readonly message: string;
  readonly fields: readonly string[];
  readonly headers: readonly string[];
  readonly about?: string;
};

type Unescaped<M extends string> = M extends `${infer A}{{${string}}}${infer B}` ? `${A}${Unescaped<B>}` : M;
type Holes<M extends string> = M extends `${string}{${infer P}}${infer Rest}` ? P | Holes<Rest> : never;
type Placeholders<M extends string> = Holes<Unescaped<M>>;
type FieldNames<S> = S extends { fields: readonly (infer F extends string)[] } ? F : never;
type Scalar = string | number | undefined;
type Value<S> = S extends { list: true } ? Scalar | readonly string[] : Scalar;
type Params<S extends ErrorSpec> = { [K in Placeholders<S['message']>]: Value<S> } & { [K in FieldNames<S>]: unknown };
type Args<P> = [keyof P] extends [never] ? [] : [params: P];

/** A catalogue entry: called with its message's values, it makes the error to throw; it also documents itself. */
export type CatalogueEntry<S extends ErrorSpec = ErrorSpec> = ((...args: Args<Params<S>>) => ApiError) & ErrorDoc;

export type Catalogue<T extends Record<string, ErrorSpec>> = { readonly [K in keyof T]: CatalogueEntry<T[K]> };

/** `{name}` is a value; `{{name}}` is the text `{name}` itself (a path template in a message). */
const PLACEHOLDER = /\{\{(\w+)\}\}|\{(\w+)\}/g;
export const fillTemplate = (template: string, value: (name: string) => string) =>
  template.replace(PLACEHOLDER, (_, literal: string | undefined, name: string) => (literal !== undefined ? `{${literal}}` : value(name)));
const fill = (template: string, values: Record<string, unknown>) => fillTemplate(template, (name) => String(values[name]));

function body(shape: ErrorShape, spec: ErrorSpec, values: Record<string, unknown>): Record<string, unknown> {
  const whole = spec.list ? /^\{(\w+)\}$/.exec(spec.message) : null;
  const listed = whole ? values[whole[1]] : undefined;
  const message = Array.isArray(listed) ? [...(listed as string[])] : spec.list ? [fill(spec.message, values)] : fill(spec.message, values);
  if (shape === 'domain') return { error: { code: spec.code, message } };
  if (shape === 'feature-gate') return { message, error_code: spec.code };
  const own = Object.fromEntries((spec.fields ?? []).map((name) => [name, values[name]]));
  return { statusCode: spec.status, message, error: reasonPhrase(spec.status), ...(spec.code ? { error_code: spec.code } : {}), ...own };
}

/**
 * A module's (or a router's) error catalogue. The shape is the catalogue's, so a
 * throw names an entry and never picks a shape; an `alwaysFramework` entry answers
 * the framework shape, as request-shape violations and plan limits do on every router.
 *
 *   export const DealErrors = defineErrors('framework', {
 *     notFound: { status: 404, message: 'Deal not found' },
 *     limitReached: { status: 403, code: 'PLAN_LIMIT_EXCEEDED', message: 'Deal limit reached: your plan allows max_deals {cap}' },
 *   });
 *   throw DealErrors.limitReached({ cap });
 */
export function defineErrors<const T extends Record<string, ErrorSpec>>(shape: ErrorShape, specs: T): Catalogue<T> {
  const entries: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const own: ErrorShape = spec.alwaysFramework ? 'framework' : shape;
    if (own !== 'framework' && !spec.code) throw new Error(`${name}: a ${own} error needs a code`);
    if (own !== 'framework' && (spec.list || spec.fields)) throw new Error(`${name}: only the framework shape has list messages and fields`);
    const make = (values: Record<string, unknown> = {}) => new ApiError(spec.status, body(own, spec, values), { ...spec.headers });
    const doc: ErrorDoc = {
      status: spec.status,
      shape: own,
      ...(spec.code ? { code: spec.code } : {}),
      message: spec.message,
      fields: spec.fields ?? [],
      headers: Object.keys(spec.headers ?? {}),
      ...(spec.about ? { about: spec.about } : {}),
    };
    entries[name] = Object.assign(make, doc);
  }
  return entries as Catalogue<T>;
}

/**
 * The ApiError `err` is, or the one a statement threw as drizzle reports it (its query error wraps
 * whatever a statement's run threw: a write refused by what it carries, ./d1/carried.ts); else null.
 */
export const apiErrorOf = (err: unknown): ApiError | null =>
  err instanceof ApiError ? err : err instanceof DrizzleQueryError && err.cause instanceof ApiError ? err.cause : null;

/** An unexpected error: logged with the request id, answered 500 with it and nothing of the cause. */
export function renderError(err: unknown, c: Context): Response {
  const api = apiErrorOf(err);
  if (api) {
    return c.json(api.body, api.status, api.headers);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return c.json({ statusCode: status, message: err.message || reasonPhrase(status), error: reasonPhrase(status) }, status);
  }
  const requestId = requestIdOf(c);
  console.error('unhandled error', c.req.method, c.req.path, `request_id=${requestId}`, err);
  return c.json({ statusCode: 500, message: 'Internal server error', error: reasonPhrase(500), request_id: requestId }, 500);
}
