import type { MiddlewareHandler } from 'hono';
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { declaring } from './declared-errors';
import { surfaceOf, type Surface } from './error-surfaces';
import { fillTemplate, shapeOn, type ErrorDoc, type ErrorShape } from './errors';
import { REQUEST_ID_HEADER } from './request-id';
import { SharedErrors } from './shared-errors';
import { bodyKeyCheck, KEY_NOT_IN_HEADER } from './validation';

export const FrameworkError = z
  .object({
    statusCode: z.number().int(),
    message: z.union([z.string(), z.array(z.string())]),
    error: z.string(),
    error_code: z.string().optional(),
  })
  .passthrough()
  .openapi('FrameworkError', { description: 'Framework shape; `message` is a string or per-field strings' });

export const DomainError = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .openapi('DomainError', { description: 'Domain envelope; key on `error.code`' });

export const FeatureGateError = z.object({ message: z.string(), error_code: z.literal('FEATURE_NOT_INCLUDED_IN_PLAN') }).openapi('FeatureGateError');

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failure, unknown body property, non-UUID path id or malformed query',
  401: '`Missing API key` or `Invalid API key`; an `Authorization` header without the `Bearer` scheme (`wsk_...` alone, `Basic ...`) answers `Missing API key` with `WWW-Authenticate` naming the scheme',
  403: 'Plan without API access, or the plan lacks the feature (`FEATURE_NOT_INCLUDED_IN_PLAN`)',
  413: 'Request body too large',
  415: 'Body is not JSON',
  429: 'Rate limit exceeded; see `Retry-After`',
};

const SCHEMAS: Record<ErrorShape, z.ZodTypeAny> = { framework: FrameworkError, domain: DomainError, 'feature-gate': FeatureGateError };

/** Text in a code span; one holding a backtick is fenced with two. */
const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``);

/** An entry as one surface answers it: the shape and code `shapeOn` gives it there. */
export type DocumentedError = ErrorDoc & { readonly shape: ErrorShape };

/** What a request-shape violation answered in the envelope says, whichever violation it was. */
const ENVELOPE_REQUEST_ABOUT = 'a request-shape violation (a non-UUID id, malformed paging, the body), its problems joined by `; `';

/** The entries as `surface` answers them. */
export function documentedOn(surface: Surface, errors: readonly ErrorDoc[]): DocumentedError[] {
  return errors.map((entry) => {
    const { shape, code } = shapeOn(entry, surface);
    const { code: _declared, ...rest } = entry;
    const envelopeRequest = entry.kind === 'request' && shape === 'domain';
    return { ...rest, ...(code ? { code } : {}), ...(envelopeRequest ? { about: ENVELOPE_REQUEST_ABOUT } : {}), shape };
  });
}

/** An entry as the document lists it: its code and its message (a value the throw passes shown as `<name>`), or what it means. */
function describeError(entry: DocumentedError): string {
  const message = entry.about ?? code(fillTemplate(entry.message, (name) => `<${name}>`));
  let text = entry.code ? `${code(entry.code)}: ${message}` : message;
  if (entry.fields.length) text += ` (with ${entry.fields.map(code).join(', ')})`;
  if (entry.headers.length) text += ` (see ${entry.headers.map(code).join(', ')})`;
  return text;
}

const SHAPE_NAMES: Record<ErrorShape, string> = { framework: 'Framework shape', domain: 'Domain envelope', 'feature-gate': 'Framework shape' };

/**
 * A status's description: the standard text and the entries, joined; where the
 * status answers both the framework shape and the domain envelope, grouped by shape.
 */
