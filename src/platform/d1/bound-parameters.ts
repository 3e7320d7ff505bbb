import { getTableColumns, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

/**
 * D1 binds at most 100 parameters per statement. A statement whose parameter
 * count grows with the input takes one of the two shapes below, so the largest
 * input the API accepts still fits.
 */
export const D1_MAX_BOUND_PARAMETERS = 100;

/**
 * Rows of a multi-row INSERT into `table`, in groups small enough that each
 * group's INSERT binds at most 100 parameters (at most one per column a row).
 * Put one statement per group in the same batch: the insert stays atomic.
 */
export function insertGroups<R>(table: SQLiteTable, rows: readonly R[]): R[][] {
  const perRow = Object.keys(getTableColumns(table)).length;
  const size = Math.max(1, Math.floor(D1_MAX_BOUND_PARAMETERS / perRow));
  const out: R[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** `expr IN (...)` over any number of values, bound as one JSON array parameter. */
export const inJsonList = (expr: AnyColumn | SQL, values: readonly unknown[]): SQL =>
  sql`${expr} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
