import { fillPlaceholders } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import type { Db } from './db';

type Values = Record<string, unknown>;

/** What drizzle's `.prepare()` gives for a D1 query: the SQL built once, its statement and its row mapping. */
type DrizzlePrepared = {
  stmt: unknown;
  getQuery(): { sql: string; params: unknown[] };
  all(values: Values): Promise<unknown>;
  get(values: Values): Promise<unknown>;
  mapAllResult(result: unknown, isFromBatch: true): unknown;
  mapGetResult(result: unknown, isFromBatch: true): unknown;
};

type Preparable = { prepare(): unknown };
type AllOf<Q extends Preparable> = ReturnType<Q['prepare']> extends { all(values?: Values): Promise<infer R> } ? R : never;
type GetOf<Q extends Preparable> = ReturnType<Q['prepare']> extends { get(values?: Values): Promise<infer R> } ? R : never;

/** One prepared query bound to a request's values, ready for `runPrepared`; `map` turns its batch result into rows. */
export type BoundQuery<R> = { statement: D1PreparedStatement; map(result: unknown): R };

/** Statements prepared at build time go nowhere: every run gets the request's own statement. */
const builder = drizzle({
  prepare: () => ({}),
  batch: () => Promise.reject(new Error('a prepared query runs only through prepared()')),
} as unknown as D1Database);

const clientOf = (db: Db) => (db as unknown as { $client: D1Database }).$client;

/**
 * A query whose SQL is built once per isolate instead of on every request.
 * Drizzle's query builder spends most of a small read's CPU deciding what each
 * SQL chunk is; a query written with `sql.placeholder('name')` for its values
 * (drizzle's prepared statements) skips that. Drizzle binds a prepared query to
 * one D1 client while each request has its own session, so every run uses a
 * copy holding the session's statement and sharing the query and row mapping.
 * Rows come back exactly as the builder's own `.all()`/`.get()` gives them.
 */
export function prepared<Q extends Preparable>(build: (db: Db) => Q) {
  let template: DrizzlePrepared | null = null;
  const templateOf = () => (template ??= build(builder as unknown as Db).prepare() as DrizzlePrepared);
  const statementOn = (db: Db) => clientOf(db).prepare(templateOf().getQuery().sql);
  const on = (db: Db): DrizzlePrepared => Object.create(templateOf(), { stmt: { value: statementOn(db) } });
  const bind = (db: Db, values: Values) => statementOn(db).bind(...fillPlaceholders(templateOf().getQuery().params, values));
  return {
    all: (db: Db, values: Values) => on(db).all(values) as Promise<AllOf<Q>>,
    get: (db: Db, values: Values) => on(db).get(values) as Promise<GetOf<Q>>,
    /** The query as one statement of a `runPrepared` batch, answering all rows. */
    allIn: (db: Db, values: Values): BoundQuery<AllOf<Q>> => ({ statement: bind(db, values), map: (r) => templateOf().mapAllResult(r, true) as AllOf<Q> }),
    /** The same, answering the first row (undefined when there is none, where drizzle's own mapping would throw). */
    getIn: (db: Db, values: Values): BoundQuery<GetOf<Q> | undefined> => ({
      statement: bind(db, values),
      map: (r) => ((r as D1Result).results.length ? (templateOf().mapGetResult(r, true) as GetOf<Q>) : undefined),
    }),
  };
}

/** Prepared queries in one D1 batch (one round trip), each answered as its own `.all()`/`.get()` would. */
export async function runPrepared<T extends readonly BoundQuery<unknown>[]>(
  db: Db,
  queries: T,
): Promise<{ [K in keyof T]: T[K] extends BoundQuery<infer R> ? R : never }> {
  const results = await clientOf(db).batch(queries.map((q) => q.statement));
  return queries.map((q, i) => q.map(results[i])) as { [K in keyof T]: T[K] extends BoundQuery<infer R> ? R : never };
}
