import { describe, expect, it } from 'vitest';
import { SUBSCRIBABLE_EVENT_TYPES } from '../../src/platform/event-catalog';
import { makeWorkspace } from '../support/harness';

describe('contract points the OpenAPI document states', () => {
  it('refuses an empty body where the body is required; where every field is optional it reads as {}', async () => {
    const ws = await makeWorkspace();
    const empty = await ws.api('POST', '/v1/products', undefined, { rawBody: '' });
    expect(empty.status).toBe(400);
    expect(empty.body).toMatchObject({ statusCode: 400, message: ['Request body is required'] });
    const blank = await ws.api('POST', '/v1/tags', undefined, { rawBody: '  \n', headers: { 'content-type': 'application/json' } });
    expect(blank.status).toBe(400);
    expect(blank.body).toMatchObject({ statusCode: 400, message: ['Request body is required'] });
    const res = await ws.api('GET', '/v1/openapi.json');
    expect(res.body.paths['/v1/products'].post.requestBody.required).toBe(true);
    expect(res.body.paths['/v1/contacts'].post.requestBody.required).toBe(false);
    const bare = await ws.api('POST', '/v1/contacts', undefined, { rawBody: '' });
    expect(bare.status).toBe(201);
    const object = await ws.api('POST', '/v1/contacts', {});
    expect(object.status).toBe(201);
  });

  it('answers consent request-shape errors in the domain envelope', async () => {
    const ws = await makeWorkspace();
    const read = await ws.api('GET', '/v1/contacts/not-a-uuid/consent');
    expect(read.status).toBe(400);
    expect(read.body.error.code).toBe('invalid_request');
    const contact = await ws.api('POST', '/v1/contacts', { email: 'consent-empty@example.com' });
    const empty = await ws.api('PUT', `/v1/contacts/${contact.body.id}/consent/email`, undefined, { rawBody: '' });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: { code: 'invalid_request', message: 'Request body is required' } });
  });

  it('money amounts: the documented minimum (what rounds to one cent) is accepted, less is refused', async () => {
    const ws = await makeWorkspace();
    const doc = (await ws.api('GET', '/v1/openapi.json')).body;
    const amountOf = (path: string) => {
      const body = doc.paths[path].post.requestBody.content['application/json'].schema;
      return (body.$ref ? doc.components.schemas[body.$ref.split('/').pop()] : body).properties.amount;
    };
    for (const path of ['/v1/payment-requests', '/v1/orders/{id}/refunds', '/v1/payments/{id}/refund']) {
      expect(amountOf(path), path).toMatchObject({ minimum: 0.005 });
    }
    const request = { email: 'cent@example.com', amount: 0.005, title: 'One cent' };
    const cent = await ws.api('POST', '/v1/payment-requests', request);
    expect(cent.status, JSON.stringify(cent.body)).toBe(201);
    expect(cent.body.amount).toBe(0.01);
    const less = await ws.api('POST', '/v1/payment-requests', { ...request, amount: 0.004 });
    expect(less.status).toBe(400);
  });

  it('free-form objects document their key rules, and the server holds to them', async () => {
    const ws = await makeWorkspace();
    const doc = (await ws.api('GET', '/v1/openapi.json')).body;
    const body = doc.paths['/v1/contacts'].post.requestBody.content['application/json'].schema;
    const customFields = doc.components.schemas[body.$ref.split('/').pop()].properties.custom_fields;
    expect(customFields).toMatchObject({ propertyNames: { minLength: 1, maxLength: 100 }, maxProperties: 100 });
    expect((await ws.api('POST', '/v1/contacts', { custom_fields: { ['k'.repeat(100)]: 1 } })).status).toBe(201);
    expect((await ws.api('POST', '/v1/contacts', { custom_fields: { ['k'.repeat(101)]: 1 } })).status).toBe(400);
    expect((await ws.api('POST', '/v1/contacts', { custom_fields: { '': 1 } })).status).toBe(400);
    const variables = JSON.stringify(doc.components.schemas).includes('"propertyNames":{"pattern":"^[a-z0-9_]{1,64}$"}');
    expect(variables).toBe(true);
  });

  it('content takes exactly one source, as the document says with oneOf', async () => {
    const ws = await makeWorkspace();
    const doc = (await ws.api('GET', '/v1/openapi.json')).body;
    const sources = ['markdown', 'blocks', 'design_json'];
    expect(doc.components.schemas.ContentInput.oneOf).toEqual(sources.map((name) => ({ required: [name] })));
    const one = {
      markdown: { markdown: 'Hello' },
      blocks: { blocks: [{ type: 'paragraph', text: 'Hello' }] },
      design_json: { design_json: { blocks: [{ type: 'paragraph', text: 'Hello' }] } },
    };
    const create = (content: unknown) =>
      ws
        .api('POST', '/v1/newsletters', { name: `N ${crypto.randomUUID().slice(0, 6)}` })
        .then((n) => ws.api('POST', `/v1/newsletters/${n.body.id}/issues`, { subject: 'S', content }));
    for (const source of sources) expect((await create(one[source as keyof typeof one])).status, source).toBe(201);
    for (const content of [{}, { ...one.markdown, ...one.blocks }]) {
      const res = await create(content);
      expect(res.status, JSON.stringify(content)).toBe(400);
      expect(res.body.error.code).toBe('invalid_content');
    }
  });

  it('names the valid event types when one is unknown', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('POST', '/v1/webhook-endpoints', { url: 'https://example.com/hooks', events: ['contact.created', 'booking.completed'] });
    expect(res.status).toBe(400);
    const [message] = res.body.message as string[];
    expect(message.startsWith('events[1]: must be a known event type')).toBe(true);
    for (const type of SUBSCRIBABLE_EVENT_TYPES) expect(message).toContain(type);
    expect(message).not.toContain('automation.webhook');
  });
});
