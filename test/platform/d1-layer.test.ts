import { env } from 'cloudflare:workers';
import { asc, eq, sql } from 'drizzle-orm';
import { integer, real, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFor, runBatch, type Db } from '../../src/platform/d1/db';
import { handleOver } from '../../src/platform/d1/handle';
import { prepared, preparedList, preparedSql } from '../../src/platform/d1/prepared';
import type { Queryable } from '../../src/platform/d1/queryable';
import { rawAll, rawRun } from '../../src/platform/d1/raw-query';

// The D1 layer decodes rows itself (prepared queries, lists, batches) and binds placeholders
// through column encoders; each case here compares it with the values drizzle's builder gives.
const kinds = sqliteTable('layer_kinds', {
  id: text('id').primaryKey(),
  flag: integer('flag', { mode: 'boolean' }).notNull(),
  doc: text('doc', { mode: 'json' }).$type<{ tags: string[] } | null>(),
  at: integer('at', { mode: 'timestamp' }),
  atMs: integer('at_ms', { mode: 'timestamp_ms' }),
  ratio: real('ratio'),
  note: text('note'),
});
const owners = sqliteTable('layer_owners', { id: text('id').primaryKey(), kindId: text('kind_id').notNull(), name: text('name').notNull() });

const at = new Date('2026-03-04T05:06:07.000Z');
const atMs = new Date('2026-03-04T05:06:07.089Z');
const rows = [
  { id: 'a', flag: true, doc: { tags: ['x'] }, at, atMs, ratio: 0.5, note: 'n' },
  { id: 'b', flag: false, doc: null, at: null, atMs: null, ratio: null, note: null },
];

const byFlag = prepared((db) =>
  db
    .select()
    .from(kinds)
    .where(eq(kinds.flag, sql.placeholder('flag')))
    .orderBy(asc(kinds.id)),
);
const insertKind = prepared((db) =>
  db.insert(kinds).values({
    id: sql.placeholder('id'),
    flag: sql.placeholder('flag'),
    doc: sql.placeholder('doc'),
    at: sql.placeholder('at'),
    atMs: sql.placeholder('atMs'),
  }),
);
const computed = prepared((db) =>
  db
    .select({
      id: kinds.id,
      length: sql`length(${kinds.id}) || ''`.mapWith(Number),
      flagAgain: sql`${kinds.flag}`.mapWith(kinds.flag),
      plain: sql<string>`upper(${kinds.id})`,
    })
    .from(kinds)
    .orderBy(asc(kinds.id)),
);
const withOwner = prepared((db) =>
  db
    .select({
      kind: { id: kinds.id, flag: kinds.flag },
      owner: { name: owners.name, kindId: owners.kindId },
      count: sql`'1'`.mapWith(Number).as('one'),
    })
    .from(kinds)
    .leftJoin(owners, eq(owners.kindId, kinds.id))
    .orderBy(asc(kinds.id)),
);
const wholeJoin = prepared((db) => db.select().from(kinds).leftJoin(owners, eq(owners.kindId, kinds.id)).orderBy(asc(kinds.id)));
const listed = preparedList({ flag: kinds.flag }, (_present, where) => ({
  count: (db) => db.select({ n: sql<number>`count(*)` }).from(kinds).where(where),
  page: (db) =>
    db
      .select({ layer_kinds: kinds, layer_owners: owners })
      .from(kinds)
      .leftJoin(owners, eq(owners.kindId, kinds.id))
      .where(where)
      .orderBy(asc(kinds.id)),
}));
const notes = preparedSql<{ id: string }>('all', () => sql`SELECT id FROM layer_kinds WHERE note = ${sql.placeholder('note')}`);

