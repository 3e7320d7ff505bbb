import type { Context } from 'hono';
import { z } from '@hono/zod-openapi';
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

/** The `limit` query of operator lists: default 50, capped at 500; anything but a non-negative integer is a 400. */
export function limitParam(c: Context): number {
  const raw = c.req.query('limit');
  const limit = raw === undefined || raw === '' ? 50 : Number(raw);
  if (!Number.isInteger(limit) || limit < 0) throw SharedErrors.invalidInteger({ name: 'limit' });
  return Math.min(limit, 500);
}

/** The `limit` query as the operator API's document states it. */
export const limitQuery = z.object({
  limit: z.string().optional().openapi({
    type: 'integer',
    minimum: 0,
    default: 50,
    description:
      'Default 50; values above 500 are clamped to 500. Anything but a non-negative integer answers 400 `Invalid limit: must be a non-negative integer`',
  }),
});
