import type { SQL } from 'drizzle-orm';
import { clientOf, type Db } from './db';

type Prepared = { getQuery(): { sql: string }; stmt?: D1PreparedStatement };

/** The statement the batch binds, and the SQL built once: the batch asks for it again. */
function attachStatement(db: Db, prepared: Prepared): void {
  const query = prepared.getQuery();
  prepared.getQuery = () => query;
  prepared.stmt = clientOf(db).prepare(query.sql);
}

/**
 * A raw `SELECT` usable inside `db.batch([...])`. drizzle's D1 batch binds
 * parameters through a prepared statement that its raw queries lack, so a raw
 * query with parameters fails there; this attaches one. Outside a batch it runs
 * like `db.all` and resolves to the rows.
 */
export function rawAll<T>(db: Db, query: SQL) {
  const raw = db.all<T>(query);
  attachStatement(db, raw as unknown as Prepared);
  return raw;
}

/** Same for statements that write (UPDATE/INSERT/DELETE). */
export function rawRun(db: Db, query: SQL) {
  const raw = db.run(query);
  attachStatement(db, raw as unknown as Prepared);
  return raw;
}
