import type { SQL } from 'drizzle-orm';
import { clientOf, type Db } from './db';
import { withStatement } from './drizzle-internals';

/**
 * A raw `SELECT` usable inside `db.batch([...])`. drizzle's D1 batch binds
 * parameters through a prepared statement that its raw queries lack, so a raw
 * query with parameters fails there; this attaches one. Outside a batch it runs
 * like `db.all` and resolves to the rows.
 */
export function rawAll<T>(db: Db, query: SQL) {
  return withStatement(db.all<T>(query), (text) => clientOf(db).prepare(text));
}

/** Same for statements that write (UPDATE/INSERT/DELETE). */
export function rawRun(db: Db, query: SQL) {
  return withStatement(db.run(query), (text) => clientOf(db).prepare(text));
}
