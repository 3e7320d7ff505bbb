import { controlD1, shardOf } from '../support/db';

/**
 * Tables a rejected request must leave alone. Left out: D1/SQLite bookkeeping,
 * the request log (every request writes it, after the response), the search
 * indexes over contacts, payments and deals (derived from the counted tables), delivery
 * attempts (written by the queue consumer, long after the request that caused them)
 * and stored contact-list answers (written after an accepted read's response).
 */
const IGNORED = /^(sqlite_|_cf_|d1_migrations$|request_log$|webhook_deliveries$|contacts_search|payments_search|deals_search|contact_list_cache$)/;

type Counted = { table: string; sql: string; scoped: boolean };

const counted = new Map<D1Database, Counted[]>();

/** Every table of a database from sqlite_master; scoped to one workspace where the table has a workspace column. */
async function tables(DB: D1Database): Promise<Counted[]> {
  const known = counted.get(DB);
  if (known) return known;
  // D1 does not authorize pragma functions; the column list is read from the table's CREATE statement.
  const { results } = await DB.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name`).all<{ name: string; sql: string }>();
  const list = results
    .filter((t) => !IGNORED.test(t.name))
    .map((t) => {
      const scoped = /[`"[\s(,]workspace_id[`"\]\s]/.test(t.sql);
      const where = scoped ? ' WHERE workspace_id = ?1' : t.name === 'workspaces' ? ' WHERE id = ?1' : '';
      return { table: t.name, scoped: where !== '', sql: `SELECT count(*) AS n FROM "${t.name}"${where}` };
    });
  counted.set(DB, list);
  return list;
}

async function countIn(DB: D1Database, workspaceId: string, label: string): Promise<Record<string, number>> {
  const list = await tables(DB);
  const results = await DB.batch(list.map((t) => (t.scoped ? DB.prepare(t.sql).bind(workspaceId) : DB.prepare(t.sql))));
  return Object.fromEntries(list.map((t, i) => [`${label}.${t.table}`, (results[i].results[0] as { n: number }).n]));
}

/** Row counts of every table of the control plane and of the workspace's shard. */
export async function rowCounts(workspaceId: string): Promise<Record<string, number>> {
  const [control, data] = await Promise.all([
    countIn(controlD1(), workspaceId, 'control'),
    shardOf(workspaceId).then((db) => countIn(db, workspaceId, 'data')),
  ]);
  return { ...control, ...data };
}
