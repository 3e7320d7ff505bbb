import { describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/platform/context';
import { compileList } from '../../src/modules/contacts/list';
import { shardOf } from '../support/db';
import { adminOk, makeWorkspace, SHARDS, type TestWorkspace } from '../support/harness';
import { createContact, rows } from './helpers';

const ids = (res: { body: any }) => res.body.data.map((c: any) => c.id);
const search = async (ws: TestWorkspace, term: string, more = '') => {
  const res = await ws.api('GET', `/v1/contacts?search=${encodeURIComponent(term)}${more}`);
  expect(res.status, term).toBe(200);
  return res;
};

/** `EXPLAIN QUERY PLAN` of the statements a list request runs, on the workspace's shard. */
async function plans(ws: TestWorkspace, query: Record<string, string>) {
  const list = await compileList({ ws: { id: ws.id, defaultCountry: 'US' } } as ServiceContext, query);
  const shard = await shardOf(ws.id);
  const plan = async (q: { sql: string; params: unknown[] }) =>
    (await shard.prepare(`EXPLAIN QUERY PLAN ${q.sql}`).bind(...q.params).all<{ detail: string }>()).results.map((r) => r.detail);
  return { count: await plan(list.count), page: await plan(list.page) };
}

describe('contact search reads the workspace range of the trigram index', () => {
  it('counts a term from index entries alone: no contact row is read, whatever the shard holds', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    for (let i = 0; i < 3; i++) await createContact(ws, { name: `Quarrington ${i}`, email: `q${i}@example.com` });
    const { count, page } = await plans(ws, { search: 'quarrington' });
    // One range of the index: the MATCH plus both rowid bounds.
    expect(count.some((line) => /contacts_search VIRTUAL TABLE INDEX \d+:M\d+></.test(line)), count.join('\n')).toBe(true);
    // Contacts are read only through covering indexes: the exact-identifier probes (phone, email, id), never a row.
    const reads = count.filter((line) => /^(SEARCH|SCAN) (contacts|c|x) USING/.test(line));
    expect(reads.length, count.join('\n')).toBeGreaterThan(0);
    for (const line of reads) expect(line).toMatch(/USING COVERING INDEX (contacts_workspace_phone|contacts_workspace_email|sqlite_autoindex_contacts_1) /);
    expect(count.join('\n')).not.toMatch(/INTEGER PRIMARY KEY|SCAN c\b/);
    // The page tests walked entries of the sort index against the same range.
    expect(page.join('\n')).toMatch(/contacts_search VIRTUAL TABLE INDEX \d+:M\d+></);
  });

  it('gives each workspace its own range: other workspaces on the shard never count, every write is followed', async () => {
    const a = await makeWorkspace({ rate_limits: { per_key_per_minute: 100_000 }, shard: 'SHARD_0' }, { pipeline: false });
    const b = await makeWorkspace({ shard: 'SHARD_0' }, { pipeline: false });
    const term = `Zephyrine${crypto.randomUUID().slice(0, 6)}`;
    const mine: string[] = [];
    for (let i = 0; i < 4; i++) mine.push((await createContact(a, { name: `${term} ${i}` })).id);
    for (let i = 0; i < 5; i++) await createContact(b, { name: `${term} other ${i}` });
    expect((await search(a, term)).body.total).toBe(4);
    expect((await search(b, term)).body.total).toBe(5);
    const spaces = await rows<{ workspace_id: string; space: number }>('SELECT workspace_id, space FROM contact_search_spaces WHERE workspace_id IN (?, ?)', a.id, b.id);
    expect(spaces).toHaveLength(2);
    expect(spaces[0].space).not.toBe(spaces[1].space);

    // A renamed contact is found by its new name only.
    await a.api('PATCH', `/v1/contacts/${mine[0]}`, { name: 'Renamed Person', company_name: `${term} Ltd` });
    expect(ids(await search(a, 'renamed person'))).toEqual([mine[0]]);
    expect((await search(a, term)).body.total).toBe(4);
    await a.api('PATCH', `/v1/contacts/${mine[0]}`, { company_name: null });
    expect((await search(a, term)).body.total).toBe(3);

    // A merged-away contact leaves the index with its row.
    const absorbed = await createContact(a, { email: `${term.toLowerCase()}@example.com` });
    const target = await createContact(a, { phone: '+14155550190', name: `${term} target` });
    expect((await search(a, term)).body.total).toBe(5);
    const conflict = await a.api('POST', '/v1/contacts', { phone: '+14155550190', email: `${term.toLowerCase()}@example.com` });
    expect(conflict.status).toBe(409);
    await adminOk('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    const after = await search(a, term);
    expect(after.body.total).toBe(4);
    expect(ids(after)).not.toContain(absorbed.id);
    expect(ids(after)).toContain(target.id);
  });

  it('adds exact identifier matches the index does not hold, counting a contact once', async () => {
    for (const shard of SHARDS) {
      const ws = await makeWorkspace({ default_country: 'US', shard }, { pipeline: false });
      const held = await createContact(ws, { name: 'Held Number', phone: '+14155550150', email: 'old.address@example.com' });
      await ws.api('PATCH', `/v1/contacts/${held.id}`, { email: 'new.address@example.com' });
      // In the index as a substring and exactly as E.164: one contact, one count.
      const both = await search(ws, '4155550150');
      expect([both.body.total, ids(both)]).toEqual([1, [held.id]]);
      // Only exactly: a phone written otherwise, and a former email the index no longer holds.
      for (const term of ['(415) 555-0150', 'OLD.ADDRESS@example.com']) {
        const res = await search(ws, term);
        expect([res.body.total, ids(res)], term).toEqual([1, [held.id]]);
      }
      const none = await search(ws, 'no such text');
      expect([none.body.total, none.body.data]).toEqual([0, []]);
    }
  });
});
