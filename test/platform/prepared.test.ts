import { env } from 'cloudflare:workers';
import { and, asc, eq, sql } from 'drizzle-orm';
import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { dbFor, type Db } from '../../src/platform/db';
import { prepared, runPrepared } from '../../src/platform/prepared';

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
  return db.select().from(probes).where(eq(probes.ws, sql.placeholder('ws'))).orderBy(asc(probes.id)).limit(sql.placeholder('limit'));
});
const one = prepared((db) => db.select({ p: probes, twice: sql<number>`${probes.score} * 2` }).from(probes).where(and(eq(probes.ws, sql.placeholder('ws')), eq(probes.id, sql.placeholder('id')))).limit(1));
const counted = prepared((db) => db.select({ n: sql<number>`count(*)` }).from(probes).where(eq(probes.ws, sql.placeholder('ws'))));

describe('prepared queries', () => {
  const db: Db = dbFor(env.SHARD_0);
  beforeAll(async () => {
    await env.SHARD_0.exec('CREATE TABLE IF NOT EXISTS prepared_probe (id TEXT PRIMARY KEY, ws TEXT NOT NULL, flag INTEGER NOT NULL, doc TEXT, score INTEGER)');
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
    const [total, rows, row, none] = await runPrepared(db, [counted.getIn(db, values), byWs.allIn(db, values), one.getIn(db, values), one.getIn(db, { ...values, id: 'zz' })] as const);
    expect(total).toEqual({ n: 2 });
    expect(rows).toEqual(await byWs.all(db, values));
    expect(row).toEqual(await one.get(db, values));
    expect(none).toBeUndefined();
  });
});
