import { clientOf, type Db } from './db';
import { handleOver } from './handle';
import type { Queryable } from './queryable';
import { watchedLike } from './floors';
import { mayWrite } from './write-gate';

/** A statement given as its SQL and parameters (`.toSQL()` of a built query). */
export type CarriedQuery = { sql: string; params: unknown[] };

/**
 * What every write of a handle carries: `query` runs first in each batch that may write, and
 * `refused` names what its failure means (the error to throw instead), or null when the
 * failure is none of its own.
 */
export type Carried = { query: CarriedQuery; refused: (err: unknown) => Error | null };

/** A statement prepared through a carrying handle whose SQL may write: run on its own, it still carries. */
class Carrying implements D1PreparedStatement {
  constructor(
    readonly real: D1PreparedStatement,
    private readonly alone: (statement: D1PreparedStatement) => Promise<D1Result>,
  ) {}
  bind(...values: unknown[]) {
    return new Carrying(this.real.bind(...values), this.alone);
  }
  async all<T>() {
    return (await this.alone(this.real)) as D1Result<T>;
  }
  async run<T>() {
    return (await this.alone(this.real)) as D1Result<T>;
  }
  first<T = unknown>(column: string): Promise<T | null>;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  async first<T>(column?: string) {
    const [row] = (await this.alone(this.real)).results as Record<string, unknown>[];
    if (row === undefined) return null;
    return (column === undefined ? row : (row[column] ?? null)) as T;
  }
  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  async raw<T>(options?: { columnNames?: boolean }) {
    // A batch answers rows as objects; drizzle's own batch mapping reads them back as arrays the same way.
    const rows = (await this.alone(this.real)).results as Record<string, unknown>[];
    const values = rows.map((row) => Object.values(row)) as T[];
    return options?.columnNames ? [Object.keys(rows[0] ?? {}), ...values] : values;
  }
}

/**
 * `db` whose every write carries `carried.query` in the same batch, so that nothing `db` writes can
 * commit without it: a batch holding a statement that may write (./write-gate.ts) runs the carried
 * statement first (its result is left out of the answer, so the batch's results line up with its
 * statements), and a write run on its own (`.run()`, `rawRun`, a builder's `returning()`) runs as a
 * batch of the carried statement and itself. Reads run as they are. When the carried statement
 * fails its batch, `carried.refused` says what to throw. The handle shares the session `db` runs on
 * (its bookmark, its writes watched for the workspace's floor).
 */
export function carryingEveryWrite(db: Db, carried: Carried): Db {
  const lower = clientOf(db);
  const carriedStatement = () => lower.prepare(carried.query.sql).bind(...carried.query.params);
  const run = async (statements: D1PreparedStatement[]): Promise<D1Result[]> => {
    try {
      return (await lower.batch([carriedStatement(), ...statements])).slice(1);
    } catch (err) {
      throw carried.refused(err) ?? err;
    }
  };
  const alone = async (statement: D1PreparedStatement) => (await run([statement]))[0];
  const client: Queryable = {
    prepare: (query) => (mayWrite(query) ? new Carrying(lower.prepare(query), alone) : lower.prepare(query)),
    batch: async <T>(statements: D1PreparedStatement[]) => {
      const real = statements.map((s) => (s instanceof Carrying ? s.real : s));
      if (!statements.some((s) => s instanceof Carrying)) return lower.batch<T>(real);
      return (await run(real)) as D1Result<T>[];
    },
  };
  watchedLike(client, lower);
  return handleOver(client);
}
