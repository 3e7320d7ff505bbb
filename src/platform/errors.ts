import { DrizzleQueryError } from 'drizzle-orm';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { undeclaredBy } from './declared-errors';
import { ENVELOPE_SURFACE, surfaceOf, type Surface } from './error-surfaces';
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
 * The body shapes of the contract (README "Errors"): the framework shape
 * `{statusCode, message, error}` with an optional `error_code` and fields of its
 * own, the domain envelope `{error: {code, message}}`, and the feature gate's
 * `{message, error_code}`. Which one an error answers is its surface's
 * (`shapeOn`), never its catalogue's or its throw's.
 */
export type ErrorShape = 'framework' | 'domain' | 'feature-gate';

/**
 * What an entry is, for the shape rule: a module's own error (the default) answers its surface's
 * shape; a request-shape violation the framework shape, or `invalid_request` in the envelope where
 * the surface answers those so; `platform` (authentication, limits, the data layer) the framework
 * shape everywhere; the feature gate its own.
 */
export type ErrorKind = 'own' | 'request' | 'platform' | 'feature-gate';

/** A variant's message, or its message with its own status or meaning. */
type Variant = string | { readonly status?: ContentfulStatusCode; readonly message: string; readonly about?: string };

type SpecBase = {
  status: ContentfulStatusCode;
  /** `error_code` in the framework shape, `error.code` in the domain envelope: an own entry without one answers the framework shape everywhere. */
  code?: string;
  kind?: Exclude<ErrorKind, 'own'>;
  /** Framework shape: `message` is an array; a message that is one value alone takes an array of strings as is. */
  list?: true;
  /** Values the throw passes that the framework body carries as fields of their own (`merge_request_id`). */
  fields?: readonly string[];
  /** Headers every answer of this error carries. */
  headers?: Readonly<Record<string, string>>;
  /** What the answer means, for the document, where the message is a value alone (`'{problems}'`). */
  about?: string;
};

/**
 * One error as a catalogue declares it: one code, one status, and its message; a code the contract
 * answers with more than one message (per resource, per refusal) names each as a variant.
 */
export type ErrorSpec = SpecBase &
  (
    | {
        /** The text; `{name}` is a value the throw passes (`'Deal limit reached: your plan allows max_deals {cap}'`), `{{name}}` the text `{name}`. */
        message: string;
        variants?: never;
      }
    | { message?: never; variants: Readonly<Record<string, Variant>> }
  );

/** What documents and renders an entry (or one variant of it). */
export type ErrorDoc = {
  readonly status: ContentfulStatusCode;
  readonly kind: ErrorKind;
  readonly code?: string;
  readonly message: string;
  readonly list: boolean;
  readonly fields: readonly string[];
  readonly headers: readonly string[];
  readonly headerValues: Readonly<Record<string, string>>;
  readonly about?: string;
  /** `Catalogue.entry` or `Catalogue.entry.variant`, for messages about a declaration. */
  readonly declaredAs: string;
};

type Unescaped<M extends string> = M extends `${infer A}{{${string}}}${infer B}` ? `${A}${Unescaped<B>}` : M;
type Holes<M extends string> = M extends `${string}{${infer P}}${infer Rest}` ? P | Holes<Rest> : never;
type Placeholders<M extends string> = Holes<Unescaped<M>>;
type FieldNames<S> = S extends { fields: readonly (infer F extends string)[] } ? F : never;
type Scalar = string | number | undefined;
type Value<S> = S extends { list: true } ? Scalar | readonly string[] : Scalar;
type Params<S, M extends string> = { [K in Placeholders<M>]: Value<S> } & { [K in FieldNames<S>]: unknown };
type Args<P> = [keyof P] extends [never] ? [] : [params: P];
type VariantMessage<V> = V extends string ? V : V extends { message: infer M extends string } ? M : never;

/** A catalogue entry: called with its message's values, it makes the error to throw; it also documents itself. */
export type CatalogueEntry<S = ErrorSpec, M extends string = string> = ((...args: Args<Params<S, M>>) => ApiError) & ErrorDoc;

type EntryOf<S> = S extends { variants: infer V }
  ? { readonly [N in keyof V]: CatalogueEntry<S, VariantMessage<V[N]>> }
  : S extends { message: infer M extends string }
    ? CatalogueEntry<S, M>
    : never;

export type Catalogue<T extends Record<string, ErrorSpec>> = { readonly [K in keyof T]: EntryOf<T[K]> };

/** `{name}` is a value; `{{name}}` is the text `{name}` itself (a path template in a message). */
const PLACEHOLDER = /\{\{(\w+)\}\}|\{(\w+)\}/g;
export const fillTemplate = (template: string, value: (name: string) => string) =>
  template.replace(PLACEHOLDER, (_, literal: string | undefined, name: string) => (literal !== undefined ? `{${literal}}` : value(name)));
const fill = (template: string, values: Readonly<Record<string, unknown>>) => fillTemplate(template, (name) => String(values[name]));

/** The code a request-shape violation answers in the envelope, on the surfaces that answer those so. */
export const ENVELOPE_REQUEST_CODE = 'invalid_request';

