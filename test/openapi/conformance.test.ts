import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, makeWorkspace, type ApiResponse, type TestWorkspace } from '../support/harness';
import { seedAll } from '../support/resources';
import { concretePath, resourceKeys, ROUTES, takesBody, type RouteCase } from '../support/routes';

/**
 * Every route of the route table answers what the OpenAPI document says: its
 * success, and its errors (no key 401, unknown id 404, non-UUID id, unknown body
 * property and empty body 400), each validated against the document's schema
 * for that status (ajv, JSON Schema 2020-12 with formats). A response shape that
 * drifts from the document, or a status the document does not list, fails here.
 */
type Operation = { responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: object }> }> };
type Doc = { paths: Record<string, Record<string, Operation>>; components: { headers: Record<string, { schema: { pattern?: string } }> } };

let doc: Doc;
let ajv: Ajv2020;
let ws: TestWorkspace;

beforeAll(async () => {
  doc = (await call<Doc>('GET', '/v1/openapi.json')).body;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'https://api.test/openapi.json' });
  ws = await makeWorkspace({}, { bulk: true });
});

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

function conforms(route: RouteCase, res: ApiResponse, what: string) {
  const where = `${route.method} ${route.path} (${what}) -> ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
  const response = doc.paths[route.path]?.[route.method.toLowerCase()]?.responses[String(res.status)];
  expect(response, `status not documented: ${where}`).toBeDefined();
  const media = response!.content?.['application/json'];
  // A file answer (an export's CSV) is of its one documented media type.
  const file = !media && Object.keys(response!.content ?? {})[0];
  if (file) {
    expect(res.headers.get('content-type')?.startsWith(file), `a ${file} body: ${where}`).toBe(true);
    expect(typeof res.body, where).toBe('string');
  } else if (!media) {
    expect(res.body === null || res.body === '', `a body where the document has none: ${where}`).toBe(true);
  } else {
    const validate = ajv.getSchema(
      `https://api.test/openapi.json#/${pointer('paths', route.path, route.method.toLowerCase(), 'responses', String(res.status), 'content', 'application/json', 'schema')}`,
    )!;
    expect(validate(res.body), `${where}\n${ajv.errorsText(validate.errors, { separator: '\n' })}`).toBe(true);
  }
  if (res.status < 300)
    expect(res.headers.get('bookmark'), `Bookmark header: ${where}`).toMatch(new RegExp(doc.components.headers.Bookmark.schema.pattern!));
  expect(res.headers.get('x-request-id'), `X-Request-Id header: ${where}`).toMatch(
    new RegExp(doc.components.headers['X-Request-Id'].schema.pattern!),
  );
  return res;
}

/** The route's valid body for a call on seeded records (the stage move needs a real stage, a booking a real meeting type, a campaign a template, a send a sender profile, an enrollment a contact). */
async function validBody(route: RouteCase) {
  const seeded =
    ['/v1/deals/{id}/stage', '/v1/bookings', '/v1/emails', '/v1/automations/{id}/enrollments'].includes(route.path) ||
    (route.method === 'POST' && route.path === '/v1/campaigns');
  if (seeded && route.parallelBody) return route.parallelBody(0, ws);
  return route.body;
}

describe('responses conform to the OpenAPI document', () => {
  for (const route of ROUTES) {
    // Record placeholders only: `{channel}` and the like take the row's `params`.
    const keys = Object.fromEntries(Object.entries(resourceKeys(route.path)).filter(([name]) => route.params?.[name] === undefined));
    const hasId = Object.keys(keys).length > 0;
    // Each placeholder takes its own seeded record (an entry of the seeded payment, not the payment's id twice).
    const pathFor = (seeded: Map<string, { id: string }>) =>
      route.path.replace(/\{([^}]+)\}/g, (_, name: string) => route.params?.[name] ?? seeded.get(keys[name])!.id);

    it(`${route.method} ${route.path}: success`, async () => {
      const seeded = await seedAll(ws, Object.values(keys));
      const file = route.file && { rawBody: route.file.body(0), headers: { 'content-type': route.file.contentType } };
      const res = await ws.api(route.method, pathFor(seeded) + (route.query ?? ''), takesBody(route) ? await validBody(route) : undefined, file);
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
      conforms(route, res, 'valid request');
    });

    it(`${route.method} ${route.path}: errors`, async () => {
      const seeded = await seedAll(ws, Object.values(keys));
      const path = pathFor(seeded);
      const body = takesBody(route) ? await validBody(route) : undefined;

      const noKey = await call(route.method, path, { body, ip: ws.ip });
      expect(noKey.status).toBe(401);
      conforms(route, noKey, 'no API key');

      if (hasId) {
        const unknown = await ws.api(route.method, concretePath(route, crypto.randomUUID()), body);
        expect(unknown.status).toBe(route.notFound?.status ?? 404);
        conforms(route, unknown, 'unknown id');
        const malformed = await ws.api(route.method, concretePath(route, 'not-a-uuid'), body);
        expect(malformed.status).toBe(route.nonUuidStatus ?? 400);
        conforms(route, malformed, 'non-UUID id');
      }
      if (takesBody(route)) {
        const extra = await ws.api(route.method, path, { ...body, zz_unknown_property: 1 });
        expect(extra.status).toBe(400);
        conforms(route, extra, 'unknown body property');
        // A required body refuses an empty request; an optional one reads it as `{}` (any documented answer).
        const empty = await ws.api(route.method, path, undefined, { rawBody: '' });
        const required = (doc.paths[route.path][route.method.toLowerCase()] as { requestBody?: { required?: boolean } }).requestBody?.required;
        if (required) expect(empty.status).toBe(400);
        conforms(route, empty, 'empty body');
        const notJson = await ws.api(route.method, path, undefined, { rawBody: '{"a":', headers: { 'content-type': 'application/json' } });
        expect(notJson.status).toBe(400);
        conforms(route, notJson, 'malformed JSON');
      }
      if (route.method === 'GET' && !hasId) {
        const badPaging = await ws.api('GET', `${route.path}?limit=-1`);
        if (badPaging.status !== 200) conforms(route, badPaging, 'malformed limit');
      }
    });
  }
});

describe('replayed answers conform to the OpenAPI document', () => {
  it('POST /v1/emails: a replayed key answers 200 with its documented headers, Bookmark included', async () => {
    const route = ROUTES.find((r) => r.method === 'POST' && r.path === '/v1/emails')!;
    const body = { ...(await validBody(route)), idempotency_key: `replay-${crypto.randomUUID()}` };
    const first = await ws.api('POST', '/v1/emails', body);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const replay = conforms(route, await ws.api('POST', '/v1/emails', body), 'replayed key');
    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({ id: first.body.id, duplicate: true });
    expect(replay.headers.get('bookmark')).toBe(first.headers.get('bookmark'));
  });
});
