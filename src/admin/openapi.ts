import { OpenAPIHono, z } from '@hono/zod-openapi';
import { RESPONSE_HEADERS } from '../platform/openapi';
import { REQUEST_ID_HEADER } from '../platform/request-id';
import { ADMIN_OPERATIONS, operationResponses, type AdminOperation } from './route';

/** The operator API's sections in reading order. */
const TAGS = [
  { name: 'Workspaces', description: 'Workspaces with their plan and settings, API keys, users and the request log' },
  {
    name: 'Catalog',
    description: 'The in-app objects the public API reads: pipelines, meeting types, sender profiles, audiences, templates, snippets, the blacklist',
  },
  {
    name: 'Contacts',
    description:
      'What the application records about contacts: complaints, merge resolutions, events and attendance, form submissions, newsletter subscriptions',
  },
  { name: 'Shards', description: 'The data databases: workspaces and bytes on each, and which take new workspaces' },
  {
    name: 'Sandbox and sweeps',
    description:
      'The sandbox providers (outbox, send events, payments), webhook deliveries, the global suppression list and the cron sweeps run by hand',
  },
] as const;

const OPERATOR_API_DESCRIPTION =
  'The operator API of the Workspace API: it creates workspaces, keys and the in-app objects the public `/v1` API reads, and drives the sandbox providers and sweeps. Every call needs `Authorization: Bearer <ADMIN_TOKEN>`; without `ADMIN_TOKEN` set, `/admin/v1` answers 404. Bodies are JSON; unknown properties answer 400. Errors use the framework shape `{statusCode, message, error}` unless an operation lists another.';

function pathParameters(op: AdminOperation) {
  const entries = Object.entries(op.params ?? {}).map(([name, description]) => {
    const text = op.textParams?.includes(name);
    return [name, (text ? z.string() : z.string().uuid()).openapi({ param: { name, in: 'path' }, description })];
  });
  return entries.length ? z.object(Object.fromEntries(entries)) : undefined;
}

/** The operator API's OpenAPI 3.1 document, built from the operator routes as declared (`adminRoute`). */
export function operatorDocument(version: string, license: Record<string, string>) {
  const docs = new OpenAPIHono();
  docs.openAPIRegistry.registerComponent('headers', 'Retry-After', RESPONSE_HEADERS['Retry-After']);
  docs.openAPIRegistry.registerComponent('headers', REQUEST_ID_HEADER, RESPONSE_HEADERS[REQUEST_ID_HEADER]);
  docs.openAPIRegistry.registerComponent('securitySchemes', 'operatorToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The operator token: `Authorization: Bearer <ADMIN_TOKEN>`',
  });
  for (const op of ADMIN_OPERATIONS) {
    const params = pathParameters(op);
    docs.openAPIRegistry.registerPath({
      method: op.method,
      path: `/admin/v1${op.path}`,
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      request: {
        ...(params ? { params } : {}),
        ...(op.query ? { query: op.query } : {}),
        ...(op.body
          ? {
              body: {
                required: !op.body.schema.safeParse({}).success,
                content: { 'application/json': { schema: op.body.schema, example: op.body.example } },
              },
            }
          : {}),
      },
      responses: operationResponses(op),
    } as never);
  }
  return docs.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'Workspace API: operator API', version, license: license as never, description: OPERATOR_API_DESCRIPTION },
    servers: [{ url: '/', description: 'The host serving this document' }],
    security: [{ operatorToken: [] }],
    tags: [...TAGS],
  });
}
