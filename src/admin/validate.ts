import type { Context } from 'hono';
import type { z } from '@hono/zod-openapi';
import { badRequest } from '../platform/errors';
import { formatIssues, isUuid } from '../platform/validation';

export async function body<T extends z.ZodTypeAny>(c: Context, schema: T): Promise<z.infer<T>> {
  const raw = await c.req.json().catch(() => ({}));
  const result = schema.safeParse(raw);
  if (!result.success) throw badRequest(formatIssues(result.error.issues as never));
  return result.data;
}

export function idParam(c: Context, name: string): string {
  const value = c.req.param(name);
  if (!isUuid(value)) throw badRequest([`${name} must be a UUID`]);
  return value.toLowerCase();
}
