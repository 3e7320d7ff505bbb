import { describe, expect, it } from 'vitest';
import { adminOk, makeWorkspace, SHARDS, type TestWorkspace } from '../support/harness';
import { createContact, listPlan, planUnder, rows } from './helpers';

const ids = (res: { body: any }) => res.body.data.map((c: any) => c.id);
const search = async (ws: TestWorkspace, term: string, more = '') => {
  const res = await ws.api('GET', `/v1/contacts?search=${encodeURIComponent(term)}${more}`);
  expect(res.status, term).toBe(200);
  return res;
};

describe('contact search reads the workspace range of the trigram index', () => {
  it('lists the matches of a term once, from index entries alone: the count reads that list, no contact row', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    for (let i = 0; i < 3; i++) await createContact(ws, { name: `Quarrington ${i}`, email: `q${i}@example.com` });
    const plan = await listPlan(ws, { search: 'quarrington' });
    const matched = planUnder(plan, 'MATERIALIZE matched');
    // One range of the index: the MATCH plus both rowid bounds.
    expect(
      matched.some((line) => /contacts_search VIRTUAL TABLE INDEX \d+:M\d+></.test(line)),
      matched.join('\n'),
    ).toBe(true);
    // Contacts are read only through covering indexes: the exact-identifier probes (phone, email, id), never a row.
    const reads = matched.filter((line) => /^(SEARCH|SCAN) (contacts|c|x) USING/.test(line));
    expect(reads.length, matched.join('\n')).toBeGreaterThan(0);
    for (const line of reads) expect(line).toMatch(/USING COVERING INDEX (contacts_workspace_phone|contacts_workspace_email|contacts_id) /);
    expect(matched.join('\n')).not.toMatch(/INTEGER PRIMARY KEY|SCAN c\b/);
    // The index is read once: the count, the judgement of the matches' number and the page read the list.
    expect(plan.filter((row) => row.detail.includes('contacts_search VIRTUAL TABLE INDEX') && row.detail.includes('><'))).toHaveLength(1);
    // The page walks the sort's index or reads each match by rowid: never a scan of another index of the workspace.
    for (const line of plan.map((row) => row.detail).filter((l) => /^(SEARCH|SCAN) c\b/.test(l))) {
      expect(line).toMatch(/^SEARCH c USING (INTEGER PRIMARY KEY \(rowid=\?\)|COVERING INDEX contacts_workspace_created \(workspace_id=\?\))$/);
    }
    const count = planUnder(plan, 'LEFT');
    expect(count).toContain('SCAN matched');
    expect(count.join('\n')).not.toMatch(/SEARCH c |SCAN c\b/);
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
    const spaces = await rows<{ workspace_id: string; space: number }>(
      'SELECT workspace_id, space FROM contact_search_spaces WHERE workspace_id IN (?, ?)',
      a.id,
      b.id,
    );
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
