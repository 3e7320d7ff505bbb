import { describe, expect, it } from 'vitest';
import { listDeals } from '../../src/modules/deals/list';
import { listPayments } from '../../src/modules/payments/list';
import { createDeal } from '../deals/helpers';
import { shardOf } from '../support/db';
import { makeWorkspace, type TestWorkspace } from '../support/harness';
import { readsOf, statementOf } from '../support/list-statement';
import { createPayment, freshPhone } from './helpers';

type Row = { id: string; title: string | null; contact_name: string | null; contact_phone: string | null; contact_email: string | null };

/** The contract's rule: a literal substring of the title or the contact's name, phone or email, SQLite `lower()` folding ASCII letters only. */
const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const matches = (term: string) => (r: Row) =>
  [r.title, r.contact_name, r.contact_phone, r.contact_email].some((v) => asciiLower(v ?? '').includes(asciiLower(term)));

async function listOf(ws: TestWorkspace, path: string, query = '') {
  const res = await ws.api('GET', `${path}?limit=100${query}`);
  expect(res.status, query).toBe(200);
  return res.body as { total: number; data: Row[] };
}

/** Every term and page of a search answers what the rule selects from the whole list, in its order, with the exact total. */
async function expectSearchAsRule(ws: TestWorkspace, path: string, terms: string[], limit = 2) {
  const all = (await listOf(ws, path)).data;
  for (const term of terms) {
    const expected = all.filter(matches(term.trim())).map((r) => r.id);
    const searched = await listOf(ws, path, `&search=${encodeURIComponent(term)}`);
    expect(
      searched.data.map((r) => r.id),
      term,
    ).toEqual(expected);
    expect(searched.total, term).toBe(expected.length);
    for (let offset = 0; offset <= expected.length; offset += limit) {
      const page = await ws.api('GET', `${path}?search=${encodeURIComponent(term)}&limit=${limit}&offset=${offset}`);
      expect(page.body.total, `${term} at ${offset}`).toBe(expected.length);
      expect(
        page.body.data.map((r: Row) => r.id),
        `${term} at ${offset}`,
      ).toEqual(expected.slice(offset, offset + limit));
    }
  }
}

