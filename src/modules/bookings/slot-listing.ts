import type { Db } from '../../platform/d1/db';
import { readAll } from '../../platform/d1/operation';
import { calendarOf, listingRead } from './calendar';
import { parseInstant } from './instant';
import { rulesOf, typeFrom, typeReads } from './meeting-types';
import { openStarts } from './slots';
import { BookingErrors } from './errors';

export const MAX_SLOT_RANGE_DAYS = 62;
const DAY_MS = 86_400_000;
const MINUTE = 60_000;

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
  const read = await readAll(db, { ...typeReads(db, workspaceId, id), calendar: ranged && listingRead(db, workspaceId, id, from, to) });
  const found = typeFrom(read);
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
    starts: openStarts(rulesOf(row, members), calendarOf(read.calendar).calendar, from, to, now),
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
