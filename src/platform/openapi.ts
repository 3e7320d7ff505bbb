import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

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

export const FeatureGateError = z
  .object({ message: z.string(), error_code: z.literal('FEATURE_NOT_INCLUDED_IN_PLAN') })
  .openapi('FeatureGateError');

const DESCRIPTIONS: Record<number, string> = {
  400: 'Validation failure, unknown body property, non-UUID path id or malformed query',
  401: '`Missing API key` or `Invalid API key`',
  403: 'Plan without API access, or the plan lacks the feature (`FEATURE_NOT_INCLUDED_IN_PLAN`)',
  404: 'Not found in this workspace',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Body is not JSON',
  429: 'Rate limit exceeded; see `Retry-After`',
};

type Shape = 'framework' | 'domain';

/**
 * Error responses for a route. 400/401/403/413/415/429 are always possible on
 * /v1 and always listed; `extra` adds route-specific statuses in the route's shape.
 */
export function errorResponses(extra: Partial<Record<number, { shape?: Shape; description?: string }>> = {}) {
  const framework = { headers: ERROR_HEADERS, content: { 'application/json': { schema: FrameworkError } } };
  const out: Record<number, { description: string; headers?: Record<string, unknown>; content: Record<string, { schema: z.ZodTypeAny }> }> = {
    400: { description: DESCRIPTIONS[400], ...framework },
    // Answered before the key is known: no budget headers.
    401: { description: DESCRIPTIONS[401], content: { 'application/json': { schema: FrameworkError } } },
    403: {
      description: DESCRIPTIONS[403],
      headers: ERROR_HEADERS,
      content: { 'application/json': { schema: z.union([FrameworkError, FeatureGateError]) } },
    },
    413: { description: DESCRIPTIONS[413], ...framework },
    415: { description: DESCRIPTIONS[415], ...framework },
    429: { description: DESCRIPTIONS[429], headers: TOO_MANY_HEADERS, content: { 'application/json': { schema: FrameworkError } } },
  };
  for (const [status, spec] of Object.entries(extra)) {
    const code = Number(status);
    const schema = spec?.shape === 'domain' ? DomainError : FrameworkError;
    const prior = out[code];
    out[code] = {
      description: spec?.description ?? DESCRIPTIONS[code] ?? 'Error',
      // A route-specific 429 keeps the rate limit's Retry-After.
      headers: prior?.headers ?? ERROR_HEADERS,
      content: { 'application/json': { schema: prior && prior.content['application/json'].schema !== schema ? z.union([prior.content['application/json'].schema, schema]) : schema } },
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
  'RateLimit-Limit': { description: "Requests the key may make in the current one-minute window", schema: { type: 'integer' as const, minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left in the current window', schema: { type: 'integer' as const, minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' as const, minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' as const, minimum: 0 } },
};

type HeaderName = keyof typeof RESPONSE_HEADERS;
const headerRefs = (names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));

/**
 * Answers to an authenticated request carry the key's budget (`RateLimit-*`; not while the
 * limiter is unreachable, and not on a feature-gate 403); a successful one its `Bookmark`.
 */
export const SUCCESS_HEADERS = headerRefs(['Bookmark', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
const ERROR_HEADERS = headerRefs(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
const TOO_MANY_HEADERS = headerRefs(['Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);

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

/**
 * The one way a /v1 route is declared: `createRoute` plus the rules every
 * operation shares. `operationId` and `summary` are required (typed), the id
 * must follow `OPERATION_ID`, and a required body refuses an empty request.
 */
export function defineRoute<P extends string, R extends Omit<RouteConfig, 'path' | 'operationId'> & { path: P; operationId: string; summary: string }>(declared: R) {
  if (!OPERATION_ID.test(declared.operationId)) throw new Error(`operationId ${declared.operationId} must be lowerCamelCase verb + resource`);
  const route = declared.method === 'post' && declared.security ? withIdempotencyKey(declared) : declared;
  return createRoute(route) as ReturnType<typeof createRoute<P, R>>;
}

export const bearer = [{ bearerAuth: [] }];

const IDEMPOTENCY_KEY_DOC =
  'Makes a retry safe: the first request with a key runs and its answer (unless a 5xx, 401 or 429) is kept at least 24 hours; the same method, path and body (JSON compared as values) with the same key gets that answer again with `Idempotent-Replayed: true`, and nothing runs again. 1 to 255 printable ASCII characters, else 400 `INVALID_IDEMPOTENCY_KEY`; scoped to the workspace.';

/** Every authenticated POST documents `Idempotency-Key` and the answers it adds (src/modules/idempotency-keys/middleware.ts). */
function withIdempotencyKey<R extends Omit<RouteConfig, 'path' | 'operationId'>>(route: R): R {
  const header = z.object({ 'Idempotency-Key': z.string().optional().openapi({ description: IDEMPOTENCY_KEY_DOC, example: 'order-7f3a-retry-safe' }) });
  const own = route.request?.headers;
  const headers = own instanceof z.ZodObject ? own.extend(header.shape) : header;
  const added = errorResponses({
    409: { description: '`IDEMPOTENCY_KEY_IN_USE`: a request with this `Idempotency-Key` is still running (see `Retry-After`)' },
    422: { description: '`IDEMPOTENCY_KEY_REUSED`: this `Idempotency-Key` was used with another method, path or body' },
  });
  const responses: Record<string, unknown> = { ...route.responses };
  for (const status of [409, 422] as const) {
    const prior = route.responses[status] as { description: string; headers?: unknown; content?: Record<string, { schema: z.ZodTypeAny }> } | undefined;
    const extra = added[status];
    const priorSchema = prior?.content?.['application/json']?.schema;
    responses[status] = prior
      ? {
          ...prior,
          description: `${prior.description}; or ${extra.description}`,
          content: { 'application/json': { schema: priorSchema && priorSchema !== FrameworkError ? z.union([priorSchema, FrameworkError]) : FrameworkError } },
        }
      : extra;
  }
  return { ...route, request: { ...route.request, headers }, responses };
}
