import { getTableColumns, sql, type InferSelectModel, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { rowMapper, tableLayout } from './row-mapping';

/**
 * A parent row's child rows as one column of the parent's read: a sub-query answering the rows
 * of `table` matching `where` (which names the parent's columns) as one JSON array of arrays,
 * in `orderBy`'s order, and `parse`, which decodes that text as drizzle decodes the table's
 * rows. Every statement of a batch costs the Worker and D1 a round of its own; a parent read
 * with its children is one. The rows are ordered in an inner sub-query, which SQLite never
 * flattens into an aggregate: they reach `json_group_array` in the order an index gives them,
 * where the aggregate's own `ORDER BY` would sort them again in a temporary B-tree. SQLite
 * writes a REAL into JSON with the digits that read back as the same double.
 */
export function childRowsJson<T extends SQLiteTable>(table: T, where: SQL, orderBy: SQL) {
  const columns = Object.entries(getTableColumns(table));
  const names = columns.map((_, i) => `c${i}`).join(', ');
  const values = sql.join(
    columns.map(([, column], i) => sql`${column} AS ${sql.raw(`c${i}`)}`),
    sql`, `,
  );
  const column = sql<string>`(SELECT json_group_array(json_array(${sql.raw(names)})) FROM (SELECT ${values} FROM ${table} WHERE ${where} ORDER BY ${orderBy}))`;
  const row = rowMapper(tableLayout(table));
  return { column, parse: (text: string) => (JSON.parse(text) as unknown[][]).map(row) as InferSelectModel<T>[] };
}
