import { sql } from 'drizzle-orm';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { contactCatalog } from '../../src/modules/contacts/catalog';
import { pageWalkIndex } from '../../src/modules/contacts/list';
import { compileFilter, filterWith, type FilterCatalog } from '../../src/platform/filter';
import { shardOf } from '../support/db';
import { makeWorkspace, type TestWorkspace } from '../support/harness';
import { createContact, filterQuery, listPlan, planUnder } from './helpers';

/**
 * Conditions on custom fields, tags and groups are answered from index-kept
 * sets, and a filter that is exactly such a set is counted from it. The
 * reference is the plain per-row form of the same tree (`json_extract` of the
 * stored JSON, the consent columns read through `coalesce`), run directly on
 * the shard: both must select the same contacts, `not` and missing keys included.
 */
const dialect = new SQLiteSyncDialect();
const { customValues: _sets, ...perRow } = contactCatalog;
const perRowCatalog: FilterCatalog = {
  ...perRow,
  fields: Object.fromEntries(Object.entries(contactCatalog.fields).map(([name, { truth: _truth, ...def }]) => [name, def])),
};

async function reference(ws: TestWorkspace, filter: Record<string, unknown>): Promise<string[]> {
  const { where, values } = compileFilter(filter, perRowCatalog, ws.id);
  const query = dialect.sqlToQuery(sql`${filterWith(values)} SELECT c.id FROM fp CROSS JOIN contacts c WHERE c.workspace_id = ${ws.id} AND ${where}`);
  const { results } = await (await shardOf(ws.id))
    .prepare(query.sql)
    .bind(...query.params)
    .all<{ id: string }>();
  return results.map((r) => r.id).sort();
}

async function listed(ws: TestWorkspace, filter: Record<string, unknown>) {
  const res = await ws.api('GET', `/v1/contacts?limit=500&${filterQuery(filter)}`);
  expect(res.status, JSON.stringify(filter)).toBe(200);
  return { total: res.body.total as number, ids: (res.body.data as { id: string }[]).map((c) => c.id).sort() };
}

async function expectSameAsPerRow(ws: TestWorkspace, filters: Record<string, unknown>[]) {
  for (const filter of filters) {
    const expected = await reference(ws, filter);
    const got = await listed(ws, filter);
    expect(got.ids, JSON.stringify(filter)).toEqual(expected);
    expect(got.total, JSON.stringify(filter)).toBe(expected.length);
  }
}

const cf = (field: string, op: string, value?: unknown) => ({ field: `custom_fields.${field}`, op, ...(value === undefined ? {} : { value }) });