function describeStatus(base: string | undefined, entries: readonly DocumentedError[]): string {
  const shapes = new Set([...(base ? [SHAPE_NAMES.framework] : []), ...entries.map((e) => SHAPE_NAMES[e.shape])]);
  if (shapes.size < 2) {
    const own = entries.map(describeError).join('; ');
    return base ? (own ? `${base}; or ${own}` : base) : own;
  }
  const groups = [...shapes].map((name) => {
    const texts = [
      ...(base && name === SHAPE_NAMES.framework ? [base] : []),
      ...entries.filter((e) => SHAPE_NAMES[e.shape] === name).map(describeError),
    ];
    return `${name}: ${texts.join('; ')}.`;
  });
  return groups.join(' ');
}

type ErrorResponse = { description: string; headers: Record<string, unknown>; content: Record<string, { schema: z.ZodTypeAny }> };

/**
 * A route's error answers, built from the catalogue entries it can answer: each
 * status with its body schema (the entries' shapes) and a description listing
 * each entry's code and message. 400/401/403/413/415/429 are always possible on
 * /v1 and always listed; an entry of one of those statuses joins its description.
 */
export function errorResponses(errors: readonly DocumentedError[] = []) {
  const standard: Record<number, { shapes: ErrorShape[]; headers: Record<string, unknown> }> = {
    400: { shapes: ['framework'], headers: ERROR_HEADERS },
    // Answered before the key is known: no budget headers.
    401: { shapes: ['framework'], headers: UNAUTHORIZED_HEADERS },
    403: { shapes: ['framework', 'feature-gate'], headers: ERROR_HEADERS },
    413: { shapes: ['framework'], headers: ERROR_HEADERS },
    415: { shapes: ['framework'], headers: ERROR_HEADERS },
    429: { shapes: ['framework'], headers: TOO_MANY_HEADERS },
  };
  const listed = new Map<number, DocumentedError[]>();
  for (const entry of errors) {
    const same = listed.get(entry.status) ?? [];
    if (!same.some((e) => e.declaredAs === entry.declaredAs)) same.push(entry);
    listed.set(entry.status, same);
  }
  const out: Record<number, ErrorResponse> = {};
  for (const status of [...new Set([...Object.keys(standard).map(Number), ...listed.keys()])]) {
    const base = standard[status];
    const entries = listed.get(status) ?? [];
    const shapes = [...new Set([...(base?.shapes ?? []), ...entries.map((e) => e.shape)])];
    const schema = shapes.length === 1 ? SCHEMAS[shapes[0]] : z.union(shapes.map((shape) => SCHEMAS[shape]) as [z.ZodTypeAny, z.ZodTypeAny]);
    out[status] = {
      description: describeStatus(base && DESCRIPTIONS[status], entries),
      headers: base?.headers ?? ERROR_HEADERS,
      content: { 'application/json': { schema } },
    };
  }
  return out;
}

/**
 * Response headers, registered once as components (`registerSharedComponents`)
 * and referenced from every response the helpers below build.
 */
