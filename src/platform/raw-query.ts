import type { SQL } from 'drizzle-orm';
import type { Db } from './db';

type Prepared = { getQuery(): { sql: string }; stmt?: D1PreparedStatement };

/**
 * A raw `SELECT` usable inside `db.batch([...])`. drizzle's D1 batch binds
 * parameters through a prepared statement that its raw queries lack, so a raw
 * query with parameters fails there; this attaches one. Outside a batch it runs
 * like `db.all` and resolves to the rows.
 */
export function rawAll<T>(db: Db, query: SQL) {
  const raw = db.all<T>(query);
  const prepared = raw as unknown as Prepared;
  prepared.stmt = (db as unknown as { $client: D1Database }).$client.prepare(prepared.getQuery().sql);
  return raw;
}

/** Same for statements that write (UPDATE/INSERT/DELETE). */
export function rawRun(db: Db, query: SQL) {
  const raw = db.run(query);
  const prepared = raw as unknown as Prepared;
  prepared.stmt = (db as unknown as { $client: D1Database }).$client.prepare(prepared.getQuery().sql);
  return raw;
}
