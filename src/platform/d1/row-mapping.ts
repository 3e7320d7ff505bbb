import { Column, getTableColumns, type AnyColumn } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';

/** How one column's value is read back: null when it is stored as it is answered. */
export type Decode = ((value: unknown) => unknown) | null;

/**
 * Where each column of a row goes and how it is decoded, and which joined tables' objects become
 * `null`: the object named `object`, when its column at `firstColumn` (kept under `key`) is null.
 */
export type RowLayout = {
  columns: { path: string[]; decode: Decode }[];
  nullables: { object: string; firstColumn: number; key: string }[];
};

/** How a column decodes its own values (booleans, JSON, timestamps); null when drizzle's identity does. */
export function columnDecode(column: AnyColumn): Decode {
  if (column.mapFromDriverValue === Column.prototype.mapFromDriverValue) return null;
  return (value) => column.mapFromDriverValue(value);
}

/** A table's rows as `select()` of it answers them. */
export function tableLayout(table: SQLiteTable): RowLayout {
  return { columns: Object.entries(getTableColumns(table)).map(([key, column]) => ({ path: [key], decode: columnDecode(column) })), nullables: [] };
}

/**
 * Rows (arrays in column order, as `.raw()` gives them) mapped as drizzle maps them, the layout
 * worked out once per query instead of asking each field what it is on every row: that generic
 * form costs a page of wide rows a large share of its CPU.
 */
export function rowMapper({ columns, nullables }: RowLayout) {
  return (row: readonly unknown[]): Record<string, unknown> => {
    const result: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      const { path, decode } = columns[i];
      const raw = row[i];
      const value = raw === null ? null : decode ? decode(raw) : raw;
      let node = result;
      const last = path.length - 1;
      for (let p = 0; p < last; p++) node = (node[path[p]] ??= {}) as Record<string, unknown>;
      node[path[last]] = value;
    }
    for (const { object, key } of nullables) {
      if ((result[object] as Record<string, unknown>)[key] === null) result[object] = null;
    }
    return result;
  };
}
