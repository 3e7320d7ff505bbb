import { env } from 'cloudflare:workers';
import { eq, sql } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { describe, expect, it } from 'vitest';
import { clientOf, dbFor, runBatch } from '../../src/platform/d1/db';
import {
  batchItem,
  builder,
  decoderOfSql,
  drizzleOver,
  inlinesParams,
  onStatement,
  preparedOf,
  withStatement,
} from '../../src/platform/d1/drizzle-internals';
import type { Queryable } from '../../src/platform/d1/queryable';

// Each part of drizzle-orm that src/platform/d1/drizzle-internals.ts relies on beyond drizzle's documented API,
// checked for the shape relied on: an upgrade that moves one fails here, before any request does.
const probes = sqliteTable('internals_probe', { id: text('id').primaryKey(), n: integer('n') });

describe("drizzle-orm's internals as the D1 layer uses them", () => {
  it('a prepared query holds its statement, run method, fields, joins, SQL and result mapping', () => {
    const prepared = preparedOf(
      builder
        .select({ id: probes.id, twice: sql<number>`${probes.n} * 2`.mapWith(Number) })
        .from(probes)
        .where(eq(probes.id, sql.placeholder('id'))),
    );
    expect(prepared.executeMethod).toBe('all');
    expect(prepared.fields?.map((f) => f.path)).toEqual([['id'], ['twice']]);
    expect(prepared.fields?.[0].field).toBe(probes.id);
    expect(prepared.customResultMapper).toBeUndefined();
    expect(prepared.joinsNotNullableMap).toEqual({ internals_probe: true });
    expect(prepared.getQuery()).toMatchObject({
      sql: 'select "id", "n" * 2 from "internals_probe" where "internals_probe"."id" = ?',
      params: [expect.anything()],
    });
    for (const method of ['all', 'get', 'mapResult'] as const) expect(typeof prepared[method]).toBe('function');
    expect(prepared.stmt).toEqual({});
    const joined = preparedOf(
      builder
        .select()
        .from(probes)
        .leftJoin(sqliteTable('internals_other', { id: text('id') }), sql`1`),
    );
    expect(joined.joinsNotNullableMap).toEqual({ internals_probe: true, internals_other: false });
    expect(preparedOf(builder.insert(probes).values({ id: sql.placeholder('id') })).executeMethod).toBe('run');
  });

  it('a prepared query runs the statement it is given', async () => {
    await env.SHARD_0.exec('CREATE TABLE IF NOT EXISTS internals_probe (id TEXT PRIMARY KEY, n INTEGER)');
    await env.SHARD_0.prepare("INSERT OR REPLACE INTO internals_probe (id, n) VALUES ('a', 21)").run();
    const prepared = preparedOf(
      builder
        .select({ id: probes.id, n: probes.n })
        .from(probes)
        .where(eq(probes.id, sql.placeholder('id'))),
    );
    const copy = onStatement(prepared, env.SHARD_0.prepare(prepared.getQuery().sql));
    expect(await copy.all({ id: 'a' })).toEqual([{ id: 'a', n: 21 }]);
    expect(await copy.get({ id: 'a' })).toEqual({ id: 'a', n: 21 });
    expect(prepared.stmt).toEqual({});
  });

  it("drizzle's D1 batch takes an item's statement, SQL, parameters and mapping", async () => {
    const db = dbFor(env.SHARD_0);
    const item = batchItem({
      stmt: env.SHARD_0.prepare('SELECT ? AS v'),
      getQuery: () => ({ sql: 'SELECT ? AS v', params: [7] }),
      mapResult: (result, isFromBatch) => ({ rows: (result as D1Result).results, isFromBatch }),
    });
    expect(await runBatch(db, [item])).toEqual([{ rows: [{ v: 7 }], isFromBatch: true }]);
  });

  it('a raw query has no statement of its own for a batch until one is attached', async () => {
    const db = dbFor(env.SHARD_0);
    const raw = db.all<{ v: number }>(sql`SELECT ${5} AS v`);
    expect('stmt' in raw).toBe(false);
    expect(raw._prepare()).toBe(raw);
    let prepared = 0;
    const attached = withStatement(raw, (text) => {
      prepared++;
      return env.SHARD_0.prepare(text);
    });
    expect(await runBatch(db, [attached, attached])).toEqual([[{ v: 5 }], [{ v: 5 }]]);
    expect(prepared).toBe(1);
  });

  it('an sql template keeps its decoder and its inlining flag', () => {
    expect(decoderOfSql(sql`1`.mapWith(Number)).mapFromDriverValue('2')).toBe(2);
    expect(decoderOfSql(sql`1`).mapFromDriverValue('2')).toBe('2');
    expect(inlinesParams(sql`1`)).toBe(false);
    expect(inlinesParams(sql`1`.inlineParams())).toBe(true);
  });

  it('a handle calls only prepare and batch on its client, and hands it back', async () => {
    const calls: string[] = [];
    const client: Queryable = {
      prepare: (query) => {
        calls.push('prepare');
        return env.SHARD_0.prepare(query);
      },
      batch: (statements) => {
        calls.push('batch');
        return env.SHARD_0.batch(statements);
      },
    };
    const db = drizzleOver(client);
    expect(clientOf(db)).toBe(client);
    expect(await db.all(sql`SELECT 1 AS one`)).toEqual([{ one: 1 }]);
    await runBatch(db, [db.select().from(probes).limit(1), db.select().from(probes).limit(1)]);
    expect(new Set(calls)).toEqual(new Set(['prepare', 'batch']));
  });
});
