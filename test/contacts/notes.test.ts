import { describe, expect, it } from 'vitest';
import { makeWorkspace, uuidRe } from '../support/harness';
import { createContact } from './helpers';

describe('contact notes', () => {
  it('creates a trimmed API note with null author and in-app fields', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'n@example.com' });
    const res = await ws.api('POST', `/v1/contacts/${c.id}/notes`, { body: '  Called, left a message.  ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(uuidRe),
      workspace_id: ws.id,
      contact_id: c.id,
      author_user_id: null,
      source: 'api',
      body: 'Called, left a message.',
      body_json: null,
      mentioned_user_ids: null,
      conversation_id: null,
      pinned_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('rejects empty, whitespace-only and oversized bodies, and unknown fields', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'n@example.com' });
    for (const body of [{}, { body: '' }, { body: '   ' }, { body: 'x'.repeat(5001) }, { body: 'ok', color: 'red' }, { body: 'ok', pinned: 'yes' }]) {
      const res = await ws.api('POST', `/v1/contacts/${c.id}/notes`, body);
      expect(res.status, JSON.stringify(body).slice(0, 50)).toBe(400);
    }
    expect((await ws.api('POST', `/v1/contacts/${c.id}/notes`, { body: 'x'.repeat(5000) })).status).toBe(201);
  });

  it('lists pinned first (most recently pinned on top), then newest first, with author_name', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'n@example.com' });
    const make = async (body: string, pinned?: boolean) => (await ws.api('POST', `/v1/contacts/${c.id}/notes`, { body, pinned })).body;
    const n1 = await make('one', true);
    const n2 = await make('two');
    const n3 = await make('three');
    const n4 = await make('four', true);
    await new Promise((r) => setTimeout(r, 5));
    await ws.api('PATCH', `/v1/notes/${n1.id}`, { pinned: false });
    await ws.api('PATCH', `/v1/notes/${n2.id}`, { pinned: true });
    const res = await ws.api('GET', `/v1/contacts/${c.id}/notes`);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body.map((n: any) => n.body)).toEqual(['two', 'four', 'three', 'one']);
    expect(res.body[0].author_name).toBeNull();
    expect(n3.id).toBeTruthy();
    const repin = await ws.api('PATCH', `/v1/notes/${n4.id}`, { pinned: true });
    expect(repin.body.pinned_at).toBe(n4.pinned_at);
  });

  it('edits, deletes, and answers the exact 404 wordings', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'n@example.com' });
    const note = (await ws.api('POST', `/v1/contacts/${c.id}/notes`, { body: 'draft' })).body;
    const edited = await ws.api('PATCH', `/v1/notes/${note.id}`, { body: ' final ' });
    expect([edited.status, edited.body.body]).toEqual([200, 'final']);
    expect((await ws.api('PATCH', `/v1/notes/${note.id}`, { body: '' })).status).toBe(400);
    const del = await ws.api('DELETE', `/v1/notes/${note.id}`);
    expect([del.status, del.body]).toEqual([200, { success: true }]);
    const missingNote = { statusCode: 404, message: 'Note not found', error: 'Not Found' };
    expect((await ws.api('DELETE', `/v1/notes/${note.id}`)).body).toEqual(missingNote);
    expect((await ws.api('PATCH', `/v1/notes/${note.id}`, { body: 'x' })).body).toEqual(missingNote);
    const missingContact = { statusCode: 404, message: 'Contact not found', error: 'Not Found' };
    const unknown = crypto.randomUUID();
    expect((await ws.api('GET', `/v1/contacts/${unknown}/notes`)).body).toEqual(missingContact);
    expect((await ws.api('POST', `/v1/contacts/${unknown}/notes`, { body: 'x' })).body).toEqual(missingContact);
    expect((await ws.api('GET', `/v1/contacts/${c.id}/notes`)).body).toEqual([]);
  });
});
