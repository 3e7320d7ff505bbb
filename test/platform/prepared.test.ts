import { env } from 'cloudflare:workers';
import { and, asc, desc, eq, sql, type SQLWrapper } from 'drizzle-orm';
import { integer, real, SQLiteSyncDialect, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFor, type Db } from '../../src/platform/d1/db';
import { buildSql, prepared, preparedInsert, preparedList, preparedRowsInsert, preparedSql, runPrepared } from '../../src/platform/d1/prepared';
import { compileFilter, filterWith } from '../../src/platform/filter';
import { contactCatalog } from '../../src/modules/contacts/catalog';
import { runBatch } from '../../src/platform/d1/db';

const probes = sqliteTable('prepared_probe', {
  id: text('id').primaryKey(),
  ws: text('ws').notNull(),
  flag: integer('flag', { mode: 'boolean' }).notNull(),
  doc: text('doc', { mode: 'json' }).$type<{ tags: string[] } | null>(),
  score: integer('score'),
});

let builds = 0;
const byWs = prepared((db) => {
  builds++;
  return db
    .select()
    .from(probes)
    .where(eq(probes.ws, sql.placeholder('ws')))
    .orderBy(asc(probes.id))
    .limit(sql.placeholder('limit'));
});
const one = prepared((db) =>
  db
    .select({ p: probes, twice: sql<number>`${probes.score} * 2` })
    .from(probes)
    .where(and(eq(probes.ws, sql.placeholder('ws')), eq(probes.id, sql.placeholder('id'))))
    .limit(1),
);
const insertProbe = prepared((db) =>
  db
    .insert(probes)
    .values({
      id: sql.placeholder('id'),
      ws: sql.placeholder('ws'),
      flag: sql.placeholder('flag'),
      doc: sql.placeholder('doc'),
      score: sql`${sql.placeholder('score')} + 1`,
    })
    .returning({ id: probes.id, doc: probes.doc }),
);
const insertMany = preparedSql(
  'run',
  () =>
    sql`INSERT INTO prepared_probe (id, ws, flag, score) SELECT j.value ->> 'id', ${sql.placeholder('ws')}, 0, j.value ->> 'score' FROM json_each(${sql.placeholder('rows')}) j`,
);
const scores = preparedSql<{ id: string; score: number }>(
  'all',
  () => sql`SELECT id, score FROM prepared_probe WHERE ws = ${sql.placeholder('ws')} ORDER BY id`,
);
const counted = prepared((db) =>
  db
    .select({ n: sql<number>`count(*)` })
    .from(probes)
    .where(eq(probes.ws, sql.placeholder('ws'))),
);

