import { z } from '@hono/zod-openapi';
import { sql, type AnyColumn, type SQL, type SQLWrapper } from 'drizzle-orm';
import { SharedErrors } from './shared-errors';
import { misreadingIn } from './validation';

export type Paging = { limit: number; offset: number };

/*
 * Query parameters, typed in the OpenAPI document and parsed by the functions
 * below with the documented 400 messages. Query values arrive as strings, so
 * each schema accepts the raw string and documents its real type (`integer`,
 * `boolean`, `format: uuid`, a `sort` enum); every list route builds its query
 * from these, and `test/openapi/document.test.ts` fails on an untyped one.
 */

/** The largest `limit`/`offset` `parsePaging` reads (15 digits); a longer number answers 400 like any malformed one. */
export const PAGING_MAX = 999_999_999_999_999;

/** What a paging value must be, as the document says it (`parsePaging`). */
export const INTEGER_RULE = (name: string) =>
  `Anything but a non-negative integer of at most 15 digits, written plainly (no sign, leading zero, space, exponent or hex), answers 400 \`Invalid ${name}: must be a non-negative integer\``;

/** `limit`: an integer >= 0 (`parsePaging`); values above the list's cap are clamped. */
export const limitQuery = (paging: { limit: number; cap: number }) =>
  z
    .string()
    .optional()
    .openapi({
      type: 'integer',
      minimum: 0,
      maximum: PAGING_MAX,
      default: paging.limit,
      description: `Page size, default ${paging.limit} (also when empty); values above ${paging.cap} (up to ${PAGING_MAX}) are clamped to ${paging.cap}. ${INTEGER_RULE('limit')}`,
    });

/** `offset`: an integer >= 0 (`parsePaging`). */
export const offsetQuery = () =>
  z
    .string()
    .optional()
    .openapi({
      type: 'integer',
      minimum: 0,
      maximum: PAGING_MAX,
      default: 0,
      description: `Rows to skip, default 0 (also when empty). ${INTEGER_RULE('offset')}`,
    });

/** `sort`: one of the list's sortable fields, `-` prefix for descending (`parseSort`). */
export const sortQuery = (fields: readonly string[], fallback = '-created_at') =>
  z
    .string()
    .optional()
    .openapi({
      type: 'string',
      enum: fields.flatMap((f) => [f, `-${f}`]),
      default: fallback,
      description: 'A sortable field; a `-` prefix sorts descending; empty is the default. Another field answers 400 `Invalid sort: ...`',
    });

/** An exact-match UUID filter: empty is ignored, malformed answers 400 `Invalid <name>: must be a UUID`. */
export const uuidQuery = (name: string) =>
  z
    .string()
    .optional()
    .openapi({
      type: 'string',
      format: 'uuid',
      description: `Exact match; an empty value is ignored; a malformed one answers 400 \`Invalid ${name}: must be a UUID\``,
    });

/** A boolean filter: `true` or `false`, anything else answers 400 `Invalid <name>: must be true or false` (`parseBooleanParam`). */
export const booleanQuery = (name: string, description: string) =>
  z
    .string()
    .optional()
    .openapi({
      type: 'boolean',
      description: `${description}. Anything but \`true\` or \`false\` answers 400 \`Invalid ${name}: must be true or false\``,
    });

/** `filter`: a string-encoded JSON object (`parseFilterParam`); `example` is a filter this list accepts. */
export const filterQuery = (example: Record<string, unknown>) =>
  z
    .string()
    .optional()
    .openapi({
      type: 'string',
      description:
        'String-encoded JSON object; see the filter grammar; empty is no filter. Invalid JSON answers 400 `Invalid filter: must be valid JSON`, a non-object 400 `Invalid filter: must be a JSON object`',
      example: JSON.stringify(example),
    });

/** A free-text parameter (`searchParam`): control characters answer 400 `Invalid <name>: must not contain control characters`. */
export const searchQuery = (name: string, description: string) =>
  z
    .string()
    .optional()
    .openapi({
      type: 'string',
      description: `${description}. Control characters answer 400 \`Invalid ${name}: must not contain control characters\``,
    });

/** An exact-match text parameter. */
export const textQuery = (description: string) => z.string().optional().openapi({ type: 'string', description });

/** An enum filter whose other values answer 400 (the route's parser says so in `description`). */
export const enumQuery = (values: readonly [string, ...string[]], description: string) =>
  z
    .string()
    .optional()
    .openapi({ type: 'string', enum: [...values], description });

/**
 * A filter of known values whose other values are ignored: documented without `enum`, since the
 * list accepts any value, and with the values that filter listed in the description.
 */
