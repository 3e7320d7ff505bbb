import { describe, expect, it } from 'vitest';
import { ADMIN_OPERATIONS } from '../../src/admin/route';
import { buildApp } from '../../src/app';
import { EVENT_TYPES } from '../../src/platform/event-catalog';
import { OPERATION_ID } from '../../src/platform/openapi';
import { call } from '../support/harness';
import { ROUTES } from '../support/routes';

/**
 * The OpenAPI document as the API serves it: the rules every operation shares
 * hold for every route, present and future. (The committed `openapi.json` is
 * compared with it in test/platform/openapi-snapshot.test.ts.)
 */
type Schema = Record<string, any>;
type Operation = {
  operationId?: string;
  parameters?: { name: string; in: string; schema?: Schema; $ref?: string }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema; example?: unknown; examples?: unknown }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: Schema }> }>;
};

const served = async () => {
  const res = await call('GET', '/v1/openapi.json');
  expect(res.status).toBe(200);
  return res.body as {
    paths: Record<string, Record<string, Operation>>;
    webhooks?: Record<string, { post: Operation }>;
    servers?: unknown[];
    components: Schema;
  };
};

const allOperations = (doc: Awaited<ReturnType<typeof served>>) =>
  Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

/** The API's operations: the public pages and provider webhooks outside /v1 are documented apart (below). */
const operations = (doc: Awaited<ReturnType<typeof served>>) => allOperations(doc).filter((o) => o.path.startsWith('/v1/'));

/** Booking routes matched through a parameter that serve one literal segment (the others answer 404; src/modules/bookings/pages.ts). */
const LITERAL_SEGMENTS: Record<string, string> = {
  'GET /book/{file}': 'GET /book/embed.js',
  'GET /book/{ws}/{page}/{token}': 'GET /book/{ws}/manage/{token}',
  'POST /book/{ws}/{page}/{token}/cancel': 'POST /book/{ws}/manage/{token}/cancel',
  'POST /book/{ws}/{page}/{token}/reschedule': 'POST /book/{ws}/manage/{token}/reschedule',
};

/** Routes outside /v1 that the document lists as what they are: a page for people, a webhook for a provider. */
const PUBLIC_OPERATIONS = [
  'GET /pay/{token}',
  'POST /pay/{token}',
  'POST /providers/payments/{provider}',
  'GET /book/{ws}/{slug}',
  'POST /book/{ws}/{slug}',
  'GET /book/{ws}/manage/{token}',
  'POST /book/{ws}/manage/{token}/cancel',
  'POST /book/{ws}/manage/{token}/reschedule',
  'GET /book/embed.js',
  'GET /t/o/{token}',
  'GET /t/c/{token}',
  'POST /providers/email/{provider}',
  'GET /providers/whatsapp/webhook',
  'POST /providers/whatsapp/webhook',
  'GET /n/{ws}/{slug}',
  'GET /n/{ws}/{slug}/{number}',
  'GET /u/{token}',
  'POST /u/{token}',
];

