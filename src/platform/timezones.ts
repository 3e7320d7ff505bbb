import { instanceCache } from './instance-cache';

/** Whether the runtime knows a zone: asking means making a formatter, the costly part of using one. */
const cache = instanceCache<boolean>('time-zone-ids', { max: 500 });

/** True for IANA zone ids the runtime knows (e.g. `Europe/Berlin`, `UTC`). */
export function isValidTimeZone(zone: unknown): zone is string {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64) return false;
  const known = cache.get(zone);
  if (known !== undefined) return known;
  let ok: boolean;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    ok = true;
  } catch {
    ok = false;
  }
  cache.set(zone, ok);
  return ok;
}