export const knownValuesQuery = (values: readonly [string, ...string[]], description: string) =>
  z
    .string()
    .optional()
    .openapi({
      type: 'string',
      examples: [values[0]],
      description: `${description}: one of ${values.map((v) => `\`${v}\``).join(', ')}. Any other value, empty included, is ignored (the list is not filtered by it)`,
    });

/** The query of the shared list conventions: `filter`, `sort`, `limit`, `offset`, `search`. */
export const listQuery = (opts: {
  sorts: readonly string[];
  fallbackSort?: string;
  paging: { limit: number; cap: number };
  search: string;
  filterExample: Record<string, unknown>;
}) =>
  z.object({
    filter: filterQuery(opts.filterExample),
    sort: sortQuery(opts.sorts, opts.fallbackSort),
    limit: limitQuery(opts.paging),
    offset: offsetQuery(),
    search: searchQuery('search', opts.search),
  });

/** `true`/`false` or absent; anything else is a 400 with the documented message. */
export function parseBooleanParam(name: string, raw: string | undefined): boolean | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw SharedErrors.invalidBoolean({ name });
}

/**
 * A non-negative integer written the one way JSON and the document write it: no sign, no
 * leading zero, no spaces, no exponent or hex. `Number()` would read `0x10`, `1e1` and ` 5`
 * as numbers, and a value past 15 digits loses its last ones, so each of those is a 400.
 */
const CANONICAL_INTEGER = /^(0|[1-9]\d{0,14})$/;

/**
 * `limit`/`offset` as the list conventions define them, on `/v1` and `/admin/v1` alike: absent
 * or empty takes the default, a value above the cap is clamped, anything that is not a
 * non-negative integer of at most 15 digits is a 400 with the documented message.
 */
export function parsePaging(query: { limit?: string; offset?: string }, defaults: { limit: number; cap: number }): Paging {
  return {
    limit: Math.min(parseNonNegative('limit', query.limit, defaults.limit), defaults.cap),
    offset: parseNonNegative('offset', query.offset, 0),
  };
}

function parseNonNegative(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!CANONICAL_INTEGER.test(raw)) throw SharedErrors.invalidInteger({ name });
  return Number(raw);
}

/** The `filter` param: a JSON object, with any `workspace_id` dropped (the caller's workspace always applies). */
export function parseFilterParam(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw SharedErrors.filterNotJson();
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw SharedErrors.filterNotObject();
  }
  const misread = misreadingIn(value);
  if (misread) throw misread.rule === 'must be a finite number' ? SharedErrors.filterNotFinite() : SharedErrors.filterStrings({ rule: misread.rule });
  const { workspace_id: _ignored, ...rest } = value as Record<string, unknown>;
  return rest;
}

/**
 * A free-text search parameter as sent. Control characters have no place in a
 * search term, and some storage layers end a string at NUL, which would turn
 * the term into one that matches everything: 400.
 */
export function searchParam(name: string, raw: string | undefined): string | undefined {
  if (raw !== undefined && /\p{Cc}/u.test(raw)) throw SharedErrors.controlCharacters({ name });
  return raw;
}

export type SortSpec = { field: string; descending: boolean };

export function parseSort(raw: string | undefined, allowed: readonly string[], fallback = '-created_at'): SortSpec {
  const text = raw === undefined || raw.trim() === '' ? fallback : raw.trim();
  const descending = text.startsWith('-');
  const field = descending ? text.slice(1) : text;
  if (!allowed.includes(field)) {
    throw SharedErrors.invalidSort({ field: field.slice(0, 100), allowed: allowed.join(', ') });
  }
  return { field, descending };
}

export type Envelope<T> = { data: T[]; total: number; limit: number; offset: number };

export const envelope = <T>(data: T[], total: number, paging: Paging): Envelope<T> => ({ data, total, limit: paging.limit, offset: paging.offset });

/** `envelope`'s JSON text around items already written as JSON text (the same keys, in the same order). */
export const envelopeText = (items: string[], total: number, paging: Paging): string =>
  JSON.stringify(envelope([], total, paging)).replace('"data":[]', () => `"data":[${items.join(',')}]`);

/** A literal, case-insensitive substring match of `term` in any of `columns` (nulls never match; `%` and `_` are plain characters). */
export function containsInAny(term: string | SQLWrapper, columns: (AnyColumn | SQL)[]): SQL {
  const needle = sql`lower(${term})`;
  return sql`(${sql.join(
    columns.map((column) => sql`instr(lower(coalesce(${column}, '')), ${needle}) > 0`),
    sql` OR `,
  )})`;
}
