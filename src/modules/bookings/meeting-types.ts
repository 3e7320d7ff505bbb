import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { readAll, type ReadsOf } from '../../platform/d1/operation';
import { prepared, preparedSql } from '../../platform/d1/prepared';
import { memberRows } from '../workspaces';
import { meetingTypes, type MeetingTypeRow } from './schema';
import type { SlotRules } from './slots';
import { BookingErrors } from './errors';

export const MEETING_TYPE_SORTS = ['created_at', 'updated_at', 'name', 'slug', 'duration_minutes'] as const;
/** The most hosts a meeting type's pool holds. */
export const MAX_POOL_HOSTS = 50;

export type Member = { id: string; name: string; active: boolean };

/** What the public record is made of. */
export type MeetingTypeRecord = Pick<
  MeetingTypeRow,
  'id' | 'name' | 'slug' | 'description' | 'durationMinutes' | 'locationType' | 'isActive' | 'schedulingKind' | 'hostUserIds' | 'createdAt'
>;

/** The public record (docs/bookings.md): `host` is the one host, or `{id: null}` for a team. */
export function serializeMeetingType(row: MeetingTypeRecord, members: Map<string, Member>) {
  const hosts = row.hostUserIds.map((id) => ({ user_id: id, name: members.get(id)?.name ?? null }));
  const team = row.schedulingKind !== 'one_on_one';
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    duration_minutes: row.durationMinutes,
    location_type: row.locationType,
    is_active: row.isActive,
    scheduling_kind: row.schedulingKind,
    host: team
      ? {
          id: null,
          name:
            hosts
              .map((h) => h.name)
              .filter(Boolean)
              .join(', ') || row.name,
        }
      : { id: hosts[0]?.user_id ?? null, name: hosts[0]?.name ?? null },
    hosts,
    created_at: row.createdAt,
  };
}

export const membersById = (rows: Member[]) => new Map(rows.map((m) => [m.id, m]));

const typeById = prepared((db) =>
  db
    .select()
    .from(meetingTypes)
    .where(and(eq(meetingTypes.workspaceId, sql.placeholder('ws')), eq(meetingTypes.id, sql.placeholder('id'))))
    .limit(1),
);

type MemberRow = { id: string; name: string; active: number };

/** The members of a meeting type's pool (through json_each of its hosts). */
const poolMembers = preparedSql<MemberRow, 'all'>(
  'all',
  () =>
    sql`SELECT u.id, u.name, u.active FROM ${memberRows} u WHERE u.workspace_id = ${sql.placeholder('ws')}
      AND u.id IN (SELECT value FROM json_each((SELECT host_user_ids FROM meeting_types WHERE workspace_id = ${sql.placeholder('ws')} AND id = ${sql.placeholder('id')})))`,
);

/** Every member of the workspace (booking hosts are few): names for a booking's `hosts[]`, whoever attends. */
const allMembers = preparedSql<MemberRow, 'all'>(
  'all',
  () => sql`SELECT id, name, active FROM ${memberRows} WHERE workspace_id = ${sql.placeholder('ws')}`,
);

export const membersFrom = (rows: MemberRow[]) => membersById(rows.map((m) => ({ id: m.id, name: m.name, active: Boolean(m.active) })));

/** For a caller's batch: meeting type `id` and its pool's members, by name; `typeFrom` reads them. */
export const typeReads = (db: Db, workspaceId: string, id: string) => ({
  type: typeById.in(db, { ws: workspaceId, id }),
  pool: poolMembers.in(db, { ws: workspaceId, id }),
});

export type FoundMeetingType = { row: MeetingTypeRow; members: Map<string, Member> };

export const typeFrom = ({ type: [row], pool }: ReadsOf<ReturnType<typeof typeReads>>): FoundMeetingType | null =>
  row ? { row, members: membersFrom(pool) } : null;

/** The workspace's members, for a caller's batch. */
export const membersRead = (db: Db, workspaceId: string) => allMembers.in(db, { ws: workspaceId });

/** Meeting type `id` alone, for a caller's batch (its members read beside it, `membersRead`). */
export const typeRead = (db: Db, workspaceId: string, id: string) => typeById.in(db, { ws: workspaceId, id });

/** A meeting type and its hosts' member records: one batch. */
export async function loadMeetingType(db: Db, workspaceId: string, id: string): Promise<FoundMeetingType | null> {
  return typeFrom(await readAll(db, typeReads(db, workspaceId, id)));
}

export async function getMeetingType(db: Db, workspaceId: string, id: string) {
  const found = await loadMeetingType(db, workspaceId, id);
  if (!found) throw BookingErrors.meetingTypeNotFound();
  return serializeMeetingType(found.row, found.members);
}

/** The slot rules of a meeting type: the active pool members are the eligible hosts. */
export function rulesOf(row: MeetingTypeRow, members: Map<string, Member>): SlotRules {
  return {
    zone: row.timezone,
    weeklyHours: row.weeklyHours ?? {},
    durationMinutes: row.durationMinutes,
    intervalMinutes: row.slotIntervalMinutes,
    minNoticeMinutes: row.minNoticeMinutes,
    bufferBeforeMinutes: row.bufferBeforeMinutes,
    bufferAfterMinutes: row.bufferAfterMinutes,
    dailyCap: row.dailyCap,
    kind: row.schedulingKind,
    hosts: row.hostUserIds.filter((id) => members.get(id)?.active),
    meetingTypeId: row.id,
  };
}