/** The one rule (README "Errors"): the shape an entry answers on a surface, and the code it answers with. */
export function shapeOn(entry: ErrorDoc, surface: Surface): { shape: ErrorShape; code?: string } {
  if (entry.kind === 'feature-gate') return { shape: 'feature-gate', code: entry.code };
  if (entry.kind === 'request') return surface.requestShapeInEnvelope ? { shape: 'domain', code: ENVELOPE_REQUEST_CODE } : { shape: 'framework' };
  if (entry.kind === 'own' && surface.envelope && entry.code) return { shape: 'domain', code: entry.code };
  return { shape: 'framework', code: entry.code };
}

function messageOf(entry: ErrorDoc, values: Readonly<Record<string, unknown>>): string | string[] {
  const whole = entry.list ? /^\{(\w+)\}$/.exec(entry.message) : null;
  const listed = whole ? values[whole[1]] : undefined;
  if (Array.isArray(listed)) return [...(listed as string[])];
  return entry.list ? [fill(entry.message, values)] : fill(entry.message, values);
}

/**
 * Every deliberate non-2xx answer is an ApiError: the catalogue entry it was made by and the values
 * its throw passed. Its body is made for the surface it answers on (`bodyOn`), when it is answered.
 */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly headers: Record<string, string>;

  constructor(
    readonly entry: ErrorDoc,
    readonly values: Readonly<Record<string, unknown>> = {},
  ) {
    const message = messageOf(entry, values);
    super(typeof message === 'string' ? message : `HTTP ${entry.status}`);
    this.status = entry.status;
    this.headers = { ...entry.headerValues };
  }

  /** The body this error answers on `surface`. */
  bodyOn(surface: Surface): Record<string, unknown> {
    const message = messageOf(this.entry, this.values);
    const { shape, code } = shapeOn(this.entry, surface);
    if (shape === 'domain') return { error: { code, message: Array.isArray(message) ? message.join('; ') : message } };
    if (shape === 'feature-gate') return { message, error_code: code };
    const own = Object.fromEntries(this.entry.fields.map((name) => [name, this.values[name]]));
    return { statusCode: this.status, message, error: reasonPhrase(this.status), ...(code ? { error_code: code } : {}), ...own };
  }

  /** What a recorded failure of an envelope module's work (a bulk send, a delivery) keeps: its `error.code` there, else the status. */
  get code(): string {
    return (this.bodyOn(ENVELOPE_SURFACE).error as { code?: string } | undefined)?.code ?? String(this.status);
  }
}

function entryOf(name: string, spec: SpecBase, message: string, status: ContentfulStatusCode, about = spec.about) {
  const doc: ErrorDoc = {
    status,
    kind: spec.kind ?? 'own',
    ...(spec.code ? { code: spec.code } : {}),
    message,
    list: !!spec.list,
    fields: spec.fields ?? [],
    headers: Object.keys(spec.headers ?? {}),
    headerValues: { ...spec.headers },
    ...(about ? { about } : {}),
    declaredAs: name,
  };
  // The error carries the entry itself, so `err.entry === Catalogue.entry` names what was thrown.
  const entry: ErrorDoc = Object.assign((values: Record<string, unknown> = {}) => new ApiError(entry, values), doc);
  return entry;
}

/**
 * A module's error catalogue: each entry one code (or, without one, one message), its status and
 * its message template. A throw names an entry and passes the values its message names:
 *
 *   export const DealErrors = defineErrors('Deal', {
 *     invalidOwner: { status: 400, code: 'INVALID_DEAL_OWNER', message: 'owner_user_id must be an active agent of this workspace' },
 *   });
 *   throw DealErrors.invalidOwner();
 */
export function defineErrors<const T extends Record<string, ErrorSpec>>(catalogue: string, specs: T): Catalogue<T> {
  const entries: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(specs)) {
    if (spec.kind === 'feature-gate' && !spec.code) throw new Error(`${catalogue}.${name}: the feature gate's body needs a code`);
    if (spec.variants) {
      entries[name] = Object.fromEntries(
        Object.entries(spec.variants).map(([variant, v]) => {
          const own = typeof v === 'string' ? { message: v } : v;
          return [variant, entryOf(`${catalogue}.${name}.${variant}`, spec, own.message, own.status ?? spec.status, own.about)];
        }),
      );
    } else entries[name] = entryOf(`${catalogue}.${name}`, spec, spec.message, spec.status);
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
  const undeclared = api && (c.env as { UNDECLARED_ERRORS?: string } | undefined)?.UNDECLARED_ERRORS === 'fail' ? undeclaredBy(c, api.entry) : null;
  if (api && undeclared) {
    console.error(`undeclared error: ${undeclared} answered ${api.entry.declaredAs}, which its route's errors do not list`);
    return c.json({ statusCode: 500, message: `Undeclared error ${api.entry.declaredAs} from ${undeclared}`, error: reasonPhrase(500) }, 500);
  }
  if (api) {
    return c.json(api.bodyOn(surfaceOf(c.req.method, c.req.path)), api.status, api.headers);
  }
  if (err instanceof HTTPException) {
    const status = err.status as ContentfulStatusCode;
    return c.json({ statusCode: status, message: err.message || reasonPhrase(status), error: reasonPhrase(status) }, status);
  }
  const requestId = requestIdOf(c);
  console.error('unhandled error', c.req.method, c.req.path, `request_id=${requestId}`, err);
  return c.json({ statusCode: 500, message: 'Internal server error', error: reasonPhrase(500), request_id: requestId }, 500);
}
