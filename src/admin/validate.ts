import type { Context } from 'hono';
import { z } from '@hono/zod-openapi';
import { INTEGER_RULE, PAGING_MAX, parsePaging } from '../platform/list';
import { SharedErrors } from '../platform/shared-errors';
import { AdminErrors } from './errors';
import { formatIssues, isUuid } from '../platform/validation';

export async function body<T extends z.ZodTypeAny>(c: Context, schema: T): Promise<z.infer<T>> {
  const raw = await c.req.json().catch(() => ({}));
  const result = schema.safeParse(raw);
  if (!result.success) throw SharedErrors.invalidRequest({ problems: formatIssues(result.error.issues as never) });
  return result.data;
}

export function idParam(c: Context, name: string): string {
  const value = c.req.param(name);
  if (!isUuid(value)) throw AdminErrors.idNotUuid({ name });
  return value.toLowerCase();
}

const OPERATOR_PAGING = { limit: 50, cap: 500 };

/** The `limit` query of operator lists: default 50, capped at 500, read as `/v1` reads it. */
export function limitParam(c: Context): number {
  return pagingParams(c).limit;
}

/** `limit` and `offset` of an operator list that pages by offset. */
export function pagingParams(c: Context) {
  return parsePaging({ limit: c.req.query('limit'), offset: c.req.query('offset') }, OPERATOR_PAGING);
}

/** The `limit` query as the operator API's document states it. */
export const limitQuery = z.object({
  limit: z
    .string()
    .optional()
    .openapi({
      type: 'integer',
      minimum: 0,
      maximum: PAGING_MAX,
      default: OPERATOR_PAGING.limit,
      description: `Default ${OPERATOR_PAGING.limit}; values above ${OPERATOR_PAGING.cap} are clamped to ${OPERATOR_PAGING.cap}. ${INTEGER_RULE('limit')}`,
    }),
});

/** `limit` and `offset`, where an operator list takes both. */
export const pagingQuery = limitQuery.extend({
  offset: z
    .string()
    .optional()
    .openapi({ type: 'integer', minimum: 0, maximum: PAGING_MAX, default: 0, description: `Rows to skip, default 0. ${INTEGER_RULE('offset')}` }),
});