describe('GET /v1/payments?search=', () => {
  it('matches the title or the contact name, phone or email as a literal substring, ASCII case folded, with exact totals on every page', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 100_000 } });
    const other = await makeWorkspace();
    const phone = freshPhone();
    await createPayment(other, { title: 'Alpha lesson', name: 'Searchable Sam' });
    await createPayment(ws, { title: 'Alpha lesson', name: 'Searchable Sam', phone, purchase_date: '2026-01-01' });
    await createPayment(ws, { title: 'Ärger Gebühr', name: 'Zoë Ångström', purchase_date: '2026-01-02' });
    await createPayment(ws, { title: '100% off', name: 'Percy Cent', purchase_date: '2026-01-03' });
    await createPayment(ws, { title: '50_50 split', name: 'Una Score', purchase_date: '2026-01-04' });
    await createPayment(ws, { title: '5050 split', name: 'Plain Digits', purchase_date: '2026-01-05' });
    await createPayment(ws, { name: 'No Title', email: 'quiet.buyer@example.org', phone: undefined, purchase_date: '2026-01-06' });
    const pat = await createPayment(ws, { title: 'Lesson 0', name: 'Pagination Pat', purchase_date: '2026-02-01' });
    // Seven payments of one contact, two on the same day (the id orders those).
    for (let i = 1; i < 7; i++)
      await createPayment(ws, { title: `Lesson ${i}`, contact_id: pat.contact_id, phone: undefined, purchase_date: `2026-02-0${Math.min(i, 5)}` });

    await expectSearchAsRule(ws, '/v1/payments', [
      'alpha',
      'ALPHA LES',
      'sam',
      'SEARCHABLE',
      phone.slice(-6),
      'QUIET.BUYER@',
      'example.org',
      // Non-ASCII letters match in their own case only (SQLite lower()), whichever way the term is spelled.
      'Ärger',
      'ärger',
      'ZOË',
      'Zoë',
      'ångström',
      'Ångström',
      'Ö',
      'ö',
      // LIKE's metacharacters are plain characters.
      '%',
      '0%',
      '% o',
      '_',
      '0_5',
      '50_50',
      // Short terms, below trigram size; paging over many matches.
      'al',
      'a',
      'pat',
      'Lesson',
      '  lesson 1 ',
      'nothing at all',
    ]);
    // Exact totals under the other filters too.
    expect((await ws.api('GET', '/v1/payments?search=lesson&status=completed&limit=1')).body.total).toBe(8);
    expect((await ws.api('GET', '/v1/payments?search=le&type=installments')).body.total).toBe(0);
  });

  it('follows the title and the contact as they change, move or go', async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { title: 'Old title', name: 'Ada Lovelace', email: 'ada@example.com' });
    const q = await createPayment(ws, { title: 'Other', name: 'Grace Hopper' });
    const ids = async (term: string) => (await listOf(ws, '/v1/payments', `&search=${encodeURIComponent(term)}`)).data.map((r) => r.id);
    expect((await ws.api('PATCH', `/v1/contacts/${p.contact_id}`, { name: 'Augusta King', email: 'augusta@example.com' })).status).toBe(200);
    expect((await ws.api('PATCH', `/v1/payments/${p.id}`, { title: 'New title' })).status).toBe(200);
    for (const [term, expected] of [
      ['lovelace', []],
      ['augusta king', [p.id]],
      ['ada@', []],
      ['augusta@', [p.id]],
      ['old', []],
      ['new title', [p.id]],
    ] as const) {
      expect(await ids(term), term).toEqual(expected);
    }
    // A contact merged away (deleted, its payments moved to the target), as the merge batch writes it.
    const shard = await shardOf(ws.id);
    await shard.batch([
      shard.prepare('DELETE FROM contacts WHERE workspace_id = ? AND id = ?').bind(ws.id, q.contact_id),
      shard.prepare('UPDATE payments SET contact_id = ? WHERE workspace_id = ? AND contact_id = ?').bind(p.contact_id, ws.id, q.contact_id),
    ]);
    expect(await ids('hopper')).toEqual([]);
    expect(await ids('augusta')).toEqual([q.id, p.id]);
    // The index equals the payments and their contacts' identity, row for row.
    const drift = await shard
      .prepare(
        `SELECT count(*) AS n FROM payments p LEFT JOIN contacts c ON c.id = p.contact_id AND c.workspace_id = p.workspace_id LEFT JOIN contact_search_spaces s ON s.workspace_id = p.workspace_id
          LEFT JOIN payments_search f ON f.rowid = s.space * 1099511627776 + p.rowid
          WHERE p.workspace_id = ? AND (f.rowid IS NULL OR f.title IS NOT p.title OR f.contact_name IS NOT c.name OR f.contact_phone IS NOT c.phone OR f.contact_email IS NOT c.email)`,
      )
      .bind(ws.id)
      .first<{ n: number }>();
    expect(drift?.n).toBe(0);
  });

  it('a term of 3+ characters reads its matches through the search index, never the workspace: no scan of payments or contacts', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 100_000 } });
    for (let i = 0; i < 40; i++) await createPayment(ws, { title: `Filler ${i}`, name: `Someone ${i}` });
    await createPayment(ws, { title: 'Needle one', name: 'Nadia Needleman' });
    await createPayment(ws, { title: 'Two', name: 'Ned Eyes', email: 'needle@example.com' });
    for (const query of [{ search: 'needle' }, { search: 'needle', status: 'completed', limit: '1', offset: '1' }]) {
      const { plan, rowsRead } = await statementOf(ws, (ctx) => listPayments(ctx, query));
      expect(
        plan.some((line) => /^SCAN payments_search VIRTUAL TABLE INDEX \d+:M/.test(line)),
        plan.join('\n'),
      ).toBe(true);
      for (const line of readsOf(plan, 'payments')) expect(line, plan.join('\n')).toBe('SEARCH payments USING INTEGER PRIMARY KEY (rowid=?)');
      // Contacts are read only for the page's rows, by id.
      for (const line of readsOf(plan, 'contacts')) expect(line, plan.join('\n')).toMatch(/^SEARCH contacts USING INDEX contacts_id \(id=\?\)/);
      // Fewer rows read in all (the index's included) than the workspace holds payments.
      expect(rowsRead, plan.join('\n')).toBeLessThan(40);
    }
    expect((await listOf(ws, '/v1/payments', '&search=needle')).total).toBe(2);
  });

  it('a term of 1-2 characters tests each payment of the workspace on its index row, not its contact', async () => {
    const ws = await makeWorkspace();
    await createPayment(ws, { title: 'Plain', name: 'Xi' });
    const { plan } = await statementOf(ws, (ctx) => listPayments(ctx, { search: 'xi' }));
    for (const line of readsOf(plan, 'payments'))
      expect(line, plan.join('\n')).toMatch(/^SEARCH payments USING (COVERING )?INDEX payments_workspace_\w+ \(workspace_id=\?\)$/);
    expect(
      plan.filter((line) => /^SCAN payments_search (EXISTS )?VIRTUAL TABLE INDEX \d+:=/.test(line)),
      plan.join('\n'),
    ).toHaveLength(2);
    for (const line of readsOf(plan, 'contacts'))
      expect(line, plan.join('\n')).toMatch(/^SEARCH contacts USING INDEX contacts_id \(id=\?\) LEFT-JOIN$/);
    expect(readsOf(plan, 'contacts')).toHaveLength(1);
  });
});

describe('GET /v1/deals?search=', () => {
  it('shares the rule, the exact totals and the plan: the search index, no scan of deals or contacts', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 100_000 } });
    const first = await createDeal(ws, { title: 'Gamma 100%', name: 'Maria López', email: 'maria@shop.example' });
    for (let i = 0; i < 4; i++) await createDeal(ws, { title: `Deal_${i}`, contact_id: first.contact_id, phone: undefined });
    await createDeal(ws, { title: 'Other', name: 'Ömer Öztürk' });
    await expectSearchAsRule(ws, '/v1/deals', ['lópez', 'LÓPEZ', 'maria', 'SHOP.EX', '%', '_1', 'deal_', 'Ö', 'öztürk', 'Öztürk', 'me']);
    const { plan } = await statementOf(ws, (ctx) => listDeals(ctx, { search: 'maria' }));
    expect(
      plan.some((line) => /^SCAN deals_search VIRTUAL TABLE INDEX \d+:M/.test(line)),
      plan.join('\n'),
    ).toBe(true);
    for (const line of readsOf(plan, 'deals')) expect(line, plan.join('\n')).toBe('SEARCH deals USING INTEGER PRIMARY KEY (rowid=?)');
    for (const line of readsOf(plan, 'contacts')) expect(line, plan.join('\n')).toMatch(/^SEARCH contacts USING INDEX contacts_id \(id=\?\)/);
  });
});
