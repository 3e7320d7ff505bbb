import { z } from '@hono/zod-openapi';
import { badRequest } from './errors';
import { nonFinitePath } from './validation';

export type Paging = { limit: number; offset: number };

/** Query params of the shared list conventions (Part 1), documented once. */
export const sharedListQuery = z.object({
  filter: z.string().optional().openapi({ description: 'String-encoded JSON object; see the filter grammar' }),
  sort: z.string().optional().openapi({ description: 'Field name; `-` prefix sorts descending', example: '-created_at' }),
  limit: z.string().optional().openapi({ description: 'Integer 0 to 500, default 50 (values above the cap are clamped)' }),
  offset: z.string().optional().openapi({ description: 'Integer >= 0, default 0' }),
  search: z.string().optional().openapi({ description: 'Free text; control characters answer 400' }),
});

const INT_RE = /^\d+$/;

/**
 * `limit`/`offset` as the list conventions define them: absent or empty takes
 * the default, a value above the cap is clamped, anything that is not a
 * non-negative integer is a 400 with the spec's message.
 */
export function parsePaging(query: { limit?: string; offset?: string }, defaults: { limit: number; cap: number }): Paging {
  return {
    limit: Math.min(parseNonNegative('limit', query.limit, defaults.limit), defaults.cap),
    offset: parseNonNegative('offset', query.offset, 0),
  };
}

function parseNonNegative(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const text = raw.trim();
  if (!INT_RE.test(text) || text.length > 15) throw badRequest(`Invalid ${name}: must be a non-negative integer`);
  return Number(text);
}

/** The `filter` param: a JSON object, with any `workspace_id` dropped (the caller's workspace always applies). */
export function parseFilterParam(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw badRequest('Invalid filter: must be valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest('Invalid filter: must be a JSON object');
  }
  if (nonFinitePath(value)) throw badRequest('Invalid filter: numbers must be finite');
  const { workspace_id: _ignored, ...rest } = value as Record<string, unknown>;
  return rest;
}

/**
 * A free-text search parameter as sent. Control characters have no place in a
 * search term, and some storage layers end a string at NUL, which would turn
 * the term into one that matches everything: 400.
 */
export function searchParam(name: string, raw: string | undefined): string | undefined {
  if (raw !== undefined && /\p{Cc}/u.test(raw)) throw badRequest(`Invalid ${name}: must not contain control characters`);
  return raw;
}

export type SortSpec = { field: string; descending: boolean };

export function parseSort(raw: string | undefined, allowed: readonly string[], fallback = '-created_at'): SortSpec {
  const text = raw === undefined || raw.trim() === '' ? fallback : raw.trim();
  const descending = text.startsWith('-');
  const field = descending ? text.slice(1) : text;
  if (!allowed.includes(field)) {
    throw badRequest(`Invalid sort: "${field.slice(0, 100)}" is not a sortable field (one of ${allowed.join(', ')})`);
  }
  return { field, descending };
}

export const envelope = <T>(data: T[], total: number, paging: Paging) => ({ data, total, limit: paging.limit, offset: paging.offset });
