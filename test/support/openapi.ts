import { call } from './harness';
import type { RouteCase } from './routes';

/**
 * What the OpenAPI document says a route takes, so generated inputs follow
 * the documented contract: a new route's body properties and query
 * parameters are probed without any table change.
 */
type Schema = { $ref?: string; properties?: Record<string, Schema>; allOf?: Schema[]; anyOf?: Schema[] };
type Operation = { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } };
type Document = { paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

let doc: Promise<Document> | null = null;
const document = () => (doc ??= call<Document>('GET', '/v1/openapi.json').then((r) => r.body));

function properties(d: Document, schema: Schema | undefined, seen = new Set<string>()): string[] {
  if (!schema) return [];
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    if (seen.has(name)) return [];
    seen.add(name);
    return properties(d, d.components?.schemas?.[name], seen);
  }
  return [...Object.keys(schema.properties ?? {}), ...[...(schema.allOf ?? []), ...(schema.anyOf ?? [])].flatMap((s) => properties(d, s, seen))];
}

const operation = async (route: RouteCase) => (await document()).paths[route.path]?.[route.method.toLowerCase()];

/** The documented properties of the route's JSON body. */
export async function bodyProperties(route: RouteCase): Promise<string[]> {
  const d = await document();
  const op = await operation(route);
  return [...new Set(properties(d, op?.requestBody?.content?.['application/json']?.schema))];
}

/** The documented query parameters of the route. */
export async function queryParameters(route: RouteCase): Promise<string[]> {
  return ((await operation(route))?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
}
