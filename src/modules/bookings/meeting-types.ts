import { and, eq, sql } from 'drizzle-orm';
import { nowIso, runBatch, type Db, type Statement } from '../../platform/d1/db';
import { failedOn, uniqueOn } from '../../platform/d1/constraints';
import { compileFilter, filterWith, type FilterCatalog } from '../../platform/filter';
import { base64url, randomToken, uuidv7 } from '../../platform/ids';
import { envelope, parseFilterParam, parsePaging, parseSort, searchParam } from '../../platform/list';
import { prepared, preparedSql } from '../../platform/d1/prepared';
import { rawAll } from '../../platform/d1/raw-query';
import { isValidTimeZone } from '../../platform/timezones';
import { memberRows, selectMembers } from '../workspaces';
import { calendarOf, listingRead } from './calendar';
import { bookingSettings, busyBlocks, meetingTypes, SCHEDULING_KINDS, type MeetingTypeRow, type WeeklyHours } from './schema';
import { openStarts, type SlotRules } from './slots';
import { BookingErrors } from './errors';

export const MEETING_TYPE_SORTS = ['created_at', 'updated_at', 'name', 'slug', 'duration_minutes'] as const;
export const MAX_SLOT_RANGE_DAYS = 62;
/** The most hosts a meeting type's pool holds. */
export const MAX_POOL_HOSTS = 50;
const DAY_MS = 86_400_000;
const MINUTE = 60_000;

export type Member = { id: string; name: string; active: boolean };

/** The public record (docs/bookings.md): `host` is the one host, or `{id: null}` for a team. */
export function serializeMeetingType(row: MeetingTypeRow, members: Map<string, Member>) {
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
const poolMembers = preparedSql<MemberRow>(
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

/** For a caller's batch: meeting type `id` and its pool's members; `typeFrom` reads their results. */
export const typeReads = (db: Db, workspaceId: string, id: string): Statement[] => [
  typeById.in(db, { ws: workspaceId, id }),
  poolMembers.in(db, { ws: workspaceId, id }),
];

export const typeFrom = ([rows, members]: unknown[]): { row: MeetingTypeRow; members: Map<string, Member> } | null => {
  const row = (rows as MeetingTypeRow[])[0];
  return row ? { row, members: membersFrom(members as MemberRow[]) } : null;
};

/** The workspace's members, for a caller's batch. */
export const membersRead = (db: Db, workspaceId: string) => allMembers.in(db, { ws: workspaceId });

/** Meeting type `id` alone, for a caller's batch (its members read beside it, `membersRead`). */
export const typeRead = (db: Db, workspaceId: string, id: string) => typeById.in(db, { ws: workspaceId, id });

/** A meeting type and its hosts' member records: one batch. */
export async function loadMeetingType(
  db: Db,
  workspaceId: string,
  id: string,
): Promise<{ row: MeetingTypeRow; members: Map<string, Member> } | null> {
  return typeFrom(await runBatch(db, typeReads(db, workspaceId, id)));
}

export async function getMeetingType(db: Db, workspaceId: string, id: string) {
  const found = await loadMeetingType(db, workspaceId, id);
  if (!found) throw BookingErrors.meetingTypeNotFound();
  return serializeMeetingType(found.row, found.members);
}

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
  const [counted, rows, members] = (await runBatch(db, [
    rawAll<{ total: number }>(db, sql`${withValues} SELECT count(*) AS total ${from}`),
    rawAll<RawMeetingType>(
      db,
      sql`${withValues} SELECT t.* ${from} ORDER BY t.${sql.raw(sort.field)} ${dir}, t.id ${dir} LIMIT ${paging.limit} OFFSET ${paging.offset}`,
    ),
    rawAll<{ id: string; name: string; active: number }>(db, sql`SELECT id, name, active FROM ${memberRows} WHERE workspace_id = ${workspaceId}`),
  ])) as [{ total: number }[], RawMeetingType[], { id: string; name: string; active: number }[]];
  const byId = membersById(members.map((m) => ({ id: m.id, name: m.name, active: Boolean(m.active) })));
  const data = rows.map((r) =>
    serializeMeetingType(
      {
        id: r.id,
        workspaceId: r.workspace_id,
        name: r.name,
        slug: r.slug,
        description: r.description,
        durationMinutes: r.duration_minutes,
        locationType: r.location_type,
        isActive: Boolean(r.is_active),
        schedulingKind: r.scheduling_kind,
        hostUserIds: JSON.parse(r.host_user_ids),
        createdAt: r.created_at,
      } as MeetingTypeRow,
      byId,
    ),
  );
  return envelope(data, counted[0].total, paging);
}

// ---------------------------------------------------------------- schedules

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

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An ISO 8601 date or date-time as epoch ms (a missing offset reads as UTC), or null. */
export function parseInstant(value: string | undefined): number | null {
  if (typeof value !== 'string' || !ISO_INSTANT.test(value.trim())) return null;
  let text = value.trim();
  if (/T[\d:.]+$/.test(text)) text += 'Z';
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) return null;
  const [y, m, d] = text.slice(0, 10).split('-').map(Number);
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCMonth() === m - 1 && date.getUTCDate() === d ? ms : null;
}

