import { type MovedTable, quoted } from './inventory';

/**
 * Moving rows between two shards within D1's limits: every statement binds at most a few
 * parameters (rows travel as one JSON array), its SQL text is a few KB at most (the table's column
 * names), its JSON stays under `MAX_JSON_BYTES`, and a read walks at most `WINDOW` rowids of its
 * table, so no statement's cost grows with the shard or the workspace.
 */

/** Rowids a chunk's read walks at most: the read filters the table's own rowid order, never a whole index. */
export const WINDOW = 20_000;
/** The rows of one write statement, as JSON: far below D1's largest value. */
const MAX_JSON_BYTES = 500_000;

type Row = Record<string, unknown>;

const columnList = (cols: readonly string[]) => cols.map(quoted).join(', ');
const fromJson = (cols: readonly string[], positions: readonly number[]) =>
  positions.map((p, i) => `json_extract(value, '$[${p}]') AS ${quoted(cols[i])}`).join(', ');

/**
 * A chunk of the workspace's rows of `table` after rowid `after`: at most `limit` rows from the
 * next `WINDOW` rowids (`+workspace_id` keeps SQLite on the rowid order, not an index led by the
 * workspace that it would then sort). `next` is where the following chunk starts.
 */
export async function readChunk(db: D1Database, t: MovedTable, workspaceId: string, after: number, limit: number) {
  const { results } = await db
    .prepare(
      `SELECT rowid AS "__rowid", ${columnList(t.columns)} FROM ${quoted(t.name)} WHERE rowid > ?1 AND rowid <= ?1 + ${WINDOW} AND +workspace_id = ?2 ORDER BY rowid LIMIT ?3`,
    )
    .bind(after, workspaceId, limit)
    .all<Row>();
  const next = results.length === limit ? (results.at(-1)!.__rowid as number) : after + WINDOW;
  return { rows: results, next };
}

/** Whether rowids past `after` exist in `table` at all (the copy of the table is done when none do). */
export async function rowsBeyond(db: D1Database, table: string, after: number): Promise<boolean> {
  const row = await db.prepare(`SELECT max(rowid) AS top FROM ${quoted(table)}`).first<{ top: number | null }>();
  return (row?.top ?? 0) > after;
}

/** The workspace's current rows of `table` among `keys` (each a JSON array of the key's values). */
export function readByKeys(db: D1Database, t: MovedTable, workspaceId: string, keys: readonly string[]): D1PreparedStatement {
  return db
    .prepare(
      `SELECT ${columnList(t.columns)} FROM ${quoted(t.name)} WHERE workspace_id = ?1 AND ${keyIn(
        t.key,
        t.key.map((_, i) => i),
      )}`,
    )
    .bind(workspaceId, `[${keys.join(',')}]`);
}

/** `(k1, k2) IN` the JSON array bound as ?2, each element an array whose `positions` hold the key's values. */
function keyIn(key: readonly string[], positions: readonly number[]): string {
  const tuple = key.length === 1 ? quoted(key[0]) : `(${columnList(key)})`;
  const values = positions.map((p) => `json_extract(value, '$[${p}]')`).join(', ');
  return `${tuple} IN (SELECT ${values} FROM json_each(?2))`;
}

/**
 * Statements writing `rows` (as read from the source) to the target as they are: the workspace's
 * rows with the same key, or holding one of the rows' unique values (a stale copy of a row that
 * changed since, whose key the change log holds), are deleted first, with their triggers, then
 * the rows are inserted, firing the target's triggers (search index, custom values). Running them
 * twice leaves the same rows: a redelivered step is harmless.
 */
export function putRows(db: D1Database, t: MovedTable, workspaceId: string, rows: readonly Row[]): D1PreparedStatement[] {
  const statements: D1PreparedStatement[] = [];
  const position = (c: string) => t.columns.indexOf(c);
  for (const group of bySize(rows.map((r) => t.columns.map((c) => r[c] ?? null)))) {
    const json = JSON.stringify(group);
    for (const key of [t.key, ...t.uniques]) {
      statements.push(
        db.prepare(`DELETE FROM ${quoted(t.name)} WHERE workspace_id = ?1 AND ${keyIn(key, key.map(position))}`).bind(workspaceId, json),
      );
    }
    const all = t.columns.map((_, i) => i);
    statements.push(
      db.prepare(`INSERT INTO ${quoted(t.name)} (${columnList(t.columns)}) SELECT ${fromJson(t.columns, all)} FROM json_each(?1)`).bind(json),
    );
  }
  return statements;
}

/** Deletes the workspace's rows of `table` with these keys (rows gone from the source). */
export function deleteByKeys(db: D1Database, t: MovedTable, workspaceId: string, keys: readonly string[]): D1PreparedStatement {
  return db
    .prepare(
      `DELETE FROM ${quoted(t.name)} WHERE workspace_id = ?1 AND ${keyIn(
        t.key,
        t.key.map((_, i) => i),
      )}`,
    )
    .bind(workspaceId, `[${keys.join(',')}]`);
}

/** Deletes up to `limit` of the workspace's rows of `table` in the next `WINDOW` rowids after `after`; `next` is where to go on. */
export async function deleteChunk(db: D1Database, table: string, workspaceId: string, after: number, limit: number) {
  const t = quoted(table);
  const [found, deleted] = await db.batch<{ top: number | null; n: number }>([
    db
      .prepare(
        `SELECT max(rowid) AS top, count(*) AS n FROM (SELECT rowid FROM ${t} WHERE rowid > ?1 AND rowid <= ?1 + ${WINDOW} AND +workspace_id = ?2 ORDER BY rowid LIMIT ?3)`,
      )
      .bind(after, workspaceId, limit),
    db
      .prepare(
        `DELETE FROM ${t} WHERE rowid IN (SELECT rowid FROM ${t} WHERE rowid > ?1 AND rowid <= ?1 + ${WINDOW} AND +workspace_id = ?2 ORDER BY rowid LIMIT ?3)`,
      )
      .bind(after, workspaceId, limit),
  ]);
  const { top, n } = found.results[0];
  return { deleted: deleted.meta.changes ?? n, next: n === limit ? (top as number) : after + WINDOW };
}

/** How many rows the workspace holds in each of `tables` (one statement each, in one batch). */
export async function countRows(db: D1Database, tables: readonly string[], workspaceId: string): Promise<Record<string, number>> {
  if (tables.length === 0) return {};
  const results = await db.batch<{ n: number }>(
    tables.map((t) => db.prepare(`SELECT count(*) AS n FROM ${quoted(t)} WHERE workspace_id = ?1`).bind(workspaceId)),
  );
  return Object.fromEntries(tables.map((t, i) => [t, results[i].results[0].n]));
}

/** Rows grouped so that each group's JSON stays under `MAX_JSON_BYTES` (a single larger row goes alone). */
function bySize(rows: unknown[][]): unknown[][][] {
  const groups: unknown[][][] = [];
  let current: unknown[][] = [];
  let size = 0;
  for (const row of rows) {
    const bytes = JSON.stringify(row).length;
    if (current.length && size + bytes > MAX_JSON_BYTES) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(row);
    size += bytes;
  }
  if (current.length) groups.push(current);
  return groups;
}
