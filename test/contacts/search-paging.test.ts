import { beforeAll, describe, expect, it } from 'vitest';
import { makeWorkspace, type TestWorkspace } from '../support/harness';
import { createContact } from './helpers';

// A term with many matches pages by walking the sort's index, one with few by sorting its matches
// (more than ten matches per row asked for is "many"): both ways must give the same pages.
describe('search pages, whichever way the page is found', () => {
  let ws: TestWorkspace;
  let newestFirst: string[];
  const term = `Quillon${crypto.randomUUID().slice(0, 6)}`;
  const page = async (q: string) => (await ws.api('GET', `/v1/contacts?search=${term}&${q}`)).body;

  beforeAll(async () => {
    ws = await makeWorkspace({}, { pipeline: false });
    const other = await makeWorkspace({}, { pipeline: false });
    const made: { id: string; created_at: string }[] = [];
    for (let i = 0; i < 24; i++) {
      made.push(await createContact(ws, { name: `${term} ${i}`, lead_score: (i * 7) % 24, ...(i % 3 === 0 ? { tags: ['vip'] } : {}) }));
      // Another workspace's matches count towards "many" but never appear.
      await createContact(other, { name: `${term} other ${i}` });
    }
    // The newest contacts do not match: a walk must skip them.
    for (let i = 0; i < 3; i++) await createContact(ws, { name: `Unrelated ${i}`, lead_score: 30 });
    newestFirst = made
      .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1))
      .map((c) => c.id);
  });

  it('walks the index for a small page (many matches per row) and sorts for a large one, with the same order', async () => {
    const walked = await page('limit=2');
    expect(walked.total).toBe(24);
    expect(walked.data.map((c: any) => c.id)).toEqual(newestFirst.slice(0, 2));
    const sorted = await page('limit=100');
    expect(sorted.total).toBe(24);
    expect(sorted.data.map((c: any) => c.id)).toEqual(newestFirst);
    const later = await page('limit=2&offset=6');
    expect(later.data.map((c: any) => c.id)).toEqual(newestFirst.slice(6, 8));
  });

  it('keeps other sorts and filters exact on the walked page', async () => {
    const byScore = await page('limit=3&sort=lead_score');
    expect(byScore.data.map((c: any) => c.lead_score)).toEqual([0, 1, 2]);
    const filter = encodeURIComponent(JSON.stringify({ $where: { field: 'lead_score', op: 'gte', value: 20 } }));
    const filtered = await page(`limit=1&filter=${filter}`);
    expect(filtered.total).toBe(4);
    expect(filtered.data).toHaveLength(1);
    expect(filtered.data[0].lead_score).toBeGreaterThanOrEqual(20);
    expect(filtered.data[0].name).toContain(term);
  });
});
