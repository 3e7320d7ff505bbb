/// <reference types="vite/client" />
import { getTableColumns, getTableName } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { contacts } from '../../src/modules/contacts/schema';
import { listDeals } from '../../src/modules/deals/list';
import { deals } from '../../src/modules/deals/schema';
import { listPayments } from '../../src/modules/payments/list';
import { payments } from '../../src/modules/payments/schema';
import type { ServiceContext } from '../../src/platform/context';
import { createDeal } from '../deals/helpers';
import { shardOf } from '../support/db';
import { makeWorkspace, type TestWorkspace } from '../support/harness';
import { statementOf } from '../support/list-statement';
import { createPayment } from './helpers';
import migration from '../../migrations/data/0027_payments_deals_search_spaces.sql?raw';

/** Matches of one workspace beside which another's search must stay cheap. */
const CROWD = 4000;
/** What a search with one match may read in all, index look-ups included: a few hundred rows, well under the crowd's count. */
const FEW = 300;

type Listed = { total: number; data: { id: string }[] };
type Kind = {
  name: 'payments' | 'deals';
  table: SQLiteTable;
  create: (ws: TestWorkspace, body: Record<string, unknown>) => Promise<{ id: string; contact_id: string }>;
  list: (ctx: ServiceContext, query: { search: string }) => Promise<Listed>;
};

const KINDS: Kind[] = [
  { name: 'payments', table: payments, create: createPayment, list: listPayments },
  { name: 'deals', table: deals, create: createDeal, list: listDeals },
];

/**
 * Copies of one row of `table` on its shard, `copies` of them in one statement, each column as the
 * row holds it unless `set` gives SQL for it (`n.i` numbers the copies, `?2` onward bind `binds`).
 * Triggers run for each copy as for any insert.
 */
