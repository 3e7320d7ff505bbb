import type { Context, TypedResponse } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { JSONParsed } from 'hono/utils/types';

/** Each answer object's JSON text, made on its first response: a kept answer (`ListAnswers`) is the same object every time. */
const texts = new WeakMap<object, string>();

/**
 * `c.json` for answers served again and again from a kept object: its text is made once and the
 * same text answers every later request, so a kept page of 25 rows costs no serialisation (nor
 * the garbage a fresh 20 KB string leaves). The object must not change after its first response.
 */
export function keptJson<T extends object, S extends ContentfulStatusCode>(c: Context, answer: T, status: S) {
  let text = texts.get(answer);
  if (text === undefined) texts.set(answer, (text = JSON.stringify(answer)));
  return jsonText<T, S>(c, text, status);
}

/** An answer whose JSON text is already written (`T` is the shape it holds, for the route's types). */
export const jsonText = <T extends object, S extends ContentfulStatusCode>(c: Context, text: string, status: S) =>
  c.body(text, status, { 'content-type': 'application/json' }) as unknown as Response & TypedResponse<JSONParsed<T>, S, 'json'>;