/** The open slots of a meeting type: the starts, ascending, each lasting `durationMinutes`. */
export type SlotList = { meetingTypeId: string; timezone: string; durationMinutes: number; starts: number[] };

/**
 * `GET /v1/meeting-types/{id}/slots`: the documented 400s in their order, from
 * one batch: the meeting type, its pool and, when `from`/`to` make a range the
 * route answers, the calendar of that range (its window worked out from the
 * meeting type's rules inside the statement).
 */
export async function listSlots(db: Db, workspaceId: string, id: string, query: { from?: string; to?: string }, now = Date.now()): Promise<SlotList> {
  const from = parseInstant(query.from);
  const to = parseInstant(query.to);
  const ranged = from !== null && to !== null && to > from && to - from <= MAX_SLOT_RANGE_DAYS * DAY_MS;
  const results = await runBatch(db, [...typeReads(db, workspaceId, id), ...(ranged ? [listingRead(db, workspaceId, id, from, to)] : [])]);
  const found = typeFrom(results);
  if (!found) throw BookingErrors.meetingTypeNotFound();
  const { row, members } = found;
  if (!row.isActive) throw BookingErrors.notActive();
  if (from === null || to === null) throw BookingErrors.invalidRange();
  if (to <= from) throw BookingErrors.rangeReversed();
  if (!ranged) throw BookingErrors.rangeTooLong({ days: MAX_SLOT_RANGE_DAYS });
  if (!row.weeklyHours) throw BookingErrors.noSchedule();
  return {
    meetingTypeId: row.id,
    timezone: row.timezone,
    durationMinutes: row.durationMinutes,
    starts: openStarts(rulesOf(row, members), calendarOf(results[2]).calendar, from, to, now),
  };
}

