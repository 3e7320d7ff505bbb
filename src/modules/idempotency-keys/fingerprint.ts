import { sha256Hex } from '../../platform/ids';

/** JSON text of a parsed value with every object's keys sorted: equal values, equal text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What a key's requests must share: method, path and body compared as parsed values. */
export const requestFingerprint = (method: string, path: string, body: unknown): Promise<string> =>
  sha256Hex(`${method} ${path}\n${canonicalJson(body)}`);
