import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { readAll } from '../../platform/d1/operation';
import { rawAll } from '../../platform/d1/raw-query';
import { compileFilter, filterWith, type FilterCatalog } from '../../platform/filter';
import { envelope, parseFilterParam, parsePaging, parseSort, searchParam } from '../../platform/list';
import { memberRows } from '../workspaces';
import { MEETING_TYPE_SORTS, membersFrom, serializeMeetingType } from './meeting-types';
import { SCHEDULING_KINDS, type MeetingTypeRow } from './schema';

const catalog: FilterCatalog = {
  fields: {
    id: { kind: 'uuid', expr: sql`t.id` },
    workspace_id: { kind: 'uuid', expr: sql`t.workspace_id` },
    name: { kind: 'text', expr: sql`t.name` },
    slug: { kind: 'text', expr: sql`t.slug` },
    description: { kind: 'text', expr: sql`t.description` },
    duration_minutes: { kind: 'integer', expr: sql`t.duration_minutes` },
    location_type: { kind: 'text', expr: sql`t.location_type` },
    is_active: { kind: 'boolean', expr: sql`t.is_active` },
    scheduling_kind: { kind: 'enum', expr: sql`t.scheduling_kind`, values: SCHEDULING_KINDS },
    created_at: { kind: 'timestamp', expr: sql`t.created_at` },
    updated_at: { kind: 'timestamp', expr: sql`t.updated_at` },
  },
};

type RawMeetingType = {
  id: string;
  workspace_id: string;
  name: string;
  slug: string;
  description: string | null;
  duration_minutes: number;
  location_type: string;
  is_active: number;
  scheduling_kind: MeetingTypeRow['schedulingKind'];
  host_user_ids: string;
  created_at: string;
};

/** The shared list conventions: filter, sort (default `-created_at`), paging (50, cap 500), search over name, slug and description. */
export async function listMeetingTypes(
  db: Db,
  workspaceId: string,
  query: { filter?: string; sort?: string; limit?: string; offset?: string; search?: string },
) {
  const paging = parsePaging(query, { limit: 50, cap: 500 });
  const { where, values } = compileFilter(parseFilterParam(query.filter), catalog, workspaceId);
  const sort = parseSort(query.sort, MEETING_TYPE_SORTS);
  const conditions = [sql`t.workspace_id = ${workspaceId}`];
  if (where) conditions.push(where);
  const term = searchParam('search', query.search)?.trim();
  if (term)
    conditions.push(
      sql`(instr(lower(t.name), lower(${term})) > 0 OR instr(lower(t.slug), lower(${term})) > 0 OR instr(lower(coalesce(t.description, '')), lower(${term})) > 0)`,
    );
  const withValues = filterWith(values);
  const from = sql`FROM fp CROSS JOIN meeting_types t WHERE ${sql.join(conditions, sql.raw(' AND '))}`;
  const dir = sql.raw(sort.descending ? 'DESC' : 'ASC');
  const { counted, rows, members } = await readAll(db, {
    counted: rawAll<{ total: number }>(db, sql`${withValues} SELECT count(*) AS total ${from}`),
    rows: rawAll<RawMeetingType>(
      db,
      sql`${withValues} SELECT t.* ${from} ORDER BY t.${sql.raw(sort.field)} ${dir}, t.id ${dir} LIMIT ${paging.limit} OFFSET ${paging.offset}`,
    ),
    members: rawAll<{ id: string; name: string; active: number }>(
      db,
      sql`SELECT id, name, active FROM ${memberRows} WHERE workspace_id = ${workspaceId}`,
    ),
  });
  const byId = membersFrom(members);
  const data = rows.map((r) =>
    serializeMeetingType(
      {
        id: r.id,
        name: r.name,
        slug: r.slug,
        description: r.description,
        durationMinutes: r.duration_minutes,
        locationType: r.location_type,
        isActive: Boolean(r.is_active),
        schedulingKind: r.scheduling_kind,
        hostUserIds: JSON.parse(r.host_user_ids),
        createdAt: r.created_at,
      },
      byId,
    ),
  );
  return envelope(data, counted[0].total, paging);
}
