import { describe, expect, it } from 'vitest';
import { admin, makeWorkspace } from '../support/harness';
import { concretePath, ROUTES } from '../support/routes';
import { createContact } from './helpers';

const OURS = ROUTES.filter((r) => /^\/v1\/(contacts|notes|tags|contact-groups)/.test(r.path));

describe('cross-workspace isolation', () => {
  it("answers another workspace's ids exactly like unknown ids, on every contact route", async () => {
    const owner = await makeWorkspace({}, { pipeline: false });
    const intruder = await makeWorkspace({}, { pipeline: false });
    const contact = await createContact(owner, { email: 'owner@example.com', phone: '+14155550170', tags: ['secret'], groups: ['inner'] });
    const note = (await owner.api('POST', `/v1/contacts/${contact.id}/notes`, { body: 'private' })).body;
    const tag = contact.tags[0];
    const group = contact.groups[0];
    const idFor = (path: string) =>
      path.startsWith('/v1/notes') ? note.id : path.startsWith('/v1/tags') ? tag : path.startsWith('/v1/contact-groups') ? group : contact.id;

    for (const route of OURS.filter((r) => r.path.includes('{id}'))) {
      const foreign = await intruder.api(route.method, concretePath(route, idFor(route.path)), route.body);
      const unknown = await intruder.api(route.method, concretePath(route, crypto.randomUUID()), route.body);
      expect(foreign.status, `${route.method} ${route.path}`).toBe(404);
      expect(unknown.status).toBe(404);
      const normalize = (b: any) => JSON.stringify(b).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>');
      expect(normalize(foreign.body), `${route.method} ${route.path}`).toBe(normalize(unknown.body));
    }

    const unchanged = await owner.api('GET', `/v1/contacts/${contact.id}`);
    expect(unchanged.body.city).toBeNull();
    expect((await owner.api('GET', `/v1/contacts/${contact.id}/notes`)).body.map((n: any) => n.body)).toEqual(['private']);
    expect((await owner.api('GET', `/v1/contacts/${contact.id}/consent`)).body.email.consent_state).toBe('unknown');

    for (const path of [
      '/v1/contacts',
      '/v1/tags',
      '/v1/contact-groups',
      '/v1/contacts?search=owner',
      `/v1/contacts?filter=${encodeURIComponent(JSON.stringify({ $jsonb_contains: { tags: [tag] } }))}`,
    ]) {
      const res = await intruder.api('GET', path);
      expect(res.status, path).toBe(200);
      expect(res.body.total, path).toBe(0);
    }
    const sameIdentity = await createContact(intruder, { email: 'owner@example.com', phone: '+14155550170', tags: ['secret'] });
    expect(sameIdentity.duplicate).toBe(false);
    expect(sameIdentity.id).not.toBe(contact.id);
    expect(sameIdentity.tags).not.toEqual(contact.tags);
    expect((await intruder.api('POST', '/v1/tags', { name: 'Secret' })).status).toBe(409);
    expect((await intruder.api('POST', '/v1/contact-groups', { name: 'inner' })).status).toBe(201);
  });

  it('keeps operator routes scoped to the named workspace', async () => {
    const owner = await makeWorkspace({}, { pipeline: false });
    const other = await makeWorkspace({}, { pipeline: false });
    const contact = await createContact(owner, { email: 'o@example.com' });
    expect((await admin('POST', `/workspaces/${other.id}/contacts/${contact.id}/complaints`, { channel: 'email' })).status).toBe(404);
    expect((await admin('POST', `/workspaces/${crypto.randomUUID()}/events`, { name: 'x', start_at: '2026-12-01T00:00:00Z' })).status).toBe(404);
  });
});