describe('the D1 layer', () => {
  const db: Db = dbFor(env.SHARD_0);
  beforeAll(async () => {
    await env.SHARD_0.exec(
      'CREATE TABLE IF NOT EXISTS layer_kinds (id TEXT PRIMARY KEY, flag INTEGER NOT NULL, doc TEXT, at INTEGER, at_ms INTEGER, ratio REAL, note TEXT)',
    );
    await env.SHARD_0.exec('CREATE TABLE IF NOT EXISTS layer_owners (id TEXT PRIMARY KEY, kind_id TEXT NOT NULL, name TEXT NOT NULL)');
    await env.SHARD_0.exec('DELETE FROM layer_kinds');
    await env.SHARD_0.exec('DELETE FROM layer_owners');
    await db.insert(kinds).values(rows);
    await db.insert(owners).values({ id: 'o1', kindId: 'a', name: 'Owner' });
  });

  it('decodes every column kind as the builder does: booleans, JSON, timestamps, reals, text', async () => {
    const built = await db.select().from(kinds).orderBy(asc(kinds.id));
    expect(built).toEqual(rows);
    expect(await byFlag.all(db, { flag: true })).toEqual([rows[0]]);
    expect(await byFlag.get(db, { flag: false })).toEqual(rows[1]);
    const [inBatch] = await runBatch(db, [byFlag.in(db, { flag: true })]);
    expect(inBatch).toEqual([rows[0]]);
    expect(inBatch[0].at).toBeInstanceOf(Date);
    expect(inBatch[0].atMs?.getTime()).toBe(atMs.getTime());
  });

  it('binds a placeholder standing for a column value through the encoder of its column', async () => {
    const row = { id: 'c', flag: true, doc: { tags: ['y'] }, at, atMs, ratio: null, note: null };
    await runBatch(db, [insertKind.in(db, row)]);
    const stored = await env.SHARD_0.prepare("SELECT flag, doc, at, at_ms FROM layer_kinds WHERE id = 'c'").first();
    expect(stored).toEqual({ flag: 1, doc: '{"tags":["y"]}', at: at.getTime() / 1000, at_ms: atMs.getTime() });
    expect(await db.select().from(kinds).where(eq(kinds.id, 'c'))).toEqual([row]);
    await db.delete(kinds).where(eq(kinds.id, 'c'));
  });

  it('decodes computed values with their mapWith decoder and leaves the others as answered', async () => {
    const expected = [
      { id: 'a', length: 1, flagAgain: true, plain: 'A' },
      { id: 'b', length: 1, flagAgain: false, plain: 'B' },
    ];
    expect(await computed.all(db, {})).toEqual(expected);
    const [inBatch] = await runBatch(db, [computed.in(db, {})]);
    expect(inBatch).toEqual(expected);
    expect(typeof inBatch[0].length).toBe('number');
  });

  it('sets a left-joined object to null when its join found nothing', async () => {
    const expected = [
      { kind: { id: 'a', flag: true }, owner: { name: 'Owner', kindId: 'a' }, count: 1 },
      { kind: { id: 'b', flag: false }, owner: null, count: 1 },
    ];
    expect(await withOwner.all(db, {})).toEqual(expected);
    // In a batch D1 answers rows as objects keyed by column name, so these columns' names differ.
    expect(await runBatch(db, [withOwner.in(db, {})])).toEqual([expected]);
    const whole = await db.select().from(kinds).leftJoin(owners, eq(owners.kindId, kinds.id)).orderBy(asc(kinds.id));
    expect(whole[1].layer_owners).toBeNull();
    expect(await wholeJoin.all(db, {})).toEqual(whole);
    expect(await listed(db, { ws: 'w', limit: 10, offset: 0 })).toEqual({ total: 2, rows: whole, leading: [] });
    expect(await listed(db, { ws: 'w', limit: 10, offset: 0, flag: false })).toEqual({ total: 1, rows: [whole[1]], leading: [] });
  });

  it('sends builder queries, prepared statements and raw SQL as one D1 batch, each answered as alone', async () => {
    let batches = 0;
    let prepares = 0;
    const client: Queryable = {
      prepare: (query) => {
        prepares++;
        return env.SHARD_0.prepare(query);
      },
      batch: (statements) => {
        batches++;
        return env.SHARD_0.batch(statements);
      },
    };
    const counted = handleOver(client);
    const [builtRows, preparedRows, raw, inserted, written, updated, byNote] = await runBatch(counted, [
      counted.select().from(kinds).where(eq(kinds.id, 'a')),
      byFlag.in(counted, { flag: true }),
      rawAll<{ id: string; flag: number }>(counted, sql`SELECT id, flag FROM layer_kinds WHERE id = ${'b'}`),
      counted.insert(owners).values({ id: 'o2', kindId: 'b', name: 'Second' }).returning({ id: owners.id }),
      rawRun(counted, sql`UPDATE layer_owners SET name = ${'Renamed'} WHERE id = ${'o2'}`),
      counted.update(owners).set({ name: 'Again' }).where(eq(owners.id, 'o2')),
      notes.in(counted, { note: 'n' }),
    ]);
    // One round trip, and each statement prepared once (a recorder of a session's statements sees each bound).
    expect(batches).toBe(1);
    expect(prepares).toBe(7);
    expect(builtRows).toEqual([rows[0]]);
    expect(preparedRows).toEqual([rows[0]]);
    expect(raw).toEqual([{ id: 'b', flag: 0 }]);
    expect(inserted).toEqual([{ id: 'o2' }]);
    expect(written.meta.changes).toBe(1);
    expect((updated as D1Result).meta.changes).toBe(1);
    expect(byNote).toEqual([{ id: 'a' }]);
    expect(await rawAll<{ name: string }>(db, sql`SELECT name FROM layer_owners WHERE id = ${'o2'}`)).toEqual([{ name: 'Again' }]);
    expect((await rawRun(db, sql`DELETE FROM layer_owners WHERE id = ${'o2'}`)).meta.changes).toBe(1);
  });

  it('calls only prepare and batch on its client, and hands it back', async () => {
    const calls = new Set<string>();
    const client: Queryable = {
      prepare: (query) => {
        calls.add('prepare');
        return env.SHARD_0.prepare(query);
      },
      batch: (statements) => {
        calls.add('batch');
        return env.SHARD_0.batch(statements);
      },
    };
    const handle = handleOver(client);
    expect(handle.$client).toBe(client);
    expect(await handle.all(sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    await runBatch(handle, [handle.select().from(kinds).limit(1), byFlag.in(handle, { flag: true })]);
    expect(calls).toEqual(new Set(['prepare', 'batch']));
  });
});
