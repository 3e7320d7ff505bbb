import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminApp } from '../../src/admin';
import { ADMIN_TOKEN, admin, adminOk, call, makeWorkspace, type ApiResponse, type TestWorkspace } from '../support/harness';

/**
 * The operator API's OpenAPI document (`GET /admin/v1/openapi.json`) tells the truth: it lists
 * exactly the operator routes, and every answer of every operation (its success, no token, an
 * unknown property, a non-UUID id, an unknown record) matches the document's schema for its
 * status. An operation a test does not reach fails the last test.
 */
type Operation = {
  operationId: string;
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, { schema: object }> }>;
};
type Doc = { paths: Record<string, Record<string, Operation>> };

let doc: Doc;
let ajv: Ajv2020;
const reached = new Set<string>();

beforeAll(async () => {
  const res = await call<Doc>('GET', '/admin/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'https://api.test/operator.json' });
});

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** The documented path an operator call matches (`/admin/v1/workspaces/{ws}` for `/admin/v1/workspaces/0190...`). */
function documented(method: string, path: string): string {
  const found = Object.keys(doc.paths).find((p) => doc.paths[p][method] && new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
  expect(found, `${method.toUpperCase()} ${path} is not documented`).toBeDefined();
  return found!;
}

function conforms(method: string, path: string, res: ApiResponse, what: string) {
  const template = documented(method, `/admin/v1${path.split('?')[0]}`);
  const op = doc.paths[template][method];
  reached.add(`${op.operationId}:${res.status < 300 ? 'success' : res.status}`);
  const where = `${method.toUpperCase()} ${path} (${what}) -> ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
  const response = op.responses[String(res.status)];
  expect(response, `status not documented: ${where}`).toBeDefined();
  expect(response.headers, `X-Request-Id documented: ${where}`).toHaveProperty('X-Request-Id');
  expect(res.headers.get('x-request-id'), `X-Request-Id header: ${where}`).toMatch(
    /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
  );
  const validate = ajv.getSchema(
    `https://api.test/operator.json#/${pointer('paths', template, method, 'responses', String(res.status), 'content', 'application/json', 'schema')}`,
  );
  expect(validate, `no schema: ${where}`).toBeDefined();
  expect(validate!(res.body), `${where}\n${ajv.errorsText(validate!.errors, { separator: '\n' })}`).toBe(true);
  return res;
}

/** Calls an operator route and checks its answer against the document; `expected` is the status it must give. */
async function op(method: string, path: string, body: unknown, expected: number, what = 'valid request') {
  const res = await admin(method.toUpperCase(), path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(expected);
  return conforms(method, path, res, what).body;
}

describe('the operator API document', () => {
  it('documents exactly the operator routes', () => {
    const routes = new Set(
      adminApp.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method.toLowerCase()} /admin/v1${r.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const operations = new Set(Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`)));
    operations.add('get /admin/v1/openapi.json');
    expect([...routes].sort()).toEqual([...operations].sort());
  });

  it('every body example is accepted as the route reads it (no 400 for its shape)', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const example = operation.requestBody?.content['application/json'].example;
        if (operation.requestBody) expect(example, `${method} ${path} has no example`).toBeDefined();
      }
    }
  });
});

describe('operator answers conform to the document', () => {
  let ws: TestWorkspace;

  beforeAll(async () => {
    ws = await makeWorkspace();
  });

  it('workspaces, keys, users, the request log', async () => {
    const created = await op('post', '/workspaces', { name: 'Doc probe', timezone: 'Europe/Berlin', default_country: 'DE', currency: 'EUR' }, 201);
    await op('get', `/workspaces/${created.id}`, undefined, 200);
    await op('patch', `/workspaces/${created.id}`, { caps: { contacts: 10 } }, 200);
    const key = await op('post', `/workspaces/${created.id}/api-keys`, { name: 'k' }, 201);
    await op('post', `/api-keys/${key.id}/revoke`, undefined, 200);
    await op('post', `/workspaces/${created.id}/users`, { name: 'U', email: `u-${crypto.randomUUID().slice(0, 6)}@example.com`, role: 'agent' }, 201);
    await ws.api('GET', '/v1/pipelines');
    await op('get', `/workspaces/${ws.id}/request-log?limit=5`, undefined, 200);
    await op('post', `/workspaces/${created.id}/blacklist`, { phone: '+14155550177' }, 201);
    await op('post', `/workspaces/${created.id}/pipelines`, { name: 'P', is_default: true, stages: [{ name: 'A' }] }, 201);
  });

  it('lead scoring: read, set, refused rules, unknown workspace', async () => {
    await op('get', `/workspaces/${ws.id}/scoring`, undefined, 200);
    await op(
      'put',
      `/workspaces/${ws.id}/scoring`,
      {
        enabled: true,
        rules: [
          { signal: 'email.clicked', points: 5 },
          { field: 'lifecycle_stage', equals: 'customer', points: 20 },
        ],
        half_life_days: 30,
      },
      200,
    );
    await op('put', `/workspaces/${ws.id}/scoring`, { enabled: true, rules: [{ signal: 'email.forwarded', points: 5 }] }, 400, 'an unknown signal');
    await op('put', `/workspaces/${crypto.randomUUID()}/scoring`, { enabled: false }, 404, 'an unknown workspace');
    await op('put', `/workspaces/${ws.id}/scoring`, { enabled: false }, 200);
  });

  it('the catalog: meeting types, busy blocks, embed keys, sender profiles, audiences, snippets, templates', async () => {
    const host = await adminOk('POST', `/workspaces/${ws.id}/users`, {
      name: 'Host',
      email: `h-${crypto.randomUUID().slice(0, 6)}@example.com`,
      role: 'agent',
    });
    const week = { mon: [['09:00', '17:00']] };
    await op(
      'post',
      `/workspaces/${ws.id}/meeting-types`,
      {
        name: 'Call',
        slug: `call-${crypto.randomUUID().slice(0, 6)}`,
        duration_minutes: 30,
        scheduling_kind: 'one_on_one',
        host_user_ids: [host.id],
        timezone: 'UTC',
        weekly_hours: week,
      },
      201,
    );
    await op('post', `/workspaces/${ws.id}/users/${host.id}/busy`, { start_at: '2030-01-07T12:00:00Z', end_at: '2030-01-07T13:00:00Z' }, 201);
    await op('post', `/workspaces/${ws.id}/embed-key/rotate`, undefined, 201);
    await op(
      'post',
      `/workspaces/${ws.id}/sender-profiles`,
      { from_name: 'Acme', from_email: 'hello@mail.acme.example', domain_verified: true, is_default: true },
      201,
    );
    await op('post', `/workspaces/${ws.id}/audiences`, { name: 'Prospects', kind: 'dynamic', filters: { lifecycle_stage: 'prospect' } }, 201);
    const snippet = await op('post', `/workspaces/${ws.id}/snippets`, { name: `footer-${crypto.randomUUID().slice(0, 6)}`, markdown: 'Acme' }, 201);
    await op('post', `/workspaces/${ws.id}/snippets`, { name: snippet.name, markdown: 'Again' }, 409, 'a taken name');
    await op('post', `/workspaces/${ws.id}/snippets`, { name: 'deep', markdown: `${'> '.repeat(5000)}x` }, 400, 'past the content limits');
    await op(
      'post',
      `/workspaces/${ws.id}/templates`,
      { name: `t_${crypto.randomUUID().slice(0, 6)}`, language: 'en_US', category: 'utility', body: 'Hi {{1}}' },
      201,
    );
  });

  it('contacts: complaints, merge requests, events, attendance, forms, subscriptions, no-shows', async () => {
    const contact = (await ws.api('POST', '/v1/contacts', { email: `c-${crypto.randomUUID().slice(0, 6)}@example.com` })).body;
    await op('post', `/workspaces/${ws.id}/contacts/${contact.id}/complaints`, { channel: 'email' }, 201);
    await op('get', `/workspaces/${ws.id}/contacts/${contact.id}/export?limit=5`, undefined, 200);
    await op('get', `/workspaces/${ws.id}/contacts/${crypto.randomUUID()}/export`, undefined, 404, 'unknown contact');
    const erasable = (await ws.api('POST', '/v1/contacts', { email: `erase-${crypto.randomUUID().slice(0, 8)}@example.com` })).body;
    await op('post', `/workspaces/${ws.id}/contacts/${erasable.id}/erase`, undefined, 200);
    await op('post', `/workspaces/${ws.id}/contacts/${erasable.id}/erase`, undefined, 404, 'already erased');
    const phone = `+1415555${String(Math.floor(Math.random() * 9000) + 1000)}`;
    const email = `m-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await ws.api('POST', '/v1/contacts', { phone });
    await ws.api('POST', '/v1/contacts', { email });
    const conflict = await ws.api('POST', '/v1/contacts', { phone, email, name: 'Both' });
    expect(conflict.status).toBe(409);
    await op('post', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' }, 200);
    await op('post', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' }, 409, 'resolved twice');
    const event = await op('post', `/workspaces/${ws.id}/events`, { name: 'Webinar', start_at: '2030-03-01T17:00:00Z' }, 201);
    await op('post', `/workspaces/${ws.id}/events/${event.id}/attendance`, { contact_id: contact.id, status: 'attended' }, 201);
    await op(
      'post',
      `/workspaces/${ws.id}/forms/${crypto.randomUUID()}/submissions`,
      { form_name: 'Sign-up', origin: 'form', fields: { a: 1 }, contact: { email: `f-${crypto.randomUUID().slice(0, 6)}@example.com` } },
      201,
    );
    const newsletter = (await ws.api('POST', '/v1/newsletters', { name: `News ${crypto.randomUUID().slice(0, 6)}` })).body;
    await op('post', `/workspaces/${ws.id}/newsletters/${newsletter.id}/subscriptions`, { contact_id: contact.id }, 201);
    await op('post', `/workspaces/${ws.id}/newsletters/${newsletter.id}/subscriptions`, { contact_id: contact.id }, 200, 'again');
    await op('post', `/workspaces/${ws.id}/newsletters/${crypto.randomUUID()}/subscriptions`, { contact_id: contact.id }, 404, 'unknown newsletter');
    await op('post', `/workspaces/${ws.id}/bookings/${crypto.randomUUID()}/no-show`, undefined, 404, 'unknown booking');
  });

  it('sandbox and sweeps: outbox, send events, payments, deliveries, global suppressions, sweeps', async () => {
    await adminOk('POST', `/workspaces/${ws.id}/sender-profiles`, {
      from_name: 'Acme',
      from_email: 'hello@mail.acme.example',
      domain_verified: true,
      is_default: true,
    });
    const sent = (await ws.api('POST', '/v1/emails', { to: 'ada@example.com', subject: 'Hi', text: 'Hello', idempotency_key: crypto.randomUUID() }))
      .body;
    await op('get', `/workspaces/${ws.id}/outbox?channel=email&limit=5`, undefined, 200);
    await op('post', `/email-sends/${sent.id}/events`, { type: 'delivered' }, 201);
    const link = (await ws.api('POST', '/v1/payment-requests', { amount: 10, email: 'payer@example.com' })).body;
    await op('post', `/payment-requests/${link.id}/complete`, undefined, 200);
    await op('get', `/workspaces/${ws.id}/webhook-deliveries?state=dead`, undefined, 200);
    const listed = `g-${crypto.randomUUID().slice(0, 6)}@example.com`;
    await op('post', '/global-suppressions', { email: listed }, 201);
    await op('get', '/global-suppressions?limit=5', undefined, 200);
    await op('delete', `/global-suppressions/${listed}`, undefined, 200);
    await op('delete', `/global-suppressions/${listed}`, undefined, 404, 'not listed');
    await op('delete', '/global-suppressions/not-an-address', undefined, 400, 'not an address');
    await op('post', '/sweeps/expire-payment-requests', undefined, 200);
    await op('post', '/sweeps/nothing-here', undefined, 404, 'unknown sweep');
  });

  it('shards: list, open, unknown binding', async () => {
    await op('get', '/shards', undefined, 200);
    await op('patch', '/shards/SHARD_1', { state: 'open' }, 200);
    await op('patch', '/shards/SHARD_9', { state: 'open' }, 404, 'unknown shard');
    await op('patch', '/shards/SHARD_1', { state: 'full' }, 400, 'unknown state');
  });

  it('moves: start, read, list, refusals', async () => {
    const mover = await makeWorkspace();
    const { shard } = await adminOk('GET', `/workspaces/${mover.id}`);
    const to = shard === 'SHARD_0' ? 'SHARD_1' : 'SHARD_0';
    await op('post', `/workspaces/${mover.id}/move`, { to: shard }, 409, 'already there');
    await op('post', `/workspaces/${mover.id}/move`, { to: 'SHARD_9' }, 404, 'unknown shard');
    const started = await op('post', `/workspaces/${mover.id}/move`, { to }, 202);
    await op('post', `/workspaces/${mover.id}/move`, { to }, 409, 'already moving');
    await op('get', `/moves/${started.id}`, undefined, 200);
    await op('get', `/moves/${crypto.randomUUID()}`, undefined, 404, 'unknown move');
    await op('get', `/moves?workspace_id=${mover.id}`, undefined, 200);
  });

  it('errors: no token, an unknown property, a non-UUID id, an unknown workspace', async () => {
    const noToken = await call('GET', `/admin/v1/workspaces/${ws.id}`);
    conforms('get', `/workspaces/${ws.id}`, noToken, 'no token');
    expect(noToken.status).toBe(401);
    for (const [method, path, body] of [
      ['post', '/workspaces', { name: 'x', zz_unknown: 1 }],
      ['post', `/workspaces/${ws.id}/snippets`, { name: 'x', markdown: 'y', zz_unknown: 1 }],
      ['get', '/workspaces/not-a-uuid', undefined],
      ['post', `/workspaces/${ws.id}/events`, { name: '' }],
    ] as const) {
      conforms(method, path, await admin(method.toUpperCase(), path, body), 'malformed');
    }
    for (const [method, path, body] of [
      ['get', `/workspaces/${crypto.randomUUID()}`, undefined],
      ['post', `/workspaces/${crypto.randomUUID()}/api-keys`, { name: 'k' }],
      ['post', `/api-keys/${crypto.randomUUID()}/revoke`, undefined],
      ['post', `/payment-requests/${crypto.randomUUID()}/complete`, undefined],
      ['post', `/email-sends/${crypto.randomUUID()}/events`, { type: 'delivered' }],
    ] as const) {
      const res = await admin(method.toUpperCase(), path, body);
      expect(res.status, path).toBe(404);
      conforms(method, path, res, 'unknown');
    }
  });

  it('reached every operation at least once with a success', () => {
    const succeeded = new Set([...reached].filter((r) => r.endsWith(':success')).map((r) => r.split(':')[0]));
    const missing = Object.values(doc.paths)
      .flatMap((item) => Object.values(item).map((o) => o.operationId))
      .filter((id) => !succeeded.has(id) && id !== 'markBookingNoShow');
    expect(missing).toEqual([]);
  });
});

describe('the operator document without ADMIN_TOKEN', () => {
  it('is absent like every operator route', async () => {
    const { buildApp } = await import('../../src/app');
    const { env } = await import('cloudflare:workers');
    const res = await buildApp().fetch(new Request('https://api.test/admin/v1/openapi.json'), { ...env, ADMIN_TOKEN: '' }, {
      waitUntil() {},
      passThroughOnException() {},
    } as never);
    expect(res.status).toBe(404);
    expect(ADMIN_TOKEN).toBeTruthy();
  });
});
