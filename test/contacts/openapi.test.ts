import { describe, expect, it } from 'vitest';
import { call } from '../support/harness';

describe('contact routes in the OpenAPI document', () => {
  it('documents every contact, consent, note, tag and group route with its errors', async () => {
    const res = await call('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    const paths = res.body.paths;
    const expected: [string, string][] = [
      ['/v1/contacts', 'get'],
      ['/v1/contacts', 'post'],
      ['/v1/contacts/{id}', 'get'],
      ['/v1/contacts/{id}', 'patch'],
      ['/v1/contacts/{id}/consent', 'get'],
      ['/v1/contacts/{id}/consent/{channel}', 'put'],
      ['/v1/contacts/{id}/notes', 'get'],
      ['/v1/contacts/{id}/notes', 'post'],
      ['/v1/notes/{id}', 'patch'],
      ['/v1/notes/{id}', 'delete'],
      ['/v1/tags', 'get'],
      ['/v1/tags', 'post'],
      ['/v1/tags/{id}', 'get'],
      ['/v1/tags/{id}', 'patch'],
      ['/v1/contact-groups', 'get'],
      ['/v1/contact-groups', 'post'],
      ['/v1/contact-groups/{id}', 'get'],
      ['/v1/contact-groups/{id}', 'patch'],
    ];
    for (const [path, method] of expected) expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
    expect(paths['/v1/contacts'].post.responses['409']).toBeDefined();
    expect(paths['/v1/contacts/{id}/consent/{channel}'].put.responses['409']).toBeDefined();
    expect(res.body.components.schemas.Contact.properties.score_band).toBeDefined();
  });
});
