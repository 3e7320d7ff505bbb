import { type SendWindow, WEEKDAYS } from './definition';

const MINUTE = 60_000;

/** Making a formatter is the costly part of asking one: one per zone and isolate. */
const formatters = new Map<string, Intl.DateTimeFormat>();
const formatterOf = (zone: string) =>
  formatters.get(zone) ??
  formatters
    .set(zone, new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }))
    .get(zone)!;

/** The weekday and minute of the day an instant is in a zone. */
function localClock(at: number, zone: string): { day: (typeof WEEKDAYS)[number]; minute: number } {
  const parts = formatterOf(zone).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: get('weekday').toLowerCase().slice(0, 3) as (typeof WEEKDAYS)[number], minute: Number(get('hour')) * 60 + Number(get('minute')) };
}

const minutesOf = (clock: string) => Number(clock.slice(0, 2)) * 60 + Number(clock.slice(3, 5));

/** Whether an instant falls in the window; a window whose end is before its start spans midnight and belongs to the day it opens. */
export function inWindow(window: SendWindow, zone: string, at: number): boolean {
  const { day, minute } = localClock(at, window.timezone ?? zone);
  const [start, end] = [minutesOf(window.start), minutesOf(window.end)];
  if (start < end) return window.days.includes(day) && minute >= start && minute < end;
  if (minute >= start) return window.days.includes(day);
  const yesterday = WEEKDAYS[(WEEKDAYS.indexOf(day) + 6) % 7];
  return minute < end && window.days.includes(yesterday);
}

/**
 * The next instant the window is open, `at` itself when it is open now. Walks forward a minute at a
 * time from the next whole minute, jumping an hour while far from the start (zones shift by whole or
 * half hours, so no opening is skipped); at most 8 days ahead, the longest any weekly window is shut.
 */
export function nextOpening(window: SendWindow, zone: string, at: number): number {
  if (inWindow(window, zone, at)) return at;
  let t = Math.ceil(at / MINUTE) * MINUTE;
  const limit = at + 8 * 24 * 60 * MINUTE;
  const start = minutesOf(window.start);
  while (t < limit) {
    if (inWindow(window, zone, t)) return t;
    const { minute } = localClock(t, window.timezone ?? zone);
    const ahead = (start - minute + 24 * 60) % (24 * 60);
    t += ahead > 90 ? 30 * MINUTE : MINUTE;
  }
  return t;
}
