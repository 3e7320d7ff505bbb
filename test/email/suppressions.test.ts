import { describe, expect, it } from 'vitest';
import { adminOk } from '../support/harness';
import { emailWorkspace } from './support';

describe('suppressions', () => {
  it('adds with reason manual by default; a re-add (any case) answers 201 duplicate: true with the existing row', async () => {
    const { ws } = await emailWorkspace();
    const first = await ws.api('POST', '/v1/suppressions', { email: ' Ann@Example.com ', note: 'asked by phone' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      id: expect.any(String),
      email: 'ann@example.com',
      reason: 'manual',
      source: 'api',
      note: 'asked by phone',
      created_at: expect.any(String),
      duplicate: false,
    });
    const again = await ws.api('POST', '/v1/suppressions', { email: 'ANN@example.com', reason: 'bounce' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual({ ...first.body, duplicate: true });
  });

  it('validates the body in the domain envelope', async () => {
    const { ws } = await emailWorkspace();
    for (const body of [
      {},
      { email: 'nope' },
      { email: 'a@example.com', reason: 'other' },
      { email: 'a@example.com', note: 'x'.repeat(501) },
      { email: `${'a'.repeat(250)}@e.com` },
      { email: 'a@example.com', extra: 1 },
    ]) {
      const res = await ws.api('POST', '/v1/suppressions', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });

  it('adds one row for parallel adds of one address', async () => {
    const { ws } = await emailWorkspace();
    const answers = await Promise.all(Array.from({ length: 8 }, () => ws.api('POST', '/v1/suppressions', { email: 'race@example.com' })));
    expect(answers.every((r) => r.status === 201)).toBe(true);
    expect(answers.filter((r) => !r.body.duplicate)).toHaveLength(1);
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(1);
  });

  it('lists newest first with exact case-insensitive email filter and paging 0..500, default 50', async () => {
    const { ws } = await emailWorkspace();
    for (let i = 0; i < 3; i++) await ws.api('POST', '/v1/suppressions', { email: `s${i}@example.com` });
    const all = await ws.api('GET', '/v1/suppressions');
    expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.body.data.map((r: any) => r.email)).toEqual(['s2@example.com', 's1@example.com', 's0@example.com']);
    expect((await ws.api('GET', '/v1/suppressions?email=S1@EXAMPLE.COM')).body.data.map((r: any) => r.email)).toEqual(['s1@example.com']);
    expect((await ws.api('GET', '/v1/suppressions?email=s1@example')).body.data).toEqual([]);
    expect((await ws.api('GET', '/v1/suppressions?limit=0')).body).toMatchObject({ data: [], total: 3, limit: 0 });
    expect((await ws.api('GET', '/v1/suppressions?limit=1&offset=1')).body.data.map((r: any) => r.email)).toEqual(['s1@example.com']);
    expect((await ws.api('GET', '/v1/suppressions?limit=5000')).body.limit).toBe(500);
    for (const q of ['limit=-1', 'limit=abc', 'limit=1.5', 'offset=-2', 'offset=x']) {
      const res = await ws.api('GET', `/v1/suppressions?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });

  it("deletes this workspace's row only: 200 {success: true}, then 404 suppression_not_found; a non-UUID id is a 400", async () => {
    const { ws } = await emailWorkspace();
    const other = await emailWorkspace();
    const row = (await ws.api('POST', '/v1/suppressions', { email: 'd@example.com' })).body;
    expect((await other.ws.api('DELETE', `/v1/suppressions/${row.id}`)).body.error.code).toBe('suppression_not_found');
    const gone = await ws.api('DELETE', `/v1/suppressions/${row.id.toUpperCase()}`);
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ success: true });
    const again = await ws.api('DELETE', `/v1/suppressions/${row.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: { code: 'suppression_not_found', message: expect.any(String) } });
    const bad = await ws.api('DELETE', '/v1/suppressions/not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
  });

  it('never lists or removes platform-global rows', async () => {
    const { ws } = await emailWorkspace();
    const address = `${crypto.randomUUID()}@global.example`;
    await adminOk('POST', '/global-suppressions', { email: address });
    expect((await ws.api('GET', '/v1/suppressions')).body.total).toBe(0);
    // Adding it to the workspace list and removing that row leaves the global block in place.
    const own = (await ws.api('POST', '/v1/suppressions', { email: address })).body;
    await ws.api('DELETE', `/v1/suppressions/${own.id}`);
    expect((await ws.api('POST', '/v1/emails', { to: address, subject: 'x', text: 'x', idempotency_key: 'g' })).body.status).toBe('suppressed');
  });

  it('never changes consent: adding suppresses, removing lifts the block and resubscribes no one', async () => {
    const { ws } = await emailWorkspace();
    const subscribed = (await ws.api('POST', '/v1/contacts', { email: 'sub@example.com' })).body;
    const unsubscribed = (await ws.api('POST', '/v1/contacts', { email: 'unsub@example.com' })).body;
    await ws.api('PUT', `/v1/contacts/${subscribed.id}/consent/email`, { state: 'subscribed' });
    await ws.api('PUT', `/v1/contacts/${unsubscribed.id}/consent/email`, { state: 'unsubscribed' });
    const consent = async (id: string) => (await ws.api('GET', `/v1/contacts/${id}/consent`)).body.email;

    const rows = [];
    for (const email of ['sub@example.com', 'unsub@example.com'])
      rows.push((await ws.api('POST', '/v1/suppressions', { email, reason: 'unsubscribe' })).body);
    expect(await consent(subscribed.id)).toMatchObject({ consent_state: 'subscribed', suppressed: true });
    expect(await consent(unsubscribed.id)).toMatchObject({ consent_state: 'unsubscribed', suppressed: true });

    for (const row of rows) await ws.api('DELETE', `/v1/suppressions/${row.id}`);
    expect(await consent(subscribed.id)).toMatchObject({ consent_state: 'subscribed', suppressed: false });
    expect(await consent(unsubscribed.id)).toMatchObject({ consent_state: 'unsubscribed', suppressed: false });
    expect((await ws.api('GET', `/v1/contacts/${subscribed.id}`)).status).toBe(200);
  });
});
