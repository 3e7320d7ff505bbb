import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import type { Queryable } from './queryable';
import { boundOf, type Statement } from './statement';
import type { RowsOf } from './typed-read';

/** What each statement of a batch answers, in order. */
export type BatchResults<T extends readonly Statement[]> = { -readonly [K in keyof T]: RowsOf<T[K]> };

/**
 * A request's handle: drizzle's, whose `batch` is this layer's (D1's own batch, every statement
 * answered as it would be alone); `$client` is what it was made over (a binding, or a session
 * wrapped as ./floors.ts and ./write-gate.ts do).
 */
export type Db = Omit<DrizzleD1Database<Record<string, never>>, 'batch' | '$client'> & {
  $client: Queryable;
  batch<T extends readonly Statement[]>(statements: readonly [...T]): Promise<BatchResults<T>>;
};

/**
 * A handle whose statements go to `client`. Drizzle's D1 driver calls only `prepare` and `batch`
 * on its client, so a session (or a wrapper of one) serves as the binding does. Its batches go to
 * D1's `batch` directly: one round trip, each statement bound here or by drizzle's builder.
 */
export function handleOver(client: Queryable): Db {
  const seen: Queryable = { prepare: (query) => (lastPrepared = client.prepare(query)), batch: (statements) => client.batch(statements) };
  const db = drizzle(seen as D1Database) as unknown as Db;
  db.$client = client;
  db.batch = (async (statements: readonly Statement[]) => {
    if (statements.length === 0) return [];
    const bound = statements.map((s) => boundOf(client, s, preparedBy));
    const results = await client.batch(bound.map((b) => b.statement));
    return bound.map((b, i) => b.map(results[i]));
  }) as Db['batch'];
  return db;
}

/** The D1 statement drizzle prepared last, through any handle: a builder query's `prepare()` makes one, which its batch then binds. */
let lastPrepared: D1PreparedStatement | null = null;

function preparedBy(prepare: () => void): D1PreparedStatement | null {
  lastPrepared = null;
  prepare();
  const statement = lastPrepared;
  lastPrepared = null;
  return statement;
}

/** A handle whose queries are only built: `.prepare()` on it makes drizzle's prepared query, whose statement goes nowhere. */
export const builder: Db = handleOver({
  prepare: () => ({}) as D1PreparedStatement,
  batch: () => Promise.reject(new Error('a built query runs only on a request’s handle')),
});
