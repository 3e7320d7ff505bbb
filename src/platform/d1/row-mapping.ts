import { Column, getTableName, is, SQL, Subquery } from 'drizzle-orm';
import { decoderOfSql, type Decoder, type SelectedField } from './drizzle-internals';

/** As drizzle's `mapResultRow` finds it: a column decodes its own values, anything else through its SQL's decoder. */
function decoderOf(field: unknown): Decoder {
  if (is(field, Column)) return field;
  if (is(field, SQL)) return decoderOfSql(field);
  if (is(field, Subquery)) return decoderOfSql(field._.sql);
  return decoderOfSql((field as { sql: SQL }).sql);
}

/** A joined table's object that becomes `null` when the first of its columns is. */
type Nullable = { object: string; firstColumn: number };

/**
 * Drizzle's `mapResultRow`, worked out once per query instead of on every row: which
 * decoder each column takes, where its value goes, and which joined tables' objects
 * become `null` (drizzle's rule: the object's first column is null, all its columns
 * come from one table, and that table's join may be null). The generic form asks each
 * field what it is on every row, which costs a page of wide rows a large share of its CPU.
 * Rows are arrays in column order, as `.raw()` gives them.
 */
export function rowMapper(fields: readonly SelectedField[], joinsNotNullableMap?: Record<string, boolean>) {
  const columns = fields.map(({ path, field }) => {
    const decoder = decoderOf(field);
    const identity = decoder.mapFromDriverValue === Column.prototype.mapFromDriverValue;
    return { path, decode: identity ? null : decoder };
  });
  const nullables = joinsNotNullableMap ? nullablesOf(fields, joinsNotNullableMap) : [];
  return (row: readonly unknown[]): Record<string, unknown> => {
    const result: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      const { path, decode } = columns[i];
      const raw = row[i];
      const value = raw === null ? null : decode ? decode.mapFromDriverValue(raw) : raw;
      let node = result;
      const last = path.length - 1;
      for (let p = 0; p < last; p++) node = (node[path[p]] ??= {}) as Record<string, unknown>;
      node[path[last]] = value;
    }
    for (const { object, firstColumn } of nullables) {
      if ((result[object] as Record<string, unknown>)[fields[firstColumn].path[1]] === null) result[object] = null;
    }
    return result;
  };
}

function nullablesOf(fields: readonly SelectedField[], joinsNotNullableMap: Record<string, boolean>): Nullable[] {
  const objects = new Map<string, { firstColumn: number; table: string | null }>();
  fields.forEach(({ path, field }, i) => {
    if (path.length !== 2 || !is(field, Column)) return;
    const table = getTableName(field.table);
    const object = objects.get(path[0]);
    if (!object) objects.set(path[0], { firstColumn: i, table });
    else if (object.table !== table) object.table = null;
  });
  return [...objects]
    .filter(([, o]) => o.table !== null && !joinsNotNullableMap[o.table])
    .map(([object, o]) => ({ object, firstColumn: o.firstColumn }));
}
