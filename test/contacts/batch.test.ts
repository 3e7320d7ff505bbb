import { describe, expect, it } from 'vitest';
import { makeWorkspace, uuidRe } from '../support/harness';
import { counted, warmWorkspace } from '../support/round-trips';
import { blacklist, createContact, outbox, rows } from './helpers';

const batch = (ws: { api: (m: string, p: string, b?: unknown) => Promise<any> }, contacts: unknown) =>
  ws.api('POST', '/v1/contacts/batch', { contacts });

describe('POST /v1/contacts/batch', () => {
  it('answers 400 for an empty, oversized or non-array list', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    for (const contacts of [[], Array.from({ length: 101 }, (_, i) => ({ email: `n${i}@example.com` })), 'x', { email: 'a@example.com' }]) {
      const res = await batch(ws, contacts);
      expect(res.status).toBe(400);
      expect(res.body.statusCode).toBe(400);
    }
    const extra = await ws.api('POST', '/v1/contacts/batch', { contacts: [{ email: 'a@example.com' }], other: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toEqual(['property other should not exist']);
    const empty = await ws.api('POST', '/v1/contacts/batch', undefined, { rawBody: '' });
    expect(empty.body.message).toEqual(['Request body is required']);
    // Another segment is no route at all, as before the batch route existed.
    const other = await ws.api('POST', '/v1/contacts/batches', { contacts: [{ email: 'a@example.com' }] });
    expect([other.status, other.body]).toEqual([404, { statusCode: 404, message: 'Cannot POST /v1/contacts/batches', error: 'Not Found' }]);
    expect(await rows('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toEqual([]);
  });

  it('answers each item as POST /v1/contacts would alone: a bad item among good ones fails alone, with the same body', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const bad = [{ email: 'not-an-email' }, { phone: 'abc' }, { name: 1 }, { unknown_field: 1 }, { block_state: 'global', email: 'g@example.com' }];
    const alone = [];
    const probe = await makeWorkspace({}, { pipeline: false });
    await createContact(probe, { email: 'g@example.com', block_state: 'global' }).catch(() => undefined);
    for (const body of bad) alone.push(await probe.api('POST', '/v1/contacts', body));
    const res = await batch(ws, [{ email: 'ok1@example.com' }, ...bad, { email: 'ok2@example.com', tags: ['vip'] }]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((d: any) => d.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(res.body.data[0]).toEqual({ index: 0, status: 201, id: expect.stringMatching(uuidRe), duplicate: false });
    expect(res.body.data[6]).toEqual({ index: 6, status: 201, id: expect.stringMatching(uuidRe), duplicate: false });
    for (let i = 0; i < 4; i++) {
      expect(res.body.data[i + 1]).toEqual({ index: i + 1, status: alone[i].status, error: alone[i].body });
      expect(alone[i].status).toBe(400);
    }
    const emails = await rows<any>('SELECT email FROM contacts WHERE workspace_id = ? ORDER BY email', ws.id);
    expect(emails.map((r) => r.email)).toEqual(['g@example.com', 'ok1@example.com', 'ok2@example.com']);
  });

  it('applies items in order: a later item matching an earlier one by email or phone updates it', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const res = await batch(ws, [
      { email: 'dup@example.com', city: 'Rome', tags: ['a'], custom_fields: { x: 1 } },
      { email: 'DUP@example.com ', phone: '+14155550161', city: 'Milan', tags: ['b', 'A'], custom_fields: { y: 2 } },
      { phone: '+14155550161', name: 'Ann Lee' },
      { email: 'other@example.com' },
    ]);
    const [a, b, c, d] = res.body.data;
    expect(a.duplicate).toBe(false);
    expect([b.id, c.id]).toEqual([a.id, a.id]);
    expect([b.duplicate, c.duplicate]).toEqual([true, true]);
    expect(d.duplicate).toBe(false);
    const contact = (await ws.api('GET', `/v1/contacts/${a.id}`)).body;
    expect(contact).toMatchObject({ email: 'dup@example.com', phone: '+14155550161', city: 'Milan', name: 'Ann Lee', custom_fields: { x: 1, y: 2 } });
    expect(contact.tags).toHaveLength(2);
    const tags = await rows<any>('SELECT name FROM tags WHERE workspace_id = ? ORDER BY name', ws.id);
    expect(tags.map((t) => t.name)).toEqual(['a', 'b']);
    const events = await outbox(ws.id);
    expect(events.filter((e) => e.data.contact_id === d.id).map((e) => e.type)).toEqual(['contact.created']);
    const ofA = events.filter((e) => e.data.contact_id === a.id);
    expect(ofA.map((e) => e.type).sort()).toEqual(['contact.created', 'contact.updated', 'contact.updated']);
    const changed = ofA.filter((e) => e.type === 'contact.updated').map((e) => e.data.changed_fields);
    expect(changed).toContainEqual(['city', 'phone', 'custom_fields.y', 'tags']);
    expect(changed).toContainEqual(['name', 'first_name', 'last_name']);
  });

  it('writes nothing and sends no event for an item that changes nothing', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'same@example.com', city: 'Oslo', tags: ['t'] });
    const res = await batch(ws, [{ email: 'same@example.com', city: 'Oslo', tags: ['T'] }]);
    expect(res.body.data).toEqual([{ index: 0, status: 201, id: c.id, duplicate: true }]);
    expect((await outbox(ws.id)).map((e) => e.type)).toEqual(['contact.created']);
  });

  it('keeps the rules of the single route: blacklist, merge requests, contact cap', async () => {
    const ws = await makeWorkspace({ caps: { contacts: 3 } }, { pipeline: false });
    await blacklist(ws, '+14155550171');
    const p = await createContact(ws, { phone: '+14155550172' });
    const e = await createContact(ws, { email: 'held@example.com' });
    const res = await batch(ws, [
      { phone: '+14155550171', email: 'bl@example.com' },
      { phone: '+14155550172', email: 'held@example.com', city: 'Paris' },
      { email: 'third@example.com' },
      { email: 'fourth@example.com' },
    ]);
    const [bl, merge, third, fourth] = res.body.data;
    expect(bl).toEqual({
      index: 0,
      status: 400,
      error: { statusCode: 400, message: 'This phone number is blacklisted in the workspace', error: 'Bad Request', error_code: 'PHONE_BLACKLISTED' },
    });
    expect(merge.status).toBe(409);
    expect(merge.error).toMatchObject({ error_code: 'CONTACT_MERGE_REQUIRED', merge_request_id: expect.stringMatching(uuidRe) });
    const [mr] = await rows<any>('SELECT * FROM contact_merge_requests WHERE id = ?', merge.error.merge_request_id);
    expect(mr).toMatchObject({ target_contact_id: p.id, other_contact_id: e.id, status: 'open' });
    expect(JSON.parse(mr.parked_fields)).toEqual({ city: 'Paris' });
    expect(third).toMatchObject({ status: 201, duplicate: false });
    expect(fourth).toEqual({
      index: 3,
      status: 400,
      error: { statusCode: 400, message: 'Limit reached. Your plan allows at most 3 contacts.', error: 'Bad Request' },
    });
    const again = await batch(ws, [{ phone: '+14155550172', email: 'held@example.com', city: 'Lyon' }]);
    expect(again.body.data[0].error.merge_request_id).toBe(merge.error.merge_request_id);
  });

  it('takes two D1 round trips for a hundred items', async () => {
    const ws = await warmWorkspace();
    await createContact(ws, { email: 'known0@example.com' });
    const contacts = Array.from({ length: 100 }, (_, i) => ({
      email: i % 10 === 0 ? `known${i / 10}@example.com` : `n${i}@example.com`,
      phone: i % 2 ? `+1415555${String(1000 + i).padStart(4, '0')}` : undefined,
      tags: [`t${i % 3}`],
      custom_fields: { i },
    }));
    const res = await counted(ws, 'POST', '/v1/contacts/batch', { contacts });
    expect(res.status).toBe(200);
    expect(res.body.data.filter((d: any) => d.status === 201)).toHaveLength(100);
    expect(res.roundTrips).toBe(2);
    expect(await rows('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toHaveLength(100);
  });

  it('keeps one contact per email when parallel batches overlap', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } }, { pipeline: false });
    const shared = Array.from({ length: 20 }, (_, i) => `shared${i}@example.com`);
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, k) =>
        batch(
          ws,
          shared.map((email, i) => ({ email, city: `City ${k}`, tags: [`k${k}`, 'common'], ...(i === 0 ? { phone: `+1415555020${k}` } : {}) })),
        ),
      ),
    );
    for (const res of answers) expect(res.status).toBe(200);
    for (const res of answers) for (const d of res.body.data) expect(d.status, JSON.stringify(d)).toBe(201);
    const dupes = await rows<any>('SELECT email, count(*) AS n FROM contacts WHERE workspace_id = ? GROUP BY email HAVING n > 1', ws.id);
    expect(dupes).toEqual([]);
    expect(await rows('SELECT id FROM contacts WHERE workspace_id = ?', ws.id)).toHaveLength(20);
    const byEmail = new Map<string, Set<string>>();
    for (const res of answers) for (const d of res.body.data) byEmail.set(shared[d.index], (byEmail.get(shared[d.index]) ?? new Set()).add(d.id));
    for (const ids of byEmail.values()) expect(ids.size).toBe(1);
    expect(answers.flatMap((r) => r.body.data).filter((d: any) => !d.duplicate)).toHaveLength(20);
  });
});
