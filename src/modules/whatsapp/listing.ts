import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { compileFilter, filterWith, type FieldDef, type FieldKind, type FilterCatalog } from '../../platform/filter';
import { containsInAny, envelope, parseFilterParam, parsePaging, parseSort, searchParam } from '../../platform/list';
import { rawAll } from '../../platform/d1/raw-query';

export type ListParams = { filter?: string; sort?: string; limit?: string; offset?: string; search?: string };

/**
 * The shared list conventions over one table aliased `t` (templates,
 * WhatsApp campaigns): filter type-checked by the catalog, sort, paging,
 * substring search; total and page in one batch.
 */
export async function listTable<R>(
  db: Db,
  workspaceId: string,
  query: ListParams,
  spec: { table: string; catalog: FilterCatalog; sorts: readonly string[]; search: SQL[] },
): Promise<{ data: R[]; total: number; limit: number; offset: number }> {
  const paging = parsePaging(query, { limit: 50, cap: 500 });
  const { where, values } = compileFilter(parseFilterParam(query.filter), spec.catalog, workspaceId);
  const sort = parseSort(query.sort, spec.sorts);
  const conditions = [sql`t.workspace_id = ${workspaceId}`];
  if (where) conditions.push(where);
  const term = searchParam('search', query.search)?.trim();
  if (term) conditions.push(containsInAny(term, spec.search as never));
  const withValues = filterWith(values);
  const from = sql`FROM fp CROSS JOIN ${sql.raw(spec.table)} t WHERE ${sql.join(conditions, sql.raw(' AND '))}`;
  const dir = sql.raw(sort.descending ? 'DESC' : 'ASC');
  const orderBy = sql.raw(sort.field === 'name' ? 't.name COLLATE NOCASE' : `t.${sort.field}`);
  const [counted, rows] = await db.batch([
    rawAll<{ total: number }>(db, sql`${withValues} SELECT count(*) AS total ${from}`),
    rawAll<R>(db, sql`${withValues} SELECT t.* ${from} ORDER BY ${orderBy} ${dir}, t.id ${dir} LIMIT ${paging.limit} OFFSET ${paging.offset}`),
  ]);
  return envelope(rows, counted[0].total, paging);
}

/** Filterable columns of the listed table `t`, by name and kind (enums with their values). */
export function tableFields(kinds: Record<string, FieldKind | readonly string[]>): Record<string, FieldDef> {
  const fields: Record<string, FieldDef> = {};
  for (const [name, kind] of Object.entries({ id: 'uuid', workspace_id: 'uuid', created_at: 'timestamp', updated_at: 'timestamp', ...kinds })) {
    fields[name] =
      typeof kind === 'string'
        ? { kind: kind as FieldKind, expr: sql.raw(`t.${name}`) }
        : { kind: 'enum', expr: sql.raw(`t.${name}`), values: kind as readonly string[] };
  }
  return fields;
}