describe('rules every operation follows', () => {
  it('has servers and one operation per route of the route table', async () => {
    const doc = await served();
    expect(doc.servers?.length).toBeGreaterThan(0);
    const documented = operations(doc)
      .map((o) => `${o.method.toUpperCase()} ${o.path}`)
      .sort();
    expect(documented).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('lists every public route the app serves (pages, tracking links, provider webhooks) and no other', () => {
    const served = buildApp()
      // The API itself, the operator API, the reference viewer and the root (an index of them) are not public pages.
      .routes.filter((r) => r.method !== 'ALL' && r.path !== '/' && !/^\/(v1|admin\/v1|docs)(\/|$)/.test(r.path))
      .map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`)
      .map((route) => LITERAL_SEGMENTS[route] ?? route);
    expect([...new Set(served)].sort()).toEqual([...PUBLIC_OPERATIONS].sort());
  });

  it('documents the hosted pages, tracking links and provider webhooks apart from the API, without API-key security', async () => {
    const doc = await served();
    const outside = allOperations(doc).filter((o) => !o.path.startsWith('/v1/'));
    expect(outside.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort()).toEqual([...PUBLIC_OPERATIONS].sort());
    for (const { op } of outside) expect((op as { security?: unknown[] }).security).toEqual([]);
  });

  it('gives every operation and webhook a unique lowerCamelCase operationId', async () => {
    const doc = await served();
    const ids = [...allOperations(doc).map((o) => o.op.operationId), ...Object.values(doc.webhooks ?? {}).map((w) => w.post.operationId)];
    for (const id of ids) expect(id, 'operationId').toMatch(OPERATION_ID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('types every query parameter: integers for paging, a sort enum, booleans, uuid filters', async () => {
    const doc = await served();
    for (const { path, method, op } of operations(doc)) {
      for (const p of (op.parameters ?? []).filter((x) => x.in === 'query')) {
        const where = `${method} ${path} ?${p.name}`;
        expect(p.schema?.type, where).toBeTypeOf('string');
        // Paging is an integer; its bounds are declared only where they are enforced (test/openapi/parameters.test.ts).
        if (p.name === 'limit' || p.name === 'offset') expect(p.schema?.type, where).toBe('integer');
        if (p.name === 'sort') expect(p.schema?.enum?.length, where).toBeGreaterThan(0);
        if (p.name.startsWith('is_')) expect(p.schema?.type, where).toBe('boolean');
        if (/_id$/.test(p.name) && p.name !== 'external_id') expect(p.schema?.format, where).toBe('uuid');
      }
    }
  });

  it('emits no pattern a JSON Schema validator cannot read (no regex flags)', async () => {
    const text = JSON.stringify(await served());
    for (const m of text.matchAll(/"pattern":"((?:[^"\\]|\\.)*)"/g)) {
      const pattern = JSON.parse(`"${m[1]}"`) as string;
      expect(pattern, 'pattern with a literal flag').not.toMatch(/\/[gimsuy]*$/);
      expect(() => new RegExp(pattern, 'u')).not.toThrow();
    }
  });

  it('gives every request body an example and says whether it is required', async () => {
    for (const { path, method, op } of operations(await served())) {
      if (!op.requestBody) continue;
      expect(op.requestBody.required, `${method} ${path}`).toBeTypeOf('boolean');
      // JSON bodies, or a file upload's one media type (a CSV import).
      const [media] = Object.values(op.requestBody.content as Record<string, { example?: unknown; examples?: unknown }>);
      expect(media.example ?? media.examples, `${method} ${path} example`).toBeDefined();
    }
  });

  it('documents the Bookmark and RateLimit headers on every success, Retry-After on 429 and X-Request-Id on every answer', async () => {
    for (const { path, method, op } of operations(await served())) {
      for (const [status, response] of Object.entries(op.responses)) {
        const headers = Object.keys(response.headers ?? {});
        expect(headers, `${method} ${path} ${status}`).toContain('X-Request-Id');
        if (status.startsWith('2'))
          expect(headers, `${method} ${path} ${status}`).toEqual(
            expect.arrayContaining(['Bookmark', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
          );
        if (status === '429') expect(headers, `${method} ${path} 429`).toContain('Retry-After');
      }
    }
  });

  it('documents null on exactly the body fields that take it, in both documents', async () => {
    type Shape = Record<string, { safeParse: (v: unknown) => { success: boolean } }>;
    const bodies = [
      ...buildApp().openAPIRegistry.definitions.flatMap((def) =>
        def.type === 'route'
          ? [{ method: def.route.method, path: def.route.path, body: (def.route.request?.body?.content?.['application/json'] as Schema)?.schema }]
          : [],
      ),
      ...ADMIN_OPERATIONS.map((op) => ({ method: op.method, path: `/admin/v1${op.path}`, body: op.body?.schema })),
    ];
    const [api, operator] = [await served(), (await call('GET', '/admin/v1/openapi.json')).body as Awaited<ReturnType<typeof served>>];
    const disagree: string[] = [];
    for (const { method, path, body } of bodies) {
      const shape = (body as { shape?: Shape } | undefined)?.shape;
      if (!shape) continue;
      const doc = path.startsWith('/admin/') ? operator : api;
      const resolve = (s: Schema): Schema => (s?.$ref ? doc.components.schemas[s.$ref.split('/').pop()!] : s);
      const allowsNull = (raw: Schema): boolean => {
        const s = resolve(raw);
        const types = Array.isArray(s.type) ? s.type : [s.type];
        return types.includes('null') || s.nullable === true || [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(allowsNull);
      };
      const properties = resolve(doc.paths[path][method].requestBody!.content['application/json'].schema).properties as Record<string, Schema>;
      for (const [field, schema] of Object.entries(shape)) {
        const takes = schema.safeParse(null).success;
        if (takes !== allowsNull(properties[field]))
          disagree.push(`${method} ${path} ${field}: ${takes ? 'takes null, documented without' : 'refuses null, documented with'}`);
      }
    }
    expect(disagree).toEqual([]);
  });

  it('has a webhooks entry with an envelope schema for every event type of the catalogue', async () => {
    const doc = await served();
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const ref = doc.webhooks![type].post.requestBody!.content['application/json'].schema.$ref as string;
      const schema = doc.components.schemas[ref.split('/').pop()!];
      expect(schema.required, type).toEqual(expect.arrayContaining(['id', 'type', 'created_at', 'data']));
      expect(schema.properties.type.const ?? schema.properties.type.enum?.[0], type).toBe(type);
    }
  });
});

describe('reading order of the reference', () => {
  it('lists every tag in use, contacts first, the hosted pages and provider webhooks last, and paths in that order', async () => {
    const doc = (await call('GET', '/v1/openapi.json')).body as {
      tags: { name: string }[];
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const order = doc.tags.map((t) => t.name);
    const used = new Set(Object.values(doc.paths).flatMap((item) => Object.values(item).flatMap((op) => op.tags ?? [])));
    expect([...used].filter((t) => !order.includes(t))).toEqual([]);
    expect(order.filter((t) => !used.has(t))).toEqual([]);
    expect(order[0]).toBe('Contacts');
    expect(order.at(-1)).toBe('Hosted pages and provider webhooks');
    // The pages and provider webhooks come after every API path.
    const paths = Object.keys(doc.paths);
    const firstOutside = paths.findIndex((p) => !p.startsWith('/v1/'));
    expect(paths.slice(firstOutside).every((p) => !p.startsWith('/v1/'))).toBe(true);
  });
});

describe('answers every API operation documents', () => {
  it('each /v1 operation has a success (2xx) and client errors (4xx)', async () => {
    const doc = (await call('GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
    for (const [path, item] of Object.entries(doc.paths).filter(([p]) => p.startsWith('/v1/'))) {
      for (const [method, op] of Object.entries(item)) {
        const statuses = Object.keys(op.responses);
        expect(
          statuses.some((s) => s.startsWith('2')),
          `${method} ${path}`,
        ).toBe(true);
        expect(
          statuses.some((s) => s.startsWith('4')),
          `${method} ${path}`,
        ).toBe(true);
      }
    }
  });
});
