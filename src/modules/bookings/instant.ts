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
