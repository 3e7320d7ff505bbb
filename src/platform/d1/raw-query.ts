import type { SQL } from 'drizzle-orm';
import { SQLiteAsyncDialect } from 'drizzle-orm/sqlite-core';
import { clientOf, type Db } from './db';
import type { Queryable } from './queryable';
import { BoundStatement } from './statement';

const dialect = new SQLiteAsyncDialect();

/** Raw SQL bound to a handle's session: a statement of its batches, or awaited on its own. */
export class RawStatement<R> extends BoundStatement<R> implements PromiseLike<R> {
  constructor(
    query: { sql: string; params: unknown[] },
    client: Queryable,
    map: (result: D1Result) => R,
    private readonly writes: boolean,
  ) {
    super(client.prepare(query.sql).bind(...query.params), map, query);
  }

  // biome-ignore lint/suspicious/noThenProperty: awaited alone it runs, as drizzle's own `db.all`/`db.run` do.
  then<A = R, B = never>(
    onAnswer?: ((value: R) => A | PromiseLike<A>) | null,
    onFailure?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): PromiseLike<A | B> {
    const result = this.writes ? this.statement.run() : this.statement.all();
    return result.then(this.map).then(onAnswer, onFailure);
  }
}

/** A raw `SELECT` for SQL the builder cannot say: a statement of a batch, or awaited alone; either way it answers its rows. */
export function rawAll<T>(db: Db, query: SQL): RawStatement<T[]> {
  return new RawStatement(dialect.sqlToQuery(query), clientOf(db), (result) => result.results as T[], false);
}

/** Same for statements that write (UPDATE/INSERT/DELETE), answering D1's run result. */
export function rawRun(db: Db, query: SQL): RawStatement<D1Result> {
  return new RawStatement(dialect.sqlToQuery(query), clientOf(db), (result) => result, true);
}
