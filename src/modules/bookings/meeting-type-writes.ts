import { failedOn, uniqueOn } from '../../platform/d1/constraints';
import { nowIso, type Db } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { isValidTimeZone } from '../../platform/timezones';
import { selectMembers } from '../workspaces';
import { parseInstant } from './instant';
import { membersById, serializeMeetingType } from './meeting-types';
import { busyBlocks, meetingTypes, type SCHEDULING_KINDS, type MeetingTypeRow, type WeeklyHours } from './schema';
import { BookingErrors } from './errors';

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