async function copyRows(shard: D1Database, table: SQLiteTable, id: string, copies: number, set: Record<string, string>, ...binds: unknown[]) {
  const columns = Object.values(getTableColumns(table)).map((c) => c.name);
  const values = columns.map((name) => set[name] ?? `t."${name}"`).join(', ');
  const name = getTableName(table);
  await shard
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${copies})
       INSERT INTO ${name} (${columns.map((c) => `"${c}"`).join(', ')}) SELECT ${values} FROM n CROSS JOIN ${name} t WHERE t.id = ?1`,
    )
    .bind(id, ...binds)
    .run();
}

const ids = (listed: Listed) => listed.data.map((r) => r.id);

describe.each(KINDS)('$name search reads the workspace range of its index', (kind) => {
  it(`one match beside a co-tenant's ${CROWD} on the shard: a few hundred rows read, its own answer`, async () => {
    const settings = { rate_limits: { per_key_per_minute: 100_000 }, shard: 'SHARD_0' };
    const [before, crowded, after] = [await makeWorkspace(settings), await makeWorkspace(settings), await makeWorkspace(settings)];
    const shard = await shardOf(crowded.id);
    const term = `Quillon${crypto.randomUUID().slice(0, 6)}`;
    // Search spaces are numbered as workspaces write their first record: one workspace's range lies
    // below the crowded one's, the other's above it.
    const first = await kind.create(before, { title: `${term} before` });
    const seed = await kind.create(crowded, { title: `${term} crowd` });
    await copyRows(shard, kind.table, seed.id, CROWD - 1, { id: `substr(t.id, 1, 24) || printf('%012d', n.i)`, external_reference: 'NULL' });
    const last = await kind.create(after, { title: `${term} after` });
    const spaces = await Promise.all(
      [before, crowded, after].map(
        async (ws) =>
          (await shard.prepare('SELECT space FROM contact_search_spaces WHERE workspace_id = ?').bind(ws.id).first<{ space: number }>())!.space,
      ),
    );
    expect([...spaces].sort((a, b) => a - b)).toEqual(spaces);

    for (const [ws, mine] of [
      [before, first],
      [after, last],
    ] as const) {
      for (const search of [term, term.toUpperCase(), 'quillon']) {
        const { rowsRead, answer, plan } = await statementOf(ws, (ctx) => kind.list(ctx, { search }));
        expect([answer.total, ids(answer)], search).toEqual([1, [mine.id]]);
        expect(rowsRead, plan.join('\n')).toBeLessThanOrEqual(FEW);
      }
    }
    // The crowded workspace still counts every one of its own, and pages them.
    const own = await statementOf(crowded, (ctx) => kind.list(ctx, { search: term }));
    expect([own.answer.total, own.answer.data.length]).toEqual([CROWD, 25]);
    // A term too short for the index tests the workspace's own records only, whatever the crowd holds.
    const short = await statementOf(after, (ctx) => kind.list(ctx, { search: 'qu' }));
    expect([short.answer.total, ids(short.answer)]).toEqual([1, [last.id]]);
    expect(short.rowsRead).toBeLessThanOrEqual(FEW);
    // One range of the index: the MATCH and both rowid bounds.
    const { plan } = await statementOf(after, (ctx) => kind.list(ctx, { search: term }));
    expect(
      plan.some((line) => new RegExp(`^SCAN ${kind.name}_search VIRTUAL TABLE INDEX \\d+:M\\d*><`).test(line)),
      plan.join('\n'),
    ).toBe(true);
  });

  it("a workspace's first record, written before any contact, gives it the search space its contacts then share", async () => {
    const template = await kind.create(await makeWorkspace({ shard: 'SHARD_1' }), { title: 'Template' });
    const ws = await makeWorkspace({ shard: 'SHARD_1' });
    const shard = await shardOf(ws.id);
    const spaceOf = async () =>
      (await shard.prepare('SELECT space FROM contact_search_spaces WHERE workspace_id = ?').bind(ws.id).first<{ space: number }>())?.space;
    const found = async (search: string) => ids((await statementOf(ws, (ctx) => kind.list(ctx, { search }))).answer);
    // A record naming a contact the workspace does not hold yet: the index must not depend on the order of writes.
    const [recordId, contactId] = [crypto.randomUUID(), crypto.randomUUID()];
    await copyRows(
      shard,
      kind.table,
      template.id,
      1,
      { id: '?2', workspace_id: '?3', contact_id: '?4', title: `'Orphan ledger'`, external_reference: 'NULL' },
      recordId,
      ws.id,
      contactId,
    );
    const space = await spaceOf();
    expect(space).toBeGreaterThan(0);
    expect(await found('orphan')).toEqual([recordId]);
    expect(await found('lamarr')).toEqual([]);

    // The contact arrives: its identity reaches the record's entry, in the same space as its own entry.
    await copyRows(
      shard,
      contacts,
      template.contact_id,
      1,
      { id: '?2', workspace_id: '?3', name: `'Hedy Lamarr'`, email: `'hedy@example.com'`, phone: 'NULL' },
      contactId,
      ws.id,
    );
    expect(await spaceOf()).toBe(space);
    expect(await found('lamarr')).toEqual([recordId]);
    expect(await found('hedy@')).toEqual([recordId]);
    const contactSearch = await ws.api('GET', '/v1/contacts?search=lamarr');
    expect(contactSearch.body.data.map((c: { id: string }) => c.id)).toEqual([contactId]);
  });

  it("the migration's fill files every record as the triggers do", async () => {
    const ws = await makeWorkspace({ shard: 'SHARD_0' });
    const record = await kind.create(ws, { title: 'Filed twice', name: 'Rosalind Franklin' });
    await kind.create(ws, { title: 'Second', contact_id: record.contact_id, phone: undefined });
    expect((await ws.api('PATCH', `/v1/contacts/${record.contact_id}`, { name: 'Rosalind E. Franklin' })).status).toBe(200);
    // The fill's SELECT, as the migration runs it over the shard, beside what the triggers wrote.
    const statement = migration.split('--> statement-breakpoint').find((part) => part.includes(`INSERT INTO ${kind.name}_search (rowid`))!;
    const fill = statement.slice(statement.indexOf('SELECT', statement.indexOf('INSERT INTO'))).replace(/;\s*$/, '');
    const texts = ['title', 'contact_name', 'contact_phone', 'contact_email'];
    const drift = await (await shardOf(ws.id))
      .prepare(
        `WITH fill(entry, ${texts.join(', ')}) AS (${fill})
         SELECT (SELECT count(*) FROM fill) AS filled, (SELECT count(*) FROM ${kind.name}_search) AS indexed,
           (SELECT count(*) FROM fill LEFT JOIN ${kind.name}_search x ON x.rowid = fill.entry
             WHERE x.rowid IS NULL OR ${texts.map((t) => `x.${t} IS NOT fill.${t}`).join(' OR ')}) AS differing`,
      )
      .first<{ filled: number; indexed: number; differing: number }>();
    expect(drift!.filled).toBeGreaterThanOrEqual(2);
    expect(drift).toEqual({ filled: drift!.filled, indexed: drift!.filled, differing: 0 });
  });
});
