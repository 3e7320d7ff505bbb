import { env } from 'cloudflare:workers';

const DB = (env as unknown as { DB: D1Database }).DB;

/**
 * Tables a rejected request must leave alone. Left out: D1/SQLite bookkeeping,
 * the request log (every request writes it, after the response), the search
 * index over contacts (derived from the counted contacts table) and delivery
 * attempts (written by the queue consumer, long after the request that caused them).
 */
const IGNORED = /^(sqlite_|_cf_|d1_migrations$|request_log$|webhook_deliveries$|contacts_fts)/;

type Counted = { table: string; sql: string; scoped: boolean };

let counted: Counted[] | null = null;

/** Every table from sqlite_master; scoped to one workspace where the table has a workspace column. */
async function tables(): Promise<Counted[]> {
  if (counted) return counted;
  // D1 does not authorize pragma functions; the column list is read from the table's CREATE statement.
  const { results } = await DB.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name`).all<{ name: string; sql: string }>();
  counted = results
    .filter((t) => !IGNORED.test(t.name))
    .map((t) => {
      const scoped = /[`"\[\s(,]workspace_id[`"\]\s]/.test(t.sql);
      const where = scoped ? ' WHERE workspace_id = ?1' : t.name === 'workspaces' ? ' WHERE id = ?1' : '';
      return { table: t.name, scoped: where !== '', sql: `SELECT count(*) AS n FROM "${t.name}"${where}` };
    });
  return counted;
}

/** Row counts of every table, in one batch. */
export async function rowCounts(workspaceId: string): Promise<Record<string, number>> {
  const list = await tables();
  const results = await DB.batch(list.map((t) => (t.scoped ? DB.prepare(t.sql).bind(workspaceId) : DB.prepare(t.sql))));
  return Object.fromEntries(list.map((t, i) => [t.table, (results[i].results[0] as { n: number }).n]));
}
