import type { SQL } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/d1';
import type { SQLiteRaw } from 'drizzle-orm/sqlite-core/query-builders/raw';
import type { Db, Statement } from './db';
import type { Queryable } from './queryable';

/**
 * Every part of drizzle-orm (0.45) that this layer uses beyond its documented API, typed once
 * here; no other file reaches past drizzle's types. test/platform/drizzle-internals.test.ts checks
 * each one is still there, with the shape relied on, so an upgrade that moves one fails there.
 */

/**
 * A handle whose statements go to `client`; `clientOf` gives `client` back. Drizzle's D1 driver calls only `prepare` and
 * `batch` on its client, so a session (or a wrapper of one) serves as the binding does.
 */
export const drizzleOver = (client: Queryable): Db => drizzle(client as D1Database);

/** A handle whose queries are only built: `.prepare()` on it makes drizzle's prepared query, whose statement goes nowhere. */
export const builder: Db = drizzleOver({
  prepare: () => ({}) as D1PreparedStatement,
  batch: () => Promise.reject(new Error('a built query runs only on a request’s handle')),
});

/**
 * An item of drizzle's D1 batch (`db.batch`, `runBatch`): the batch calls its `_prepare()`, binds
 * `getQuery().params` to the `stmt` it answers (or prepares `getQuery().sql` when there are none),
 * and gives the statement's result to `mapResult(result, true)`.
 */
export type BatchPrepared = {
  stmt: D1PreparedStatement;
  getQuery(): { sql: string; params: unknown[] };
  mapResult(result: unknown, isFromBatch: true): unknown;
};

/** A batch item that builds nothing: its statement, SQL, parameters and mapping are given. */
export const batchItem = (prepared: BatchPrepared): Statement => ({ _prepare: () => prepared }) as unknown as Statement;

/**
 * A raw query (`db.all`, `db.run`) fit for a batch: it is its own `_prepare()` but has no `stmt`
 * (drizzle prepares one only when it runs alone), so one is attached, and its SQL, which the
 * batch asks for twice, is built once.
 */
export function withStatement<R extends SQLiteRaw<unknown>>(raw: R, prepare: (sql: string) => D1PreparedStatement): R {
  const query = raw.getQuery();
  raw.getQuery = () => query;
  (raw as R & { stmt: D1PreparedStatement }).stmt = prepare(query.sql);
  return raw;
}

/** A selected field as drizzle's prepared query lists it: where the value goes, and what it is. */
export type SelectedField = { path: string[]; field: unknown };

/**
 * What `.prepare()` of a built query holds (drizzle's `D1PreparedQuery`, whose fields are
 * internal): the statement, how it runs, the selected fields and which joins may null them, its
 * SQL and parameters, and drizzle's own runs and result mapping.
 */
export type PreparedQuery = {
  stmt: D1PreparedStatement;
  executeMethod: 'run' | 'all' | 'get' | 'values';
  fields?: SelectedField[];
  joinsNotNullableMap?: Record<string, boolean>;
  customResultMapper?: unknown;
  getQuery(): { sql: string; params: unknown[] };
  all(values: Record<string, unknown>): Promise<unknown>;
  get(values: Record<string, unknown>): Promise<unknown>;
  mapResult(result: unknown, isFromBatch: true): unknown;
};

/** A built query's prepared form (`query` built on `builder`). */
export const preparedOf = (query: { prepare(): unknown }) => query.prepare() as PreparedQuery;

/** A copy of `prepared` that runs `stmt` instead of its own (drizzle's runs read `this.stmt`). */
export const onStatement = (prepared: PreparedQuery, stmt: D1PreparedStatement): PreparedQuery => Object.create(prepared, { stmt: { value: stmt } });

/** How drizzle decodes a selected value. */
export type Decoder = { mapFromDriverValue(value: unknown): unknown };

/** An `sql` field's decoder (`.mapWith()`, else the identity), which drizzle keeps internal; its own row mapping reads it there. */
export const decoderOfSql = (sql: SQL): Decoder => (sql as unknown as { decoder: Decoder }).decoder;

/** Whether an `sql` template inlines its parameters (`.inlineParams()`): a private flag. */
export const inlinesParams = (sql: SQL): boolean => (sql as unknown as { shouldInlineParams: boolean }).shouldInlineParams;
