import type { BatchItem } from 'drizzle-orm/batch';

/**
 * A statement of this layer's batches: a D1 statement bound to a request's session, and how
 * its result becomes what the caller reads (drizzle's row decoding, D1's run result, plain rows).
 */
export class BoundStatement<R = unknown> {
  constructor(
    readonly statement: D1PreparedStatement,
    readonly map: (result: D1Result) => R,
    private readonly query: { sql: string; params: unknown[] },
  ) {}

  /** Its SQL and parameters, as drizzle's own queries give theirs. */
  getQuery(): { sql: string; params: unknown[] } {
    return this.query;
  }
}

/** A statement of a batch: one bound here, or one of drizzle's query builders (a select, an insert, ...). */
export type Statement = BoundStatement | BatchItem<'sqlite'>;

/** What drizzle's query builders offer a batch through their public API: the built query and the mapping of its result. */
type BuiltQuery = { getQuery(): { sql: string; params: unknown[] }; mapResult(result: unknown, isFromBatch?: boolean): unknown };
type Preparable = { prepare(): BuiltQuery };

/**
 * `statement` as D1 runs it, with its mapping: a builder query is prepared through its public
 * `prepare()` (a raw `db.all`/`db.run` is already its built form) and its result is mapped by
 * drizzle itself, exactly as drizzle's own batch maps it. `preparedBy` gives the D1 statement
 * drizzle prepared for it, so it is prepared once, on the session of the handle that built it.
 */
export function boundOf(
  client: Pick<D1Database, 'prepare'>,
  statement: Statement,
  preparedBy: (prepare: () => void) => D1PreparedStatement | null,
): BoundStatement {
  if (statement instanceof BoundStatement) return statement;
  let built = statement as unknown as BuiltQuery;
  const own =
    typeof (statement as Partial<Preparable>).prepare === 'function'
      ? preparedBy(() => (built = (statement as unknown as Preparable).prepare()))
      : null;
  const { sql, params } = built.getQuery();
  return new BoundStatement((own ?? client.prepare(sql)).bind(...params), (result) => built.mapResult(result, true), { sql, params });
}
