/**
 * ISO 8601 durations of fixed length only (weeks, days, hours, minutes, seconds): a month or a year
 * has no fixed length, and a wait must be the same length whenever it starts. A leading `-` makes
 * an offset signed (`-PT24H`: a day before an instant).
 */
const DURATION = /^(-)?P(?!$)(?:(\d{1,4})W)?(?:(\d{1,5})D)?(?:T(?=\d)(?:(\d{1,6})H)?(?:(\d{1,8})M)?(?:(\d{1,9})S)?)?$/;

const SECOND = 1000;
export const MAX_WAIT_MS = 365 * 24 * 3600 * SECOND;

/** The duration in milliseconds, or null when the text is not such a duration. */
export function durationMs(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const m = DURATION.exec(text);
  if (!m) return null;
  const [, sign, w, d, h, min, s] = m;
  const ms = ((Number(w ?? 0) * 7 + Number(d ?? 0)) * 86_400 + Number(h ?? 0) * 3600 + Number(min ?? 0) * 60 + Number(s ?? 0)) * SECOND;
  return sign ? -ms : ms;
}

/** A wait or a timeout: from one second to 365 days. */
export function waitMs(text: unknown): number | null {
  const ms = durationMs(text);
  return ms !== null && ms >= SECOND && ms <= MAX_WAIT_MS && !String(text).startsWith('-') ? ms : null;
}