/** `HH:MM` of each minute of a day. */
const CLOCK = Array.from({ length: 1440 }, (_, m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);

/**
 * The slots answer as JSON text, `{meeting_type_id, timezone, duration_minutes, slots: [{start, end}]}`,
 * with instants as `toISOString` writes them: 62 days of 5-minute slots are
 * 18,000 objects, which written directly cost a fraction of building them and
 * serializing them (a whole-minute instant is its day's date, once per day,
 * and its clock time from a table).
 */
export function slotListJson(list: SlotList): string {
  const length = list.durationMinutes * MINUTE;
  let day = NaN;
  let date = '';
  const iso = (ms: number) => {
    const d = Math.floor(ms / DAY_MS);
    const rest = ms - d * DAY_MS;
    if (rest % MINUTE !== 0) return new Date(ms).toISOString();
    if (d !== day) {
      day = d;
      date = new Date(d * DAY_MS).toISOString().slice(0, 11);
    }
    return `${date}${CLOCK[rest / MINUTE]}:00.000Z`;
  };
  let slots = '';
  for (let i = 0; i < list.starts.length; i++) {
    const start = list.starts[i];
    slots += `${i ? ',' : ''}{"start":"${iso(start)}","end":"${iso(start + length)}"}`;
  }
  return `{"meeting_type_id":${JSON.stringify(list.meetingTypeId)},"timezone":${JSON.stringify(list.timezone)},"duration_minutes":${list.durationMinutes},"slots":[${slots}]}`;
}

// ---------------------------------------------------------------- embed and settings

const newEmbedKey = () => `bk_${base64url(randomToken(24))}`;

export type BookingSettings = typeof bookingSettings.$inferSelect;

const settingsInsert = preparedSql(
  'run',
  () =>
    sql`INSERT INTO ${bookingSettings} (workspace_id, embed_key, link_secret, created_at, updated_at)
      VALUES (${sql.placeholder('ws')}, ${sql.placeholder('key')}, ${sql.placeholder('secret')}, ${sql.placeholder('now')}, ${sql.placeholder('now')}) ON CONFLICT DO NOTHING`,
);
const settingsById = prepared((db) =>
  db
    .select()
    .from(bookingSettings)
    .where(eq(bookingSettings.workspaceId, sql.placeholder('ws'))),
);

/** For a caller's batch: the workspace's booking settings (none before their first use). */
export const settingsRead = (db: Db, workspaceId: string) => settingsById.in(db, { ws: workspaceId });

/** For a caller's batch: the settings' first-use insert (a parallel first use may have won it); `settingsRead` after it reads them. */
export const settingsFirstUse = (db: Db, workspaceId: string): Statement =>
  settingsInsert.in(db, { ws: workspaceId, key: newEmbedKey(), secret: base64url(randomToken(32)), now: nowIso() });

/** The workspace's booking settings (the `bk_` embed key, the link secret), created on first use: one batch. */
export async function bookingSettingsOf(db: Db, workspaceId: string): Promise<BookingSettings> {
  const [, rows] = (await runBatch(db, [settingsFirstUse(db, workspaceId), settingsRead(db, workspaceId)])) as [unknown, BookingSettings[]];
  return rows[0];
}

/** Issues a new `bk_` key; the old one stops working at once. */
export async function rotateEmbedKey(db: Db, workspaceId: string) {
  await bookingSettingsOf(db, workspaceId);
  const embedKey = newEmbedKey();
  await db.update(bookingSettings).set({ embedKey, updatedAt: nowIso() }).where(eq(bookingSettings.workspaceId, workspaceId));
  return { embed_key: embedKey };
}

export const bookingPageUrl = (base: string, workspaceId: string, slug: string) => `${base}/book/${workspaceId}/${encodeURIComponent(slug)}`;

const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** `GET /v1/meeting-types/{id}/embed`: the publishable key, the hosted page and a two-line snippet. */
export async function embedMaterial(db: Db, workspaceId: string, id: string, base: string) {
  const found = await loadMeetingType(db, workspaceId, id);
  if (!found) throw BookingErrors.meetingTypeNotFound();
  const settings = await bookingSettingsOf(db, workspaceId);
  const pageUrl = bookingPageUrl(base, workspaceId, found.row.slug);
  const snippet = [
    `<div data-booking-embed="${attr(found.row.slug)}" data-workspace="${attr(workspaceId)}" data-key="${attr(settings.embedKey)}"></div>`,
    `<script src="${attr(base)}/book/embed.js" async></script>`,
  ].join('\n');
  return { workspace_ref: workspaceId, slug: found.row.slug, embed_key: settings.embedKey, page_url: pageUrl, snippet_html: snippet };
}

// ---------------------------------------------------------------- operator writes

export type MeetingTypeInput = {
  name: string;
  slug: string;
  duration_minutes: number;
  scheduling_kind: (typeof SCHEDULING_KINDS)[number];
  host_user_ids: string[];
  timezone: string;
  weekly_hours?: WeeklyHours | null;
  min_notice_minutes?: number;
  buffer_before_minutes?: number;
  buffer_after_minutes?: number;
  daily_cap?: number | null;
  slot_interval_minutes?: number;
  location_type?: string;
  is_active?: boolean;
  description?: string | null;
};

const slugTaken = uniqueOn(meetingTypes.workspaceId, meetingTypes.slug);

/** Operator create: hosts must be members of the workspace; one-on-one types have exactly one. */
export async function createMeetingType(db: Db, workspaceId: string, input: MeetingTypeInput) {
  if (!isValidTimeZone(input.timezone)) throw BookingErrors.badZone();
  const hostIds = [...new Set(input.host_user_ids.map((h) => h.toLowerCase()))];
  if (input.scheduling_kind === 'one_on_one' && hostIds.length !== 1) throw BookingErrors.oneOnOneHosts();
  if (hostIds.length === 0) throw BookingErrors.noHosts();
  const members = await selectMembers(db, workspaceId, hostIds);
  if (members.length !== hostIds.length) throw BookingErrors.hostsNotMembers();
  const now = nowIso();
  const row: MeetingTypeRow = {
    id: uuidv7(),
    workspaceId,
    name: input.name,
    slug: input.slug,
    description: input.description ?? null,
    durationMinutes: input.duration_minutes,
    locationType: input.location_type ?? 'video',
    isActive: input.is_active ?? true,
    schedulingKind: input.scheduling_kind,
    hostUserIds: hostIds,
    timezone: input.timezone,
    weeklyHours: input.weekly_hours ?? null,
    minNoticeMinutes: input.min_notice_minutes ?? 0,
    bufferBeforeMinutes: input.buffer_before_minutes ?? 0,
    bufferAfterMinutes: input.buffer_after_minutes ?? 0,
    dailyCap: input.daily_cap ?? null,
    slotIntervalMinutes: input.slot_interval_minutes ?? input.duration_minutes,
    createdAt: now,
    updatedAt: now,
  };
  try {
    await db.insert(meetingTypes).values(row);
  } catch (err) {
    if (failedOn(err, slugTaken)) throw BookingErrors.slugTaken();
    throw err;
  }
  return {
    ...serializeMeetingType(row, membersById(members)),
    timezone: row.timezone,
    weekly_hours: row.weeklyHours,
    min_notice_minutes: row.minNoticeMinutes,
    buffer_before_minutes: row.bufferBeforeMinutes,
    buffer_after_minutes: row.bufferAfterMinutes,
    daily_cap: row.dailyCap,
    slot_interval_minutes: row.slotIntervalMinutes,
  };
}

/** Operator: a busy block of a member's external calendar. */
export async function addBusyBlock(db: Db, workspaceId: string, userId: string, input: { start_at: string; end_at: string }) {
  const [member] = await selectMembers(db, workspaceId, [userId]);
  if (!member) throw BookingErrors.userNotFound();
  const start = parseInstant(input.start_at);
  const end = parseInstant(input.end_at);
  if (start === null || end === null) throw BookingErrors.invalidBusyRange();
  if (end <= start) throw BookingErrors.busyRangeReversed();
  const row = { id: uuidv7(), workspaceId, userId, startAt: new Date(start).toISOString(), endAt: new Date(end).toISOString(), createdAt: nowIso() };
  await db.insert(busyBlocks).values(row);
  return { id: row.id, user_id: userId, start_at: row.startAt, end_at: row.endAt, created_at: row.createdAt };
}