export const RESPONSE_HEADERS = {
  Bookmark: {
    description:
      "The database position the answer reflects: the D1 bookmark, a dot and 64 hex digits that sign it for the workspace's database. Send it back as a `Bookmark` request header on a read (any key of the workspace) to see at least that state; a value this service did not issue for the workspace answers 400.",
    schema: { type: 'string' as const, pattern: '^[0-9a-f]{1,32}(-[0-9a-f]{1,64}){1,8}\\.[0-9a-f]{64}$' },
  },
  'RateLimit-Limit': { description: 'Requests the key may make in the current one-minute window', schema: { type: 'integer' as const, minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' as const, minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' as const, minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' as const, minimum: 0 } },
  'WWW-Authenticate': {
    description:
      'Only where the `Authorization` header does not use the `Bearer` scheme: `Bearer error="invalid_request", error_description="Authorization header must use the Bearer scheme"`',
    schema: { type: 'string' as const },
  },
  [REQUEST_ID_HEADER]: {
    description:
      "This request's id, a UUIDv7 fresh for every request and on every answer: quote it when asking about a request (the request log and the service's error log carry it).",
    schema: { type: 'string' as const, format: 'uuid', pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' },
  },
};

type HeaderName = keyof typeof RESPONSE_HEADERS;
const headerRefs = (names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

/**
 * Answers to an authenticated request carry the key's budget (`RateLimit-*`; not while the
 * limiter is unreachable, and not on a feature-gate 403); a successful one its `Bookmark`.
 */
export const SUCCESS_HEADERS = headerRefs(['Bookmark', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', REQUEST_ID_HEADER]);
const ERROR_HEADERS = headerRefs(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', REQUEST_ID_HEADER]);
const TOO_MANY_HEADERS = headerRefs(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', REQUEST_ID_HEADER]);
/** Every answer's own header, for answers that carry no other: the hosted pages, the operator API. */
export const REQUEST_ID_ONLY = headerRefs([REQUEST_ID_HEADER]);
const UNAUTHORIZED_HEADERS = headerRefs(['WWW-Authenticate', REQUEST_ID_HEADER]);

/** A JSON success response with the documented headers. */
export const jsonContent = <T extends z.ZodTypeAny>(schema: T, description: string) => ({
  description,
  headers: SUCCESS_HEADERS,
  content: { 'application/json': { schema } },
});

/** A success response without a body (204). */
export const noContent = (description: string) => ({ description, headers: SUCCESS_HEADERS });

/**
 * A JSON request body with its example (every body documents one). The body is
 * `required` exactly when `{}` fails the schema: an empty request body reads as
 * `{}`, so there it answers 400 `Request body is required` (in the route's error
 * shape, `requestIssues`), and where every field is optional it is `{}`.
 */
export const jsonBody = <T extends z.ZodTypeAny>(schema: T, example: Record<string, unknown>) => ({
  required: !schema.safeParse({}).success,
  content: { 'application/json': { schema, example } },
});

/** The shared component set every document built from these helpers needs. */
export function registerSharedComponents(registry: OpenAPIRegistry) {
  for (const [name, header] of Object.entries(RESPONSE_HEADERS)) registry.registerComponent('headers', name, header);
}

/**
 * `operationId`s are lowerCamelCase verb + resource (`listContacts`,
 * `getContact`, `createDeal`, `moveDealStage`): stable names for generated SDKs.
 */
export const OPERATION_ID = /^(list|get|create|update|delete|set|move|upsert|send|cancel|resolve|run|[a-z]+)[A-Z][A-Za-z0-9]*$/;

/** A route as declared: `createRoute`'s config, and the catalogue entries its errors come from. */
type DeclaredRoute<P extends string> = Omit<RouteConfig, 'path' | 'operationId'> & {
  path: P;
  operationId: string;
  summary: string;
  errors?: readonly ErrorDoc[];
  /** Query parameters the contract names as not taken by this route: accepted and ignored (any other undeclared one answers 400). */
  ignoredQuery?: readonly string[];
  /** The body field that is the route's own idempotency key, and what an `Idempotency-Key` header differing from it answers (`bodyKeyCheck`). */
  bodyKey?: { field: string; mismatch: ErrorDoc & (() => Error) };
};

/**
 * The one way a /v1 route is declared: `createRoute` plus the rules every
 * operation shares. `operationId` and `summary` are required (typed), the id
 * must follow `OPERATION_ID`, a required body refuses an empty request, and
 * `errors` lists the catalogue entries the route answers beyond the ones every
 * route can (`errorResponses` documents them).
 */
export function defineRoute<P extends string, R extends DeclaredRoute<P>>(declared: R) {
  if (!OPERATION_ID.test(declared.operationId)) throw new Error(`operationId ${declared.operationId} must be lowerCamelCase verb + resource`);
  const { errors: listed = [], ...config } = declared;
  const { ignoredQuery = [], bodyKey, ...own } = config;
  const errors = bodyKey ? [...listed, bodyKey.mismatch] : listed;
  const idempotent = config.method === 'post' && !!config.security;
  // Documented as the router mounted under /v1 answers them (src/app.ts).
  const surface = surfaceOf(config.method, `/v1${config.path}`);
  const documented = documentedOn(surface, idempotent ? [...errors, ...IDEMPOTENCY_ERRORS] : errors);
  const responses = { ...errorResponses(documented), ...config.responses };
  const request = idempotent ? withIdempotencyKey(own.request, bodyKey) : own.request;
  const [declaredErrors, checkQuery] = [declaring(own.operationId, errors), undeclaredQueryCheck(request, ignoredQuery)];
  const checkKey = bodyKey && bodyKeyCheck(bodyKey);
  // One handler, not a list: the route's config is also what the document is built from, where a function is left out.
  const middleware: MiddlewareHandler = (c, next) =>
    declaredErrors(c, async () => {
      checkQuery(c.req.url);
      if (checkKey) await checkKey(c);
      await next();
    });
  const route = { ...own, request, middleware, responses };
  return createRoute(route) as ReturnType<typeof createRoute<P, R>>;
}

/**
 * A query parameter the route does not declare is refused (400 naming it), never ignored: a typo
 * or a guessed filter (`?email=` on a list that has none) would otherwise answer the wrong data
 * with a 200. `ignored` are the ones the contract names as not taken by this list (`GET
 * /v1/bookings` "takes no `filter` or `search`"): accepted and ignored, as written there.
 */
export function undeclaredQueryCheck(request: RouteConfig['request'], ignored: readonly string[] = []): (url: string) => void {
  const query = request?.query;
  const taken = new Set([...(query instanceof z.ZodObject ? Object.keys(query.shape) : []), ...ignored]);
  return (url) => {
    const refused = [...new Set(new URL(url).searchParams.keys())].filter((name) => !taken.has(name));
    if (refused.length) throw SharedErrors.invalidRequest({ problems: refused.map((name) => `query parameter ${name} is not accepted here`) });
  };
}

export const bearer = [{ bearerAuth: [] }];

const IDEMPOTENCY_KEY_DOC =
  'Makes a retry safe: the first request with a key runs and its answer (unless a 5xx, 401 or 429) is kept at least 24 hours; the same method, path and body (JSON compared as values) with the same key gets that answer again with `Idempotent-Replayed: true`, and nothing runs again. A request carried out whose answer was lost (the service failed between the two) is never run again: its key answers 409 `IDEMPOTENCY_KEY_ANSWER_LOST`. 1 to 255 printable ASCII characters, else 400 `INVALID_IDEMPOTENCY_KEY`; scoped to the workspace.';

/** What `Idempotency-Key` adds to every authenticated POST's answers (src/modules/idempotency-keys/middleware.ts). */
const IDEMPOTENCY_ERRORS = [
  SharedErrors.invalidIdempotencyKey,
  SharedErrors.idempotencyKeyInUse,
  SharedErrors.idempotencyKeyAnswerLost,
  SharedErrors.idempotencyKeyReused,
];

/** Every authenticated POST documents the `Idempotency-Key` header; where the body has a key field of its own, how the two meet. */
function withIdempotencyKey(request: RouteConfig['request'], bodyKey?: DeclaredRoute<string>['bodyKey']): RouteConfig['request'] {
  const alongside = bodyKey
    ? ` On this route it does not replace the body field \`${bodyKey.field}\`, which stays required (without it: 400 \`${bodyKey.field}: ${KEY_NOT_IN_HEADER}\`); sent with it, it must be the same key, else ${bodyKey.mismatch.status} ${code(bodyKey.mismatch.code ?? bodyKey.mismatch.message)}.`
    : '';
  const header = z.object({
    'Idempotency-Key': z
      .string()
      .optional()
      .openapi({ description: IDEMPOTENCY_KEY_DOC + alongside, example: 'order-7f3a-retry-safe' }),
  });
  const own = request?.headers;
  return { ...request, headers: own instanceof z.ZodObject ? own.extend(header.shape) : header };
}
