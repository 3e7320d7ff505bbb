import { and, eq, sql } from 'drizzle-orm';
import { type Db, nowIso } from '../../../platform/d1/db';
import { failedOn, uniqueOn } from '../../../platform/d1/constraints';
import { compileFilter, filterWith, type FilterCatalog } from '../../../platform/filter';
import { uuidv7 } from '../../../platform/ids';
import { envelope, parseFilterParam, parsePaging, parseSort, searchParam } from '../../../platform/list';
import { rawAll } from '../../../platform/d1/raw-query';
import { labelKey, type LabelKind } from './links';
import { groups, tags } from './schema';
import { LABEL_KIND_ERRORS } from './errors';

/** Tags and contact groups: one record shape, one set of rules, two tables. */
const KINDS = {
  tags: { table: tags, sqlTable: 'tags', links: 'contact_tag_links', column: 'tag_id' },
  groups: { table: groups, sqlTable: 'contact_groups', links: 'contact_group_links', column: 'group_id' },
} as const;

export type LabelInput = { name?: string; color?: string | null; description?: string | null };

type LabelRow = {
  id: string;
  workspace_id: string;
  name: string;
  color: string | null;
  description: string | null;
  contact_count: number;
  created_at: string;
  updated_at: string;
};

const columns = (kind: LabelKind) => {
  const k = KINDS[kind];
  return sql`t.id, t.workspace_id, t.name, t.color, t.description, t.created_at, t.updated_at,
    (SELECT count(*) FROM ${sql.raw(k.links)} l WHERE l.${sql.raw(k.column)} = t.id) AS contact_count`;
};

const selectOne = (db: Db, kind: LabelKind, workspaceId: string, id: string) =>
  rawAll<LabelRow>(db, sql`SELECT ${columns(kind)} FROM ${sql.raw(KINDS[kind].sqlTable)} t WHERE t.workspace_id = ${workspaceId} AND t.id = ${id}`);

const notFound = (kind: LabelKind) => LABEL_KIND_ERRORS[kind].notFound();
const duplicate = (kind: LabelKind) => LABEL_KIND_ERRORS[kind].duplicate();
const NAME_TAKEN = { tags: uniqueOn(tags.workspace_id, tags.name_key), groups: uniqueOn(groups.workspace_id, groups.name_key) };

const catalog = (kind: LabelKind): FilterCatalog => ({
  fields: {
    id: { kind: 'uuid', expr: sql`t.id` },
    workspace_id: { kind: 'uuid', expr: sql`t.workspace_id` },
    name: { kind: 'text', expr: sql`t.name` },
    color: { kind: 'text', expr: sql`t.color` },
    description: { kind: 'text', expr: sql`t.description` },
    contact_count: {
      kind: 'integer',
      expr: sql`(SELECT count(*) FROM ${sql.raw(KINDS[kind].links)} l WHERE l.${sql.raw(KINDS[kind].column)} = t.id)`,
    },
    created_at: { kind: 'timestamp', expr: sql`t.created_at` },
    updated_at: { kind: 'timestamp', expr: sql`t.updated_at` },
  },
});

export const LABEL_SORTS = ['created_at', 'updated_at', 'name', 'contact_count'] as const;

export async function listLabels(
  db: Db,
  kind: LabelKind,
  workspaceId: string,
  query: { filter?: string; sort?: string; limit?: string; offset?: string; search?: string },
) {
  const paging = parsePaging(query, { limit: 50, cap: 500 });
  const { where, values } = compileFilter(parseFilterParam(query.filter), catalog(kind), workspaceId);
  const sort = parseSort(query.sort, LABEL_SORTS);
  const conditions = [sql`t.workspace_id = ${workspaceId}`];
  if (where) conditions.push(where);
  const term = searchParam('search', query.search)?.trim();
  // name_key is the name lower-cased beyond ASCII, which SQLite's lower() is not.
  if (term) conditions.push(sql`instr(t.name_key, ${labelKey(term)}) > 0`);
  const withValues = filterWith(values);
  const from = sql`FROM fp CROSS JOIN ${sql.raw(KINDS[kind].sqlTable)} t WHERE ${sql.join(conditions, sql.raw(' AND '))}`;
  const dir = sql.raw(sort.descending ? 'DESC' : 'ASC');
  // Names sort case-insensitively (label tables are small; no index to honour).
  const orderBy = sql.raw(sort.field === 'contact_count' ? 'contact_count' : sort.field === 'name' ? 't.name COLLATE NOCASE' : `t.${sort.field}`);
  const [counted, rows] = await db.batch([
    rawAll<{ total: number }>(db, sql`${withValues} SELECT count(*) AS total ${from}`),
    rawAll<LabelRow>(
      db,
      sql`${withValues} SELECT ${columns(kind)} ${from} ORDER BY ${orderBy} ${dir}, t.id ${dir} LIMIT ${paging.limit} OFFSET ${paging.offset}`,
    ),
  ]);
  return envelope(rows, counted[0].total, paging);
}

export async function getLabel(db: Db, kind: LabelKind, workspaceId: string, id: string) {
  const [row] = await selectOne(db, kind, workspaceId, id);
  if (!row) throw notFound(kind);
  return row;
}

/** Names are unique per workspace case-insensitively: the unique `name_key` index decides races. */
export async function createLabel(
  db: Db,
  kind: LabelKind,
  workspaceId: string,
  input: Required<Pick<LabelInput, 'name'>> & LabelInput,
): Promise<LabelRow> {
  const now = nowIso();
  const row = {
    id: uuidv7(),
    workspace_id: workspaceId,
    name: input.name,
    name_key: labelKey(input.name),
    color: input.color ?? null,
    description: input.description ?? null,
    created_at: now,
    updated_at: now,
  };
  try {
    await db.insert(KINDS[kind].table).values(row);
  } catch (err) {
    if (failedOn(err, NAME_TAKEN[kind])) throw duplicate(kind);
    throw err;
  }
  const { name_key: _key, ...record } = row;
  return { ...record, contact_count: 0 };
}

export async function updateLabel(db: Db, kind: LabelKind, workspaceId: string, id: string, input: LabelInput): Promise<LabelRow> {
  const table = KINDS[kind].table;
  const set: Partial<typeof table.$inferInsert> = { updated_at: nowIso() };
  if (input.name !== undefined) Object.assign(set, { name: input.name, name_key: labelKey(input.name) });
  if (input.color !== undefined) set.color = input.color;
  if (input.description !== undefined) set.description = input.description;
  try {
    const [, rows] = await db.batch([
      db
        .update(table)
        .set(set)
        .where(and(eq(table.workspace_id, workspaceId), eq(table.id, id))),
      selectOne(db, kind, workspaceId, id),
    ]);
    if (!rows[0]) throw notFound(kind);
    return rows[0];
  } catch (err) {
    if (failedOn(err, NAME_TAKEN[kind])) throw duplicate(kind);
    throw err;
  }
}
