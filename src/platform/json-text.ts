import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';

/** An answer whose JSON text is already written (`T` is the shape it holds, for the route's types). */
export const jsonText = <T extends object, S extends ContentfulStatusCode>(c: Context, text: string, status: S) =>
  c.body(text, status, { 'content-type': 'application/json' }) as unknown as Response & TypedResponse<JSONParsed<T>, S, 'json'>;