describe('prepared queries', () => {
  const db: Db = dbFor(env.SHARD_0);
  beforeAll(async () => {
    await env.SHARD_0.exec(
      'CREATE TABLE IF NOT EXISTS prepared_probe (id TEXT PRIMARY KEY, ws TEXT NOT NULL, flag INTEGER NOT NULL, doc TEXT, score INTEGER)',
    );
    await env.SHARD_0.exec('DELETE FROM prepared_probe');
    await db.insert(probes).values([
      { id: 'a', ws: 'w1', flag: true, doc: { tags: ['x', 'y'] }, score: 3 },
      { id: 'b', ws: 'w1', flag: false, doc: null, score: null },
      { id: 'c', ws: 'w2', flag: true, doc: { tags: [] }, score: 7 },
    ]);
  });

  it('answer exactly what the query builder answers, typed columns included', async () => {
    const built = await db.select().from(probes).where(eq(probes.ws, 'w1')).orderBy(asc(probes.id)).limit(10);
    expect(await byWs.all(db, { ws: 'w1', limit: 10 })).toEqual(built);
    expect(built[0]).toEqual({ id: 'a', ws: 'w1', flag: true, doc: { tags: ['x', 'y'] }, score: 3 });
    expect(await byWs.all(db, { ws: 'w1', limit: 1 })).toEqual(built.slice(0, 1));
    expect(await byWs.all(db, { ws: 'none', limit: 10 })).toEqual([]);
    expect(await one.get(db, { ws: 'w2', id: 'c' })).toEqual({ p: { id: 'c', ws: 'w2', flag: true, doc: { tags: [] }, score: 7 }, twice: 14 });
    expect(await one.get(db, { ws: 'w1', id: 'c' })).toBeUndefined();
  });

  it('build their SQL once, then run on each request’s own session', async () => {
    const before = builds;
    for (const ws of ['w1', 'w2']) {
      const session = dbFor(env.SHARD_0.withSession('first-primary') as unknown as D1Database);
      expect((await byWs.all(session, { ws, limit: 10 })).every((r) => r.ws === ws)).toBe(true);
    }
    expect(builds - before).toBe(0);
    expect(builds).toBe(1);
  });

  it('run several in one batch, each answered as on its own', async () => {
    const values = { ws: 'w1', limit: 10, id: 'a' };
    const [total, rows, row, none] = await runPrepared(db, [
      counted.getIn(db, values),
      byWs.allIn(db, values),
      one.getIn(db, values),
      one.getIn(db, { ...values, id: 'zz' }),
    ] as const);
    expect(total).toEqual({ n: 2 });
    expect(rows).toEqual(await byWs.all(db, values));
    expect(row).toEqual(await one.get(db, values));
    expect(none).toBeUndefined();
  });

  it('join a drizzle batch next to builder statements, values encoded by their columns and results mapped', async () => {
    const [inserted, updated, rows, run, raw] = await runBatch(db, [
      insertProbe.in(db, { id: 'd', ws: 'w3', flag: true, doc: { tags: ['z'] }, score: 4 }),
      db.update(probes).set({ score: 10 }).where(eq(probes.id, 'd')),
      byWs.in(db, { ws: 'w3', limit: 5 }),
      insertMany.in(db, {
        ws: 'w3',
        rows: JSON.stringify([
          { id: 'e', score: 1 },
          { id: 'f', score: 2 },
        ]),
      }),
      scores.in(db, { ws: 'w3' }),
    ]);
    expect(inserted).toEqual([{ id: 'd', doc: { tags: ['z'] } }]);
    expect((updated as D1Result).meta.changes).toBe(1);
    expect(rows).toEqual([{ id: 'd', ws: 'w3', flag: true, doc: { tags: ['z'] }, score: 10 }]);
    expect((run as D1Result).meta.changes).toBe(2);
    expect(raw).toEqual([
      { id: 'd', score: 10 },
      { id: 'e', score: 1 },
      { id: 'f', score: 2 },
    ]);
    expect(await scores.all(db, { ws: 'w3' })).toEqual(raw);
    // The placeholder inside SQL (`score + 1`) is bound like any other value.
    await runBatch(db, [insertProbe.in(db, { id: 'g', ws: 'w4', flag: false, doc: null, score: 1 })]);
    expect(await scores.all(db, { ws: 'w4' })).toEqual([{ id: 'g', score: 2 }]);
  });

  it('refuse to run with a value missing', () => {
    expect(() => insertProbe.in(db, { id: 'h', ws: 'w4', flag: false, doc: null })).toThrow('No value for placeholder "score" was provided');
    expect(() => scores.in(db, {})).toThrow('No value for placeholder "ws" was provided');
  });

  it('insert whole rows as the builder does, defaults included', async () => {
    await env.SHARD_0.exec(
      "CREATE TABLE IF NOT EXISTS prepared_rows (id TEXT PRIMARY KEY, label TEXT NOT NULL DEFAULT 'none', doc TEXT NOT NULL DEFAULT '{}', stamp TEXT, note TEXT)",
    );
    await env.SHARD_0.exec('DELETE FROM prepared_rows');
    let stamps = 0;
    const rows = sqliteTable('prepared_rows', {
      id: text('id').primaryKey(),
      label: text('label').notNull().default('none'),
      doc: text('doc', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default({}),
      stamp: text('stamp').$defaultFn(() => `s${++stamps}`),
      note: text('note'),
    });
    const insertRow = preparedInsert(rows);
    await runBatch(db, [
      insertRow.in(db, { id: 'p1' }),
      insertRow.in(db, { id: 'p2', label: 'x', doc: { a: [1] }, note: undefined }),
      insertRow.in(db, { id: 'p3', note: 'n' }),
    ]);
    await db.insert(rows).values([{ id: 'b1' }, { id: 'b2', label: 'x', doc: { a: [1] } }, { id: 'b3', note: 'n' }]);
    const read = await db.select().from(rows).orderBy(asc(rows.id));
    const byId = Object.fromEntries(read.map(({ id, ...rest }) => [id, rest]));
    expect(byId.p1).toEqual({ label: 'none', doc: {}, stamp: 's1', note: null });
    expect(byId.p2).toEqual({ label: 'x', doc: { a: [1] }, stamp: 's2', note: null });
    expect(byId.p3).toEqual({ label: 'none', doc: {}, stamp: 's3', note: 'n' });
    expect([byId.b1, byId.b2, byId.b3].map(({ stamp: _s, ...r }) => r)).toEqual([byId.p1, byId.p2, byId.p3].map(({ stamp: _s, ...r }) => r));
  });

  it('insert many whole rows in one statement, each read back as the builder writes it', async () => {
    await env.SHARD_0.exec(
      'CREATE TABLE IF NOT EXISTS prepared_many (id TEXT PRIMARY KEY, flag INTEGER NOT NULL, doc TEXT, count INTEGER NOT NULL DEFAULT 0, ratio REAL, note TEXT)',
    );
    await env.SHARD_0.exec('DELETE FROM prepared_many');
    const many = sqliteTable('prepared_many', {
      id: text('id').primaryKey(),
      flag: integer('flag', { mode: 'boolean' }).notNull(),
      doc: text('doc', { mode: 'json' }).$type<unknown>(),
      count: integer('count').notNull().default(0),
      ratio: real('ratio'),
      note: text('note'),
    });
    const values = [
      { flag: true, doc: { a: [1, 'x'], b: null }, count: 3, ratio: 0.25, note: 'it\'s \\ "quoted"' },
      { flag: false, doc: 'text', ratio: 2 },
      { flag: true, doc: null, note: null },
      { flag: false, doc: [true, 1.5], count: -7 },
      { flag: false, doc: 12 },
    ];
    const insertRows = preparedRowsInsert(many);
    await runBatch(db, [
      insertRows.in(
        db,
        values.map((v, i) => ({ id: `r${i}`, ...v })),
      ),
      insertRows.in(db, []),
    ]);
    await db.insert(many).values(values.map((v, i) => ({ id: `s${i}`, ...v })));
    const read = await db.select().from(many).orderBy(asc(many.id));
    const rowsOf = (prefix: string) => read.filter((r) => r.id.startsWith(prefix)).map(({ id: _id, ...rest }) => rest);
    expect(rowsOf('r')).toHaveLength(5);
    expect(rowsOf('r')).toEqual(rowsOf('s'));
    // The stored text too, not only what drizzle makes of it.
    const raw = await env.SHARD_0.prepare(
      'SELECT substr(id, 1, 1) AS side, doc, typeof(doc) AS t, typeof(ratio) AS rt FROM prepared_many ORDER BY substr(id, 2), id',
    ).all();
    for (let i = 0; i < raw.results.length; i += 2) expect(raw.results[i]).toMatchObject({ ...raw.results[i + 1], side: 'r' });
    expect(() =>
      preparedRowsInsert(sqliteTable('prepared_dates', { id: text('id').primaryKey(), at: integer('at', { mode: 'timestamp' }) })),
    ).toThrow('holds dates');
  });

  it('map joined rows exactly as drizzle maps them: a missing join is null, a present one with null columns is not', async () => {
    await env.SHARD_0.exec(
      'CREATE TABLE IF NOT EXISTS prepared_owner (owner_id TEXT PRIMARY KEY, owner_ws TEXT NOT NULL, owner_name TEXT, owner_at INTEGER, owner_vip INTEGER)',
    );
    await env.SHARD_0.exec('DELETE FROM prepared_owner');
    const owners = sqliteTable('prepared_owner', {
      id: text('owner_id').primaryKey(),
      ws: text('owner_ws').notNull(),
      name: text('owner_name'),
      at: integer('owner_at', { mode: 'timestamp' }),
      vip: integer('owner_vip', { mode: 'boolean' }),
    });
    // Distinct column names: a batch answers rows as objects keyed by name, for drizzle's own mapping as for this one.
    await db.insert(owners).values([
      { id: 'a', ws: 'j1', name: null, at: new Date(1_700_000_000_000), vip: true },
      { id: 'c', ws: 'j1', name: 'Cee', at: null, vip: null },
    ]);
    await db.insert(probes).values([
      { id: 'ja', ws: 'j1', flag: true, doc: { tags: ['t'] }, score: 1 },
      { id: 'jb', ws: 'j1', flag: false, doc: null, score: null },
      { id: 'jc', ws: 'j1', flag: true, doc: null, score: 2 },
    ]);
    const joined = (d: Db, ws: string | SQLWrapper = sql.placeholder('ws')) =>
      d
        .select({
          p: probes,
          owner: owners,
          label: sql<string>`upper(${probes.id})`.as('label'),
          when: sql`${owners.at}`.mapWith(owners.at).as('owner_when'),
        })
        .from(probes)
        .leftJoin(owners, and(eq(owners.ws, probes.ws), eq(owners.id, sql`substr(${probes.id}, 2)`)))
        .where(eq(probes.ws, ws))
        .orderBy(asc(probes.id));
    const query = prepared(joined);
    const built = await joined(db).all({ ws: 'j1' });
    expect(built.map((r) => r.owner?.id ?? null)).toEqual(['a', null, 'c']);
    expect(built[0].owner).toEqual({ id: 'a', ws: 'j1', name: null, at: new Date(1_700_000_000_000), vip: true });
    expect(built[0].when).toEqual(new Date(1_700_000_000_000));
    expect(await query.all(db, { ws: 'j1' })).toEqual(built);
    expect(await query.get(db, { ws: 'j1' })).toEqual(built[0]);
    const [inBatch, drizzleBatch] = await runBatch(db, [query.in(db, { ws: 'j1' }), joined(db, 'j1')]);
    expect(drizzleBatch).toEqual(built);
    expect(inBatch).toEqual(built);
    const [all, first] = await runPrepared(db, [query.allIn(db, { ws: 'j1' }), query.getIn(db, { ws: 'j1' })] as const);
    expect(all).toEqual(built);
    expect(first).toEqual(built[0]);
  });

  it('answer a list’s total and page in one statement, rows as the builder maps them, in the page’s order', async () => {
    await env.SHARD_0.exec('CREATE TABLE IF NOT EXISTS prepared_tag (id TEXT PRIMARY KEY, ws TEXT NOT NULL, probe_id TEXT, weight REAL, note TEXT)');
    await env.SHARD_0.exec('DELETE FROM prepared_tag');
    const tags = sqliteTable('prepared_tag', {
      id: text('id').primaryKey(),
      ws: text('ws').notNull(),
      probeId: text('probe_id'),
      weight: real('weight'),
      note: text('note'),
    });
    const texts = ['plain', 'quote " and \\ backslash', '{"looks":"like json"}', 'ünï €', '', null];
    await db.insert(tags).values(
      Array.from({ length: 13 }, (_, i) => ({
        id: `t${String(i).padStart(2, '0')}`,
        ws: 'l1',
        probeId: i % 3 === 0 ? null : 'a',
        weight: i % 2 ? i + 0.25 : i,
        note: texts[i % texts.length],
      })),
    );
    await db.insert(tags).values({ id: 'other', ws: 'l2', probeId: 'a', weight: 1, note: 'x' });
    // Both tables have an `id` column: the page's columns are renamed by position, not by name.
    const page = (d: Db, ws: SQLWrapper, where?: SQLWrapper) =>
      d
        .select({ tag: tags, probe: probes, twice: sql<number>`${tags.weight} * 2`.as('twice') })
        .from(tags)
        .leftJoin(probes, eq(probes.id, tags.probeId))
        .where(and(eq(tags.ws, ws), where))
        .orderBy(desc(tags.weight), desc(tags.id));
    const list = preparedList<'probe_id', Awaited<ReturnType<typeof page>>[number]>({ probe_id: tags.probeId }, (_, where, ws) => ({
      count: (d) =>
        d
          .select({ total: sql<number>`count(*)` })
          .from(tags)
          .where(and(eq(tags.ws, ws), where)),
      page: (d) => page(d, ws, where),
    }));
    const built = await page(db, sql`${'l1'}`);
    expect(built.find((r) => r.tag.id === 't01')?.probe).toEqual({ id: 'a', ws: 'w1', flag: true, doc: { tags: ['x', 'y'] }, score: 3 });
    expect(built.some((r) => r.probe === null)).toBe(true);
    let seen: unknown[] = [];
    for (let offset = 0; offset < 15; offset += 5) {
      const { total, rows } = await list(db, { ws: 'l1', limit: 5, offset });
      expect(total).toBe(13);
      seen = [...seen, ...rows];
    }
    expect(seen).toEqual(built);
    expect(seen.map((r: any) => r.tag.note)).toEqual(built.map((r) => r.tag.note));
    const filtered = await list(db, { ws: 'l1', limit: 100, offset: 0, probe_id: 'a' });
    expect(filtered.total).toBe(8);
    expect(filtered.rows).toEqual(built.filter((r) => r.tag.probeId === 'a'));
    expect(await list(db, { ws: 'none', limit: 5, offset: 0 })).toEqual({ total: 0, rows: [], leading: [] });
    const withLeading = await list(db, { ws: 'l2', limit: 5, offset: 0 }, [counted.in(db, { ws: 'w1' })]);
    expect(withLeading).toEqual({ total: 1, rows: await page(db, sql`${'l2'}`), leading: [[{ n: 2 }]] });
  });

  it('refuse a table whose default is SQL', () => {
    const stamped = sqliteTable('prepared_sql_default', { id: text('id').primaryKey(), at: text('at').default(sql`CURRENT_TIMESTAMP`) });
    expect(() => preparedInsert(stamped)).toThrow('preparedInsert: column at has an SQL default');
  });
});

describe('buildSql', () => {
  const dialect = new SQLiteSyncDialect();
  it('builds every statement exactly as drizzle does: text, parameters and their order', () => {
    const filters: Record<string, unknown>[] = [
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
      { lifecycle_stage: ['lead', 'customer'], lead_score: { $gt: 5 }, 'custom_fields.plan': 'gold', email_subscribed: true },
      { $where: { not: { field: 'name', op: 'contains', value: '50%_off' } } },
      { $where: { or: Array.from({ length: 20 }, (_, i) => ({ field: 'city', op: 'eq', value: `c${i}` })) } },
    ];
    const queries = filters.flatMap((filter) =>
      [false, true].map((packed) => {
        const { where, values } = compileFilter(filter, contactCatalog, 'ws-1', { packed });
        return sql`${filterWith(values)} SELECT c.id, ${null} AS none, ${true} AS yes, ${7} AS n FROM fp CROSS JOIN contacts c WHERE c.workspace_id = ${'ws-1'} AND ${where}`;
      }),
    );
    // Chunks drizzle builds itself: a column, a table, a placeholder, a list, an inlined piece.
    queries.push(
      sql`SELECT ${probes.id}, ${sql.placeholder('p')} FROM ${probes} WHERE ${probes.score} IN ${[1, 2]} AND ${sql`${'x'}`.inlineParams()} = ${undefined}${'y'}`,
    );
    for (const query of queries) {
      const { sql: text, params } = dialect.sqlToQuery(query);
      expect(buildSql(query)).toEqual({ sql: text, params });
    }
  });
});
