import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace } from '../support/harness';

/**
 * Writes whose statements grow with the input, at the largest input the API
 * accepts: 200 tag and 200 group names per contact write (each may be new),
 * 100 stages per pipeline. D1 binds at most 100 parameters per statement.
 */
const names = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix} ${i}`);

async function labelCount(ws: { api: (m: string, p: string) => Promise<{ body: any }> }, path: string) {
  return (await ws.api('GET', `${path}?limit=0`)).body.total as number;
}

describe('contact writes at the label maximum', () => {
  it('creates a contact with 200 new tags and 200 new groups', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('POST', '/v1/contacts', { email: 'many@example.com', tags: names(200, 'tag'), groups: names(200, 'group') });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    expect(res.body.tags).toHaveLength(200);
    expect(res.body.groups).toHaveLength(200);
    expect(await labelCount(ws, '/v1/tags')).toBe(200);
    expect(await labelCount(ws, '/v1/contact-groups')).toBe(200);
  });

  it('adds 200 more new names through the upsert and replaces them all through PATCH', async () => {
    const ws = await makeWorkspace();
    const created = await ws.api('POST', '/v1/contacts', { email: 'grow@example.com', tags: names(13, 'first'), groups: names(13, 'first') });
    expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201);
    const upserted = await ws.api('POST', '/v1/contacts', { email: 'grow@example.com', tags: names(200, 'second'), groups: names(200, 'second') });
    expect(upserted.status, JSON.stringify(upserted.body).slice(0, 300)).toBe(201);
    expect(upserted.body.duplicate).toBe(true);
    expect(upserted.body.tags).toHaveLength(213);
    expect(upserted.body.groups).toHaveLength(213);
    const patched = await ws.api('PATCH', `/v1/contacts/${created.body.id}`, { tags: names(200, 'third'), groups: names(200, 'third') });
    expect(patched.status, JSON.stringify(patched.body).slice(0, 300)).toBe(200);
    expect(patched.body.tags).toHaveLength(200);
    expect(patched.body.groups).toHaveLength(200);
    expect(await labelCount(ws, '/v1/tags')).toBe(413);
  });

  it('refuses 201 names with 400', async () => {
    const ws = await makeWorkspace();
    const res = await ws.api('POST', '/v1/contacts', { email: 'toomany@example.com', tags: names(201, 'tag') });
    expect(res.status).toBe(400);
  });
});

describe('pipelines at the stage maximum', () => {
  it('creates a pipeline with 100 stages', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const p = await adminOk('POST', `/workspaces/${ws.id}/pipelines`, { name: 'Long', stages: names(100, 'stage').map((name) => ({ name })) });
    expect(p.stages).toHaveLength(100);
    expect(p.stages.map((s: { position: number }) => s.position)).toEqual(names(100, '').map((_, i) => i));
  });
});