describe('filters answered from index-kept sets', () => {
  it('custom-field conditions select exactly what the stored JSON holds, under not and for missing keys', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const seeds: Record<string, unknown>[] = [
      { plan: 'gold', seats: 5, active: true, meta: { tier: 1 } },
      { plan: 'Gold', seats: 12.5, active: false },
      { plan: 'silver', seats: '5', ratio: 0.5 },
      { plan: null, seats: 3 },
      { other: 'x' },
      {},
      { plan: 'golden', list: [1, 2] },
    ];
    const made = [];
    for (const [i, custom_fields] of seeds.entries())
      made.push(await createContact(ws, { name: `C${i}`, lifecycle_stage: i % 2 ? 'lead' : 'customer', custom_fields }));
    const trees = [
      { $where: cf('plan', 'eq', 'gold') },
      { 'custom_fields.plan': 'gold' },
      { 'custom_fields.plan': ['gold', 'silver'] },
      { $where: cf('plan', 'in', ['gold', null]) },
      { $where: cf('seats', 'gt', 4) },
      { $where: cf('seats', 'gte', 5) },
      { $where: cf('seats', 'lt', '6') },
      { $where: cf('seats', 'lte', 5) },
      { $where: cf('seats', 'eq', '5') },
      { $where: cf('active', 'eq', true) },
      { $where: cf('active', 'eq', false) },
      { $where: cf('plan', 'starts_with', 'GO') },
      { $where: cf('plan', 'contains', 'ol') },
      { $where: cf('plan', 'ends_with', 'en') },
      { $where: cf('meta', 'contains', 'tier') },
      { $where: cf('list', 'eq', '[1,2]') },
      { $where: cf('plan', 'is_not_null') },
      { $where: cf('plan', 'is_null') },
      { $where: cf('plan', 'eq', null) },
      { $where: cf('plan', 'neq', 'gold') },
      { $where: cf('plan', 'not_in', ['gold']) },
      { $where: cf('plan', 'not_contains', 'old') },
      { $where: { not: cf('plan', 'eq', 'gold') } },
      { $where: { not: { or: [cf('plan', 'eq', 'gold'), cf('seats', 'gt', 10)] } } },
      { $where: { and: [cf('plan', 'starts_with', 'g'), cf('seats', 'gte', 5)] } },
      { $where: { or: [cf('plan', 'eq', 'silver'), cf('seats', 'lt', 4)] } },
      { $where: { or: [cf('plan', 'eq', 'gold'), cf('plan', 'starts_with', 'SIL'), cf('plan', 'in', ['golden'])] } },
      { $where: { and: [{ or: [cf('plan', 'eq', 'gold'), cf('plan', 'eq', 'Gold')] }, { or: [cf('seats', 'gte', 5), cf('active', 'eq', true)] }] } },
      { $where: { or: [cf('plan', 'eq', 'silver'), { field: 'lifecycle_stage', op: 'eq', value: 'lead' }] } },
      { $where: { and: [cf('plan', 'is_not_null'), { not: cf('seats', 'eq', 5) }] } },
    ];
    await expectSameAsPerRow(ws, trees);

    // The rows follow every write: a replaced value, a removed key.
    await ws.api('PATCH', `/v1/contacts/${made[0].id}`, { custom_fields: { plan: 'silver', seats: null } });
    await ws.api('PATCH', `/v1/contacts/${made[2].id}`, { custom_fields: { plan: 'gold' } });
    await expectSameAsPerRow(ws, trees);
  });

  it('pages of a set walk the sort index when members are many and sort them when few, in the same order', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 100_000 } }, { pipeline: false });
    for (let i = 0; i < 24; i++) {
      await createContact(ws, {
        name: `P${String(i).padStart(2, '0')}`,
        lead_score: i % 5,
        custom_fields: { plan: i % 2 ? 'gold' : 'free', n: i },
        tags: i % 3 ? ['many'] : ['many', 'few'],
      });
    }
    const tags = (await ws.api('GET', '/v1/tags?sort=name')).body.data as { id: string; name: string }[];
    const tag = (name: string) => tags.find((t) => t.name === name)!.id;
    // With `limit=1` a set of over 10 members is walked (gold: 12, many: 24); one of 8 (few) or 1 (n = 7) is sorted.
    const trees = [
      { $where: cf('plan', 'eq', 'gold') },
      { $where: { or: [cf('plan', 'eq', 'gold'), cf('n', 'lt', 3)] } },
      { $jsonb_contains: { tags: [tag('many')] } },
      { $jsonb_contains: { tags: [tag('few'), tag('many')] } },
      { $where: cf('n', 'eq', 7) },
    ];
    for (const filter of trees) {
      const expected = await reference(ws, filter);
      for (const sort of ['-created_at', 'lead_score', 'email']) {
        const seen: string[] = [];
        for (let offset = 0; offset < expected.length + 1; offset++) {
          const res = await ws.api('GET', `/v1/contacts?limit=1&offset=${offset}&sort=${sort}&${filterQuery(filter)}`);
          expect(res.body.total, JSON.stringify(filter)).toBe(expected.length);
          seen.push(...res.body.data.map((c: { id: string }) => c.id));
        }
        const full = await ws.api('GET', `/v1/contacts?limit=500&sort=${sort}&${filterQuery(filter)}`);
        expect(seen, `${sort} ${JSON.stringify(filter)}`).toEqual(full.body.data.map((c: { id: string }) => c.id));
        expect([...seen].sort()).toEqual(expected);
      }
    }
  });

  it('a filter that is exactly a set is counted from the index rows, not by reading each contact', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const gold = await createContact(ws, { name: 'Gold', custom_fields: { plan: 'gold' }, tags: ['vip'] });
    await createContact(ws, { name: 'Free', custom_fields: { plan: 'free' } });
    const tagId = gold.tags[0];
    const shard = await shardOf(ws.id);
    // A row no contact stands behind (never written by the service): only a count taken from the set sees it.
    const stray = crypto.randomUUID();
    await shard
      .prepare("INSERT INTO contact_custom_values (workspace_id, contact_id, key, value) VALUES (?, ?, 'plan', 'gold')")
      .bind(ws.id, stray)
      .run();
    await shard
      .prepare('INSERT INTO contact_tag_links (workspace_id, contact_id, tag_id, created_at) VALUES (?, ?, ?, ?)')
      .bind(ws.id, stray, tagId, new Date().toISOString())
      .run();

    for (const filter of [
      { $where: cf('plan', 'eq', 'gold') },
      { $jsonb_contains: { tags: [tagId] } },
      { $where: { or: [cf('plan', 'eq', 'gold'), cf('plan', 'eq', 'none')] } },
    ]) {
      const got = await listed(ws, filter);
      expect(got.ids, JSON.stringify(filter)).toEqual([gold.id]);
      expect(got.total, JSON.stringify(filter)).toBe(2);
    }
    // Mixed with a per-row condition, the contacts are read: the stray row is not counted.
    const mixed = await listed(ws, { $where: { and: [cf('plan', 'eq', 'gold'), { field: 'name', op: 'eq', value: 'Gold' }] } });
    expect(mixed).toEqual({ total: 1, ids: [gold.id] });
  });

  it('alternative values of one custom field are one seek each of its index, packed (a page) or not (a count), and select what the per-row form does', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    for (const plan of ['free', 'free', 'gold', 'pro', 'starter']) await createContact(ws, { custom_fields: { plan } });
    const alternatives = { $where: { or: [cf('plan', 'eq', 'gold'), { or: [cf('plan', 'eq', 'starter'), cf('plan', 'eq', 'none')] }] } };
    await expectSameAsPerRow(ws, [alternatives, { $where: { or: [cf('plan', 'eq', 'gold'), cf('plan', 'starts_with', 'fr')] } }]);
    const shard = await shardOf(ws.id);
    for (const packed of [false, true]) {
      const { rows, values } = compileFilter(alternatives, contactCatalog, ws.id, { packed });
      const query = dialect.sqlToQuery(sql`${filterWith(values)} SELECT count(*) AS n FROM (${rows!.gauge})`);
      const plan = await shard
        .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
        .bind(...query.params)
        .all<{ detail: string }>();
      const seeks = plan.results.map((r) => r.detail).filter((d) => d.includes('contact_custom_values_lookup'));
      // Without IN, SQLite reads a packed OR by walking every value the key holds in the workspace.
      expect(seeks, `packed: ${packed}`).toEqual([expect.stringContaining('(workspace_id=? AND key=? AND value=?)')]);
      const [{ n }] = (
        await shard
          .prepare(query.sql)
          .bind(...query.params)
          .all<{ n: number }>()
      ).results;
      expect(n).toBe(2);
    }
  });

  it('eq and starts_with on indexed columns select exactly what the per-row form does, however they nest', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 100_000 } }, { pipeline: false });
    const other = await makeWorkspace({}, { pipeline: false });
    const people: Record<string, unknown>[] = [
      {
        name: 'Anna Hooli',
        first_name: 'Anna',
        company_name: 'Hooli Labs',
        country: 'DE',
        lifecycle_stage: 'customer',
        lead_score: 7,
        custom_fields: { plan: 'gold' },
      },
      { name: 'andré', first_name: 'andré', company_name: 'hooligan co', country: 'US', lifecycle_stage: 'lead', lead_score: 7 },
      { name: 'Ana', first_name: 'Ana', company_name: 'HOOVER', country: 'de', email: 'ana@example.com' },
      { name: 'Bob', first_name: 'Bob', company_name: 'Hoöli', country: 'DE', custom_fields: { plan: 'gold' } },
      { name: 'An_na', first_name: 'an_na', company_name: 'ho%li', phone: '+14155550100' },
      { name: 'Zed', company_name: 'ho_li', country: 'FR' },
      { name: 'Nobody' },
      { name: 'Änne', first_name: 'Änne', company_name: 'Ünion', country: 'FR' },
      { name: 'änne', company_name: 'ünion', country: 'FR' },
      { name: 'Hop', company_name: 'Hop', country: 'DE' },
      { name: 'Hon', company_name: 'Hon', country: 'DE' },
      { name: 'At', company_name: '@home', country: 'DE' },
    ];
    for (const body of people) await createContact(ws, body);
    await createContact(other, { name: 'Foreign', company_name: 'Hooli', country: 'DE' });
    const starts = (field: string, value: string) => ({ field, op: 'starts_with', value });
    const eq = (field: string, value: unknown) => ({ field, op: 'eq', value });
    const trees = [
      ...['hoo', 'HOO', 'hOo', 'hooli labs', 'h', 'ho%', 'ho_', 'Ü', 'ü', '@', '', 'zzz'].map((value) => ({ $where: starts('company_name', value) })),
      { $where: { or: [starts('company_name', 'hoo'), { and: [eq('country', 'DE'), starts('first_name', 'an')] }] } },
      { country: 'DE' },
      { country: 'de' },
      { $where: { and: [eq('country', 'DE'), starts('first_name', 'an')] } },
      { $where: { and: [starts('company_name', 'hoo'), eq('country', 'DE')] } },
      { 'custom_fields.plan': 'gold', country: 'DE' },
      { $where: { or: [eq('country', 'FR'), eq('lifecycle_stage', 'customer'), eq('lead_score', 7)] } },
      { $where: { or: [eq('country', 'FR'), eq('email_subscribed', true)] } },
      { $where: { not: starts('company_name', 'hoo') } },
      { $where: { not: { and: [eq('country', 'DE'), starts('name', 'h')] } } },
      { $where: { or: [starts('company_name', 'hoo'), eq('city', 'x')] } },
      { $where: { and: [starts('last_name', 'x'), starts('name', 'an')] } },
      { email: 'ana@example.com' },
      { phone: '+14155550100' },
      { name: 'Zed' },
    ];
    await expectSameAsPerRow(ws, trees);
    expect((await listed(ws, { $where: starts('company_name', 'hoo') })).total).toBe(3);
  });

  it('an or of more sets than one compound statement holds (5) is grouped, not refused', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const keys = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l'];
    for (const key of keys.slice(0, 8)) await createContact(ws, { name: key, custom_fields: { [key]: 1 } });
    await createContact(ws, { name: 'none', custom_fields: { z: 1 } });
    await expectSameAsPerRow(ws, [
      { $where: { or: keys.map((key) => cf(key, 'eq', 1)) } },
      { $where: { or: keys.slice(0, 6).map((key) => cf(key, 'eq', 1)) } },
      { $where: { and: [{ or: keys.slice(0, 7).map((key) => cf(key, 'eq', 1)) }, { or: keys.slice(3).map((key) => cf(key, 'eq', 1)) }] } },
    ]);
    expect((await listed(ws, { $where: { or: keys.map((key) => cf(key, 'eq', 1)) } })).total).toBe(8);
  });

  it('a tree of column conditions is counted from index ranges, never by walking the workspace', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const shard = await shardOf(ws.id);
    // Column conditions read their indexes alone.
    const trees: [Record<string, unknown>, RegExp][] = [
      [
        {
          $where: {
            or: [
              { field: 'company_name', op: 'starts_with', value: 'hoo' },
              {
                and: [
                  { field: 'country', op: 'eq', value: 'DE' },
                  { field: 'first_name', op: 'starts_with', value: 'an' },
                ],
              },
            ],
          },
        },
        /^SEARCH c USING COVERING INDEX \w+ \(workspace_id=\? AND \w+[=><]\?/,
      ],
      [{ country: 'DE' }, /^SEARCH c USING COVERING INDEX contacts_workspace_country \(workspace_id=\? AND country=\?\)$/],
      [
        { $where: { field: 'email_subscribed', op: 'eq', value: true } },
        /^SEARCH c USING COVERING INDEX contacts_workspace_email_consent \(workspace_id=\? AND email_consent_state=\?\)$/,
      ],
      [
        { 'custom_fields.plan': 'gold', country: 'DE' },
        /^SEARCH c USING COVERING INDEX contacts_workspace_country \(workspace_id=\? AND country=\?\)$/,
      ],
    ];
    for (const [filter, read] of trees) {
      for (const packed of [false, true]) {
        const { rows, values } = compileFilter(filter, contactCatalog, ws.id, { packed });
        expect(rows, JSON.stringify(filter)).toBeDefined();
        const query = dialect.sqlToQuery(sql`${filterWith(values)} SELECT count(*) FROM (${rows!.set})`);
        const plan = (
          await shard
            .prepare(`EXPLAIN QUERY PLAN ${query.sql}`)
            .bind(...query.params)
            .all<{ detail: string }>()
        ).results.map((r) => r.detail);
        const onContacts = plan.filter((line) => / c( |$)/.test(line));
        expect(onContacts.length, JSON.stringify(filter)).toBeGreaterThan(0);
        // Every read of contacts is a range of a column's index or a look-up by id: none is the whole workspace.
        for (const line of onContacts) expect(line, JSON.stringify(filter)).toMatch(read);
      }
    }
  });

  it('an or of single sets is counted from their index entries, each member once, and paged from each alternative', async () => {
    const ws = await makeWorkspace({}, { pipeline: false, bulk: true });
    const made: { id: string }[] = [];
    for (let i = 0; i < 9; i++) {
      made.push(
        await createContact(ws, {
          name: `O${i}`,
          email: `o${i}@example.com`,
          lead_score: i * 10,
          lifecycle_stage: i % 3 ? 'lead' : 'customer',
          custom_fields: { plan: i % 2 ? 'gold' : 'free' },
        }),
      );
    }
    // The oldest contacts subscribed: a newest-first walk of the whole workspace would pass every newer one first.
    for (const c of made.slice(0, 3)) expect((await ws.api('PUT', `/v1/contacts/${c.id}/consent/email`, { state: 'subscribed' })).status).toBe(200);
    const email = (value: string) => ({ field: 'email', op: 'eq', value });
    const trees = [
      { $where: { or: [{ field: 'email_subscribed', op: 'eq', value: true }, email('nobody@example.com')] } },
      { $where: { or: [{ field: 'email_subscribed', op: 'eq', value: true }, email('o8@example.com')] } },
      { $where: { or: [{ field: 'lead_score', op: 'gte', value: 50 }, email('o1@example.com')] } },
      { $where: { or: [email('o6@example.com'), { field: 'lifecycle_stage', op: 'eq', value: 'customer' }] } },
      { $where: { or: [cf('plan', 'eq', 'gold'), email('o0@example.com'), { field: 'lead_score', op: 'lt', value: 30 }] } },
    ];
    await expectSameAsPerRow(ws, trees);
    for (const filter of trees) {
      const count = planUnder(await listPlan(ws, { filter: JSON.stringify(filter), limit: '1' }), 'LEFT');
      // Counted alternative by alternative: no union sorting every member, every read of contacts an index range.
      expect(count.join('\n'), JSON.stringify(filter)).not.toMatch(/UNION USING TEMP B-TREE/);
      for (const line of count.filter((l) => /^(SEARCH|SCAN) c\b/.test(l)))
        expect(line, JSON.stringify(filter)).toMatch(/^SEARCH c USING (COVERING )?INDEX \w+ \(workspace_id=\? AND \w+[=><]/);
      for (const sort of ['-created_at', 'name']) {
        const seen: string[] = [];
        const expected = await reference(ws, filter);
        for (let offset = 0; offset <= expected.length; offset++) {
          const res = await ws.api('GET', `/v1/contacts?limit=1&offset=${offset}&sort=${sort}&${filterQuery(filter)}`);
          expect(res.body.total, JSON.stringify(filter)).toBe(expected.length);
          seen.push(...res.body.data.map((c: { id: string }) => c.id));
        }
        const full = await ws.api('GET', `/v1/contacts?limit=500&sort=${sort}&${filterQuery(filter)}`);
        expect(seen, `${sort} ${JSON.stringify(filter)}`).toEqual(full.body.data.map((c: { id: string }) => c.id));
        expect([...seen].sort()).toEqual(expected);
      }
    }
    // The subscribers' alternative walks the consent index's range, newest first.
    const [first] = trees;
    const page = (await listPlan(ws, { filter: JSON.stringify(first) })).map((row) => row.detail);
    expect(page.join('\n')).toMatch(
      /SEARCH c USING (COVERING )?INDEX contacts_workspace_email_consent \(workspace_id=\? AND email_consent_state=\?\)/,
    );
  });

  it('a newest-first page of subscribers walks the consent index range, in the list order; other sorts walk theirs', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 100_000 } }, { pipeline: false });
    const made: { id: string }[] = [];
    for (let i = 0; i < 7; i++) made.push(await createContact(ws, { name: `S${i}`, email: `s${i}@example.com` }));
    const subscribed = [0, 1, 4, 6].map((i) => made[i].id);
    for (const id of subscribed) expect((await ws.api('PUT', `/v1/contacts/${id}/consent/email`, { state: 'subscribed' })).status).toBe(200);
    const filter = { $where: { field: 'email_subscribed', op: 'eq', value: true } };
    const orders: [string, string[]][] = [
      ['-created_at', [...subscribed].reverse()],
      ['created_at', subscribed],
      ['-name', [...subscribed].reverse()],
    ];
    for (const [sort, expected] of orders) {
      const seen: string[] = [];
      for (let offset = 0; offset <= expected.length; offset++) {
        const res = await ws.api('GET', `/v1/contacts?limit=1&offset=${offset}&sort=${sort}&${filterQuery(filter)}`);
        expect(res.body.total).toBe(4);
        seen.push(...res.body.data.map((c: { id: string }) => c.id));
      }
      expect(seen, sort).toEqual(expected);
    }
    expect(pageWalkIndex('created_at', 'contacts_workspace_email_consent')).toBe('contacts_workspace_email_consent');
    expect(pageWalkIndex('created_at', 'contacts_workspace_wa_consent')).toBe('contacts_workspace_wa_consent');
    expect(pageWalkIndex('name', 'contacts_workspace_email_consent')).toBe('contacts_workspace_name');
    // A column whose index does not continue with the creation time: the created index is walked.
    expect(pageWalkIndex('created_at', 'contacts_workspace_country')).toBe('contacts_workspace_created');
    expect(pageWalkIndex('created_at', undefined)).toBe('contacts_workspace_created');
  });

  it('tag and group holders are scoped to the workspace, and the consent fields answer as before', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const other = await makeWorkspace({}, { pipeline: false });
    const a = await createContact(ws, { name: 'A', tags: ['vip', 'beta'], groups: ['Team'], email: 'a@example.com' });
    const b = await createContact(ws, { name: 'B', tags: ['vip'], email: 'b@example.com' });
    await createContact(ws, { name: 'C', phone: '+14155550100' });
    expect((await ws.api('PUT', `/v1/contacts/${a.id}/consent/email`, { state: 'subscribed' })).status).toBe(200);
    expect((await ws.api('PUT', `/v1/contacts/${b.id}/consent/email`, { state: 'unsubscribed' })).status).toBe(200);
    const foreign = await createContact(other, { name: 'Foreign', tags: ['vip'] });
    const [vip, beta] = a.tags;
    expect(b.tags).toHaveLength(1);
    const trees = [
      { $jsonb_contains: { tags: [vip] } },
      { $jsonb_contains: { tags: [vip, beta] } },
      { $jsonb_contains: { tags: [vip], groups: a.groups } },
      { $jsonb_contains: { tags: [foreign.tags[0]] } },
      { $jsonb_contains: { tags: [vip] }, 'custom_fields.plan': 'x' },
      { $where: { field: 'email_subscribed', op: 'eq', value: true } },
      { $where: { field: 'email_subscribed', op: 'eq', value: false } },
      { $where: { field: 'email_subscribed', op: 'neq', value: false } },
      { $where: { field: 'email_subscribed', op: 'neq', value: true } },
      { $where: { not: { field: 'whatsapp_subscribed', op: 'eq', value: true } } },
    ];
    await expectSameAsPerRow(ws, trees);
    expect((await listed(ws, { $jsonb_contains: { tags: [foreign.tags[0]] } })).total).toBe(0);
  });
});
