import { z } from '@hono/zod-openapi';
import type { Context, Hono } from 'hono';
import type { AdminEnv } from '../env';
import { FrameworkError, OPERATION_ID, REQUEST_ID_ONLY, undeclaredQueryCheck } from '../platform/openapi';
import { body as parseBody } from './validate';

type Status = 200 | 201 | 202 | 400 | 401 | 404 | 409 | 422 | 429 | 503;

/**
 * One operator route: its handler and its entry in the operator API's OpenAPI document
 * (`GET /admin/v1/openapi.json`), declared together so neither can drift from the other.
 * `path` is written as the document writes it (`/workspaces/{ws}`); `body` is the very
 * schema the handler reads its body with (`read()`), and `responses` the answers it gives.
 */
export type AdminOperation = {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  /** Path parameters and what each names; UUIDs unless listed in `textParams`. */
  params?: Record<string, string>;
  textParams?: readonly string[];
  query?: z.ZodObject<z.ZodRawShape>;
  body?: { schema: z.ZodType; example: unknown };
  responses: Partial<Record<Status, { description: string; schema?: z.ZodType }>>;
};

/** Every operator route, in the order it was declared: the document's operations. */
export const ADMIN_OPERATIONS: AdminOperation[] = [];

/** Answers every operator route can give besides its own: a malformed request, the token, a spent budget. */
const COMMON: Partial<Record<Status, string>> = {
  400: 'A malformed request: an unknown body property, a wrong type, a non-UUID path id, a query parameter the operation does not list (`query parameter <name> is not accepted here`); `message` lists each',
  401: '`Invalid operator token`',
  429: 'Too many wrong operator tokens from this source IP this minute; see `Retry-After`',
};

export function operationResponses(op: AdminOperation) {
  const entries: [string, { description: string; content?: Record<string, { schema: z.ZodType }>; headers?: Record<string, unknown> }][] = [];
  const statuses = new Set<Status>([...(Object.keys(op.responses).map(Number) as Status[]), ...(Object.keys(COMMON).map(Number) as Status[])]);
  for (const status of [...statuses].sort()) {
    const own = op.responses[status];
    const description = own?.description ?? COMMON[status]!;
    const schema = own?.schema ?? (status >= 400 ? FrameworkError : undefined);
    entries.push([
      String(status),
      {
        description,
        ...(schema ? { content: { 'application/json': { schema } } } : {}),
        headers: { ...(status === 429 ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}), ...REQUEST_ID_ONLY },
      },
    ]);
  }
  return Object.fromEntries(entries);
}

/**
 * Declares an operator route on `router`. The handler gets `read`, which parses the body with
 * the documented schema (the 400 lists each problem), called where the handler's checks want it.
 * A query parameter the operation does not list is refused before the handler runs, as on `/v1`:
 * a guessed filter (`?workspace=` for `?workspace_id=`) would otherwise answer unfiltered data.
 */
export function adminRoute(
  router: Hono<AdminEnv>,
  op: AdminOperation,
  // biome-ignore lint/suspicious/noExplicitAny: `read` answers the operation's own body schema, which each handler declares beside it.
  handler: (c: Context<AdminEnv>, read: () => Promise<any>) => Promise<Response>,
) {
  if (!OPERATION_ID.test(op.operationId)) throw new Error(`operationId ${op.operationId} must be lowerCamelCase verb + resource`);
  ADMIN_OPERATIONS.push(op);
  const read = (c: Context<AdminEnv>) => () => parseBody(c, op.body?.schema ?? z.object({}).strict());
  const checkQuery = undeclaredQueryCheck({ query: op.query });
  router.on(op.method.toUpperCase(), op.path.replace(/\{(\w+)\}/g, ':$1'), (c) => {
    checkQuery(c.req.url);
    return handler(c, read(c));
  });
}

/** A record's answer: the fields every answer has, and whatever else the record carries. */
export const record = (name: string, shape: z.ZodRawShape) => z.object(shape).openapi(name);
