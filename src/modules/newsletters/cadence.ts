import { Temporal } from 'temporal-polyfill';

/**
 * The catch-up slot `days` local days after `now` (0: the next one still to
 * come today or tomorrow) at `time` (`HH:MM`) in the workspace zone, as a UTC
 * ISO instant. A time a DST gap skips moves forward (Temporal's `compatible`).
 */
export function catchupSlot(now: Date, days: number, time: string, timeZone: string): string {
  const [hour, minute] = time.split(':').map(Number);
  const local = Temporal.Instant.fromEpochMilliseconds(now.getTime()).toZonedDateTimeISO(timeZone);
  let slot = local
    .toPlainDate()
    .add({ days })
    .toZonedDateTime({ timeZone, plainTime: new Temporal.PlainTime(hour, minute) });
  while (Temporal.ZonedDateTime.compare(slot, local) <= 0) slot = slot.add({ days: 1 });
  return new Date(slot.epochMilliseconds).toISOString();
}
