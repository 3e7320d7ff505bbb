import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import type { AppEnv } from './app-env';
import { SharedErrors } from './shared-errors';
import { fileUploadFor, takeFileBody } from './uploads';

type Issue = { code: string; path: PropertyKey[]; message: string; keys?: string[] };

const describePath = (path: PropertyKey[]) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join('');

/** Per-field strings in the framework shape's `message` array. */
export function formatIssues(issues: readonly Issue[]): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    const where = describePath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys ?? []) {
        out.push(`property ${where ? `${where}.` : ''}${key} should not exist`);
      }
      continue;
    }
    out.push(where ? `${where}: ${issue.message}` : issue.message);
  }
  return out;
}

type HookResult = { success: boolean; target?: string; data?: unknown; error?: { issues: unknown[] } };

export const BODY_REQUIRED = 'Request body is required';

/** What a body key's missing value says when the `Idempotency-Key` header came without it. */
export const KEY_NOT_IN_HEADER = 'the body field is required; the Idempotency-Key header is not a substitute for it';

/**
 * The per-field strings of a failed request validation. An empty body reaches
 * the body schema as `{}`, which fails exactly the schemas of required bodies
 * (`jsonBody`): that failure reads `Request body is required`. A body key sent
 * only as the header (`bodyKeyCheck`) reads `KEY_NOT_IN_HEADER`.
 */
export function requestIssues(result: HookResult, c: Context): string[] {
  if (result.target === 'json' && emptyBodies.has(c)) return [BODY_REQUIRED];
  const issues = (result.error?.issues ?? []) as Issue[];
  const field = result.target === 'json' ? keyOnlyInHeader.get(c) : undefined;
  if (field === undefined) return formatIssues(issues);
  return formatIssues(issues.map((i) => (i.path.length === 1 && i.path[0] === field ? { ...i, code: 'custom', message: KEY_NOT_IN_HEADER } : i)));
}

/** Requests whose body lacks the key field their `Idempotency-Key` header came with, by the field's name. */
const keyOnlyInHeader = new WeakMap<Context, string>();

/**
 * A route whose body names its own idempotency key (`POST /v1/emails`' `idempotency_key`) takes the
 * `Idempotency-Key` header beside it only when the two agree: they would otherwise name two requests,
 * each replaying something else. The header never stands in for the field either: a body without it
 * fails validation saying so (`KEY_NOT_IN_HEADER`), where a bare "expected string" would leave the
 * client guessing why the header it sent did not count. Runs before the body is validated.
 */
export const bodyKeyCheck =
  (key: { field: string; mismatch: () => Error }) =>
  async (c: Context): Promise<void> => {
    const header = c.req.header('Idempotency-Key');
    if (header === undefined) return;
    const body: unknown = await c.req.json().catch(() => undefined);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return;
    const value = Object.hasOwn(body, key.field) ? (body as Record<string, unknown>)[key.field] : undefined;
    if (value === undefined || value === null) keyOnlyInHeader.set(c, key.field);
    else if (typeof value === 'string' && value !== header) throw key.mismatch();
  };

/** Every router is made here so all answer request-shape violations alike (their body is the surface's, `shapeOn`). */
export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) throw SharedErrors.invalidRequest({ problems: requestIssues(result as HookResult, c) });
    },
  });
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: unknown): v is string => typeof v === 'string' && UUID_RE.test(v);

export const UUID_EXAMPLE = '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c';

/**
 * A UUID in a request (any case; lower-cased by the routes). Documented as
 * `format: uuid` with no `pattern`: a JSON Schema pattern has no flags, and the
 * format already says it (a case-sensitive pattern would refuse ids the API accepts).
 */
export const uuid = (name = 'id') =>
  z
    .string()
    .refine(isUuid, { message: `${name} must be a UUID` })
    .openapi({ format: 'uuid', example: UUID_EXAMPLE });

/**
 * `schema` or null, as the document says it. A schema that states its own `type` for the document (a free-form object,
 * an integer whose range the service words) keeps that type over the one `.nullable()` adds, and the document would then
 * refuse a null the server takes: here the type names null. `description` replaces the inner one (say what null does).
 */
export const orNull = <T extends z.ZodType>(schema: T, type: 'object' | 'integer', description?: string) =>
  schema.nullable().openapi({ type: [type, 'null'], ...(description ? { description } : {}) });

/** A UUID in a response (always lower case). */
export const uuidOut = () => z.string().openapi({ format: 'uuid', example: UUID_EXAMPLE });

export const idParams = z.object({ id: uuid('id').openapi({ param: { name: 'id', in: 'path' } }) });

