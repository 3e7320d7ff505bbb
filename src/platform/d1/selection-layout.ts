import { Column, getTableColumns, is, SQL, sql, Subquery, Table } from 'drizzle-orm';
import { builder } from './handle';
import { columnDecode, type Decode, type RowLayout } from './row-mapping';

/** A prepared query as drizzle's public API gives it: its built SQL and its own result mapping. */
export type Template = {
  getQuery(): { sql: string; params: unknown[] };
  mapResult(result: unknown, isFromBatch?: boolean): unknown;
  mapAllResult(rows: unknown, isFromBatch?: boolean): unknown;
};

type Leaf = { path: string[]; field: unknown };

/** The selection's values in column order with where each goes, as drizzle lays out a select's fields. */
function leaves(selection: Record<string, unknown>, prefix: string[] = []): Leaf[] {
  return Object.entries(selection).flatMap(([name, field]) => {
    const path = [...prefix, name];
    if (is(field, Column) || is(field, SQL) || is(field, SQL.Aliased) || is(field, Subquery)) return [{ path, field }];
    return leaves(is(field, Table) ? getTableColumns(field) : (field as Record<string, unknown>), path);
  });
}

/**
 * How drizzle decodes a computed value (`sql<T>`...`.mapWith()`): asked of drizzle itself, through a
 * one-value query selecting it, once. A value it answers unchanged needs no decoding.
 */
function computedDecode(field: unknown): Decode {
  const probe = builder
    .select({ v: field as SQL })
    .from(sql`probe`)
    .prepare() as unknown as Template;
  const decode = (value: unknown) => (probe.mapAllResult([[value]]) as { v: unknown }[])[0].v;
  const sentinel = {};
  try {
    if (decode(sentinel) === sentinel) return null;
  } catch {
    // One that refuses an object still decodes what it is given.
  }
  return decode;
}

/**
 * The row layout of a select built once (`query`, prepared as `template`), from drizzle's public
 * API: its selection (`_.selectedFields`), how each column decodes, and which joined objects
 * drizzle sets to `null`, read from its own mapping of a row of nulls (a left join that found
 * nothing). Null when `query` is no select or drizzle lays the row out otherwise (a `select()`
 * naming no selection, joined: its selection still lists the first table): drizzle's own mapping
 * is used then.
 */
export function selectionLayout(query: unknown, template: Template): RowLayout | null {
  const selection = (query as { _?: { selectedFields?: unknown } })._?.selectedFields;
  if (!selection || typeof selection !== 'object') return null;
  const fields = leaves(selection as Record<string, unknown>);
  const columns = fields.map(({ path, field }) => ({ path, decode: is(field, Column) ? columnDecode(field) : computedDecode(field) }));
  const nulls = Object.fromEntries(fields.map((_, i) => [`c${i}`, null]));
  const [mapped] = template.mapResult({ results: [nulls] }, true) as Record<string, unknown>[];
  const nullables: RowLayout['nullables'] = [];
  const expected: Record<string, unknown> = {};
  for (const [i, { path, field }] of fields.entries()) {
    let node = expected;
    for (const part of path.slice(0, -1)) node = (node[part] ??= {}) as Record<string, unknown>;
    node[path[path.length - 1]] = null;
    const [object] = path;
    const first = path.length === 2 && is(field, Column) && !nullables.some((n) => n.object === object);
    if (first && mapped[object] === null) nullables.push({ object, firstColumn: i, key: path[1] });
  }
  for (const { object } of nullables) expected[object] = null;
  return JSON.stringify(expected) === JSON.stringify(mapped) ? { columns, nullables } : null;
}
