import { call } from './harness';
import type { RouteCase } from './routes';

/**
 * What the OpenAPI document says a route takes, so generated inputs follow
 * the documented contract: a new route's body properties and query
 * parameters are probed without any table change.
 */
type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; allOf?: Schema[]; anyOf?: Schema[]; oneOf?: Schema[] };
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

/** The names content travels under: inline markdown text, and the block document's two forms. */
export const CONTENT_PROPERTIES = ['markdown', 'blocks', 'design_json'] as const;
export type ContentProperty = (typeof CONTENT_PROPERTIES)[number];

const types = (schema: Schema) => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);
const expected: Record<ContentProperty, string> = { markdown: 'string', blocks: 'array', design_json: 'object' };

/**
 * Where the route's body documents content, at any depth: the path to each
 * string property named `markdown`, array named `blocks` and object named
 * `design_json` (`[['content', 'markdown'], ...]`).
 */
export async function contentPaths(route: RouteCase): Promise<string[][]> {
  const d = await document();
  const op = await operation(route);
  const found: string[][] = [];
  const walk = (schema: Schema | undefined, path: string[], seen: Set<string>) => {
    if (!schema) return;
    if (schema.$ref) {
      const name = schema.$ref.split('/').pop()!;
      if (seen.has(name)) return;
      walk(d.components?.schemas?.[name], path, new Set([...seen, name]));
      return;
    }
    for (const s of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) walk(s, path, seen);
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      const resolved = property.$ref ? d.components?.schemas?.[property.$ref.split('/').pop()!] : property;
      if ((CONTENT_PROPERTIES as readonly string[]).includes(key) && resolved && types(resolved).includes(expected[key as ContentProperty]))
        found.push([...path, key]);
      else walk(property, [...path, key], seen);
    }
  };
  walk(op?.requestBody?.content?.['application/json']?.schema, [], new Set());
  return found;
}

/** The documented query parameters of the route. */
export async function queryParameters(route: RouteCase): Promise<string[]> {
  return ((await operation(route))?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
}