/** Date.parse rolls a day past the month's end over (`2024-02-30` is March 1); ISO 8601 has no such day. */
function isCalendarDate(ymd: string): boolean {
  const [y, m, d] = ymd.split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** ISO 8601 instant (date-time with zone) or date; normalized to a UTC ISO string. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

export const isoDateTime = (name: string) =>
  z
    .string()
    .max(64)
    .refine((v) => ISO_DATE_TIME.test(v) && !Number.isNaN(Date.parse(v)) && isCalendarDate(v.slice(0, 10)), {
      message: `${name} must be a valid ISO 8601 date`,
    })
    // A date alone or a date-time with or without an offset, so neither `format: date` nor `date-time` says it: the pattern does.
    .openapi({
      pattern: ISO_DATE_TIME.source,
      example: '2026-12-31T17:00:00Z',
      description: `ISO 8601: a calendar date (\`2026-12-31\`) or a date-time (\`2026-12-31T17:00:00Z\`, an offset optional); otherwise 400 \`${name} must be a valid ISO 8601 date\``,
    });

/** An empty (or whitespace-only) body: `{}` to routes whose body is optional, `Request body is required` where it is required. */
const emptyBodies = new WeakSet<Context>();

const BODY_LIMIT = 1_000_000;
// The byte order mark is kept, so a body that starts with one is refused as JSON text (RFC 8259 forbids sending one).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * `application/json`, with no parameter or only `charset=utf-8`: the body is read as UTF-8 JSON,
 * so a body that claims another media type or charset is refused rather than misread.
 */
function isJsonContentType(header: string): boolean {
  const [type, ...params] = header.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return false;
  if (params.length > 1) return false;
  if (params.length === 0) return true;
  const [name, value = ''] = params[0].split('=');
  return (
    name.trim().toLowerCase() === 'charset' &&
    value
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase() === 'utf-8'
  );
}

/**
 * Reads every request body once, before routing: a non-empty body must be JSON
 * (415 otherwise) and must parse (400 otherwise). An empty body reads as `{}`
 * where the route's body is optional; where it is required, `requestIssues`
 * answers `Request body is required`.
 */
export const parseJsonBody: MiddlewareHandler<AppEnv> = async (c, next) => {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS' || method === 'DELETE') return next();
  const upload = fileUploadFor(method, c.req.path);
  if (upload) {
    await takeFileBody(c, upload);
    return next();
  }
  const declared = Number(c.req.header('content-length') ?? '0');
  if (declared > BODY_LIMIT) throw SharedErrors.bodyTooLarge();
  // Read bytes, not text: the runtime warns when text() meets a non-text content type.
  const bytes = await c.req.raw.arrayBuffer();
  if (bytes.byteLength > BODY_LIMIT) throw SharedErrors.bodyTooLarge();
  let text = '';
  if (bytes.byteLength > 0) {
    try {
      text = utf8.decode(bytes);
    } catch {
      throw SharedErrors.bodyNotUtf8();
    }
  }
  const empty = text.trim() === '';
  if (!empty && !isJsonContentType(c.req.header('content-type') ?? '')) throw SharedErrors.notJson();
  if (text.charCodeAt(0) === 0xfeff) throw SharedErrors.malformedJson();
  passOn(c, empty ? '{}' : text);
  if (empty) emptyBodies.add(c);
  else {
    // Parsed through the request the routes read, which keeps the value: the validators parse nothing again.
    let value: unknown;
    try {
      value = await c.req.json();
    } catch {
      throw SharedErrors.malformedJson();
    }
    const misread = misreadingIn(value);
    if (misread)
      throw misread.path.length
        ? SharedErrors.misreadValue({ path: describePath(misread.path), rule: misread.rule })
        : SharedErrors.misreadBody({ rule: misread.rule });
  }
  await next();
};

/**
 * The request as the routes read it: its body the JSON text just checked (`{}` for an empty one),
 * typed JSON so that the body validators read it whatever type was sent. Hono reads a body once and
 * keeps it (`c.req.json()` may be called again), so the validator, the `Idempotency-Key` fingerprint
 * and the operator routes all read this text.
 */
function passOn(c: Context, text: string) {
  const headers = new Headers(c.req.raw.headers);
  headers.set('content-type', 'application/json');
  headers.delete('content-length');
  c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: text });
}

const UNPAIRED_SURROGATE = /\p{Cs}/u;

/** A key as a path names it: an unpaired surrogate shows as U+FFFD, so the message itself is well-formed text. */
const wellFormed = (key: string) => key.replace(/\p{Cs}/gu, '\ufffd');

/**
 * What JSON.parse accepts but every later layer would misread, and the path
 * of the first one found, or null: a number beyond a double's range (`1e400`
 * reads as Infinity, stored as null) and a string or key holding an unpaired
 * UTF-16 surrogate (a `"\ud800"` escape; stored as replacement characters).
 * Iterative (bodies nest thousands of levels deep) and breadth-first, keeping
 * parent links only to name the one found.
 */
export function misreadingIn(root: unknown): { path: PropertyKey[]; rule: string } | null {
  const seen: { value: unknown; parent: number; key: PropertyKey }[] = [{ value: root, parent: -1, key: '' }];
  const pathTo = (i: number, last?: string) => {
    const path: PropertyKey[] = last === undefined ? [] : [wellFormed(last)];
    for (let at = i; at > 0; at = seen[at].parent) path.unshift(seen[at].key);
    return path;
  };
  for (let i = 0; i < seen.length; i++) {
    const { value } = seen[i];
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return { path: pathTo(i), rule: 'must be a finite number' };
      continue;
    }
    if (typeof value === 'string') {
      if (UNPAIRED_SURROGATE.test(value)) return { path: pathTo(i), rule: 'must not contain unpaired surrogates' };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    for (const [key, child] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
      if (typeof key === 'string' && UNPAIRED_SURROGATE.test(key)) return { path: pathTo(i, key), rule: 'must not contain unpaired surrogates' };
      if (typeof child === 'number' || typeof child === 'string' || (child !== null && typeof child === 'object'))
        seen.push({ value: child, parent: i, key });
    }
  }
  return null;
}

export { z };
