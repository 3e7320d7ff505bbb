import type { BatchItem } from 'drizzle-orm/batch';

/**
 * A statement of this layer's batches: a D1 statement bound to a request's session, and how
 * its result becomes what the caller reads (drizzle's row decoding, D1's run result, plain rows).
 */
export class BoundStatement<R = unknown> {
  constructor(
    readonly statement: D1PreparedStatement,
    readonly map: (result: D1Result) => R,
  ) {}
}

/** A statement of a batch: one bound here, or one of drizzle's query builders (a select, an insert, ...). */
export type Statement = BoundStatement | BatchItem<'sqlite'>;

/** What drizzle's query builders offer a batch through their public API: the built query and the mapping of its result. */
type BuiltQuery = { getQuery(): { sql: string; params: unknown[] }; mapResult(result: unknown, isFromBatch?: boolean): unknown };
type Preparable = { prepare(): BuiltQuery };

/**
 * `statement` as D1 runs it, with its mapping: a builder query is prepared through its public
 * `prepare()` (a raw `db.all`/`db.run` is already its built form) and its result is mapped by
 * drizzle itself, exactly as drizzle's own batch maps it.
 */
export function boundOf(client: Pick<D1Database, 'prepare'>, statement: Statement): BoundStatement {
  if (statement instanceof BoundStatement) return statement;
  const built =
    typeof (statement as Partial<Preparable>).prepare === 'function'
      ? (statement as unknown as Preparable).prepare()
      : (statement as unknown as BuiltQuery);
  const { sql, params } = built.getQuery();
  return new BoundStatement(client.prepare(sql).bind(...params), (result) => built.mapResult(result, true));
}
