import { describe, expect, it } from 'vitest';
import { makeWorkspace } from '../support/harness';

describe('quick', () => {
  it('creates and upserts', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await ws.api('POST', '/v1/contacts', { phone: '+1 415 555 0100', email: ' A@Example.com ', name: 'Ada Lovelace King', tags: ['VIP'] });
    console.log(a.status, JSON.stringify(a.body));
    const b = await ws.api('POST', '/v1/contacts', { phone: '(415) 555-0100', custom_fields: { x: 1 }, tags: ['vip', 'new'] });
    console.log(b.status, JSON.stringify(b.body));
    const l = await ws.api('GET', '/v1/contacts?search=lov');
    console.log(l.status, JSON.stringify(l.body).slice(0, 300));
    const l2 = await ws.api('GET', `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ $jsonb_contains: { tags: b.body.tags } }))}`);
    console.log(l2.status, l2.body.total);
    expect(a.status).toBe(201);
  });
});
