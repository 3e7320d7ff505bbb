import { z } from '@hono/zod-openapi';

/**
 * Bounds for free-form JSON objects the API stores (contact `custom_fields`,
 * consent `evidence`, ...). Whatever is accepted must read back on every later
 * list and get, so depth, key count and size are capped at the write.
 */
export type JsonBounds = {
  /** Levels of objects and arrays, the object itself being level 1. */
  maxDepth: number;
  /** Keys of every object inside, the nested ones included. */
  maxKeys: number;
  /** UTF-8 bytes of the JSON serialization. */
  maxBytes: number;
  /** Characters of one top-level key (keys are addressable in filters). */
  maxKeyLength?: number;
};

export const CUSTOM_FIELDS_BOUNDS: JsonBounds = { maxDepth: 5, maxKeys: 100, maxBytes: 16_384, maxKeyLength: 100 };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Why `value` exceeds `bounds`, or null. The walk is iterative and stops at
 * the first excess, so a value nested thousands of levels deep costs no stack.
 */
export function jsonBoundsProblem(value: Record<string, unknown>, bounds: JsonBounds): string | null {
  if (bounds.maxKeyLength !== undefined) {
    for (const key of Object.keys(value)) {
      if (key.length === 0 || key.length > bounds.maxKeyLength) return `keys must be 1 to ${bounds.maxKeyLength} characters`;
    }
  }
  let keys = 0;
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > bounds.maxDepth) return `must nest at most ${bounds.maxDepth} levels of objects and arrays`;
    const children = Array.isArray(node) ? node : Object.values(node);
    if (!Array.isArray(node)) {
      keys += children.length;
      if (keys > bounds.maxKeys) return `must hold at most ${bounds.maxKeys} keys (nested keys included)`;
    }
    for (const child of children) pending.push([child, depth + 1]);
  }
  if (new TextEncoder().encode(JSON.stringify(value)).length > bounds.maxBytes) return `must be at most ${bounds.maxBytes} bytes serialized`;
  return null;
}

export const describeBounds = (b: JsonBounds) =>
  `at most ${b.maxDepth} levels of nesting, ${b.maxKeys} keys in all (nested keys included) and ${b.maxBytes} bytes serialized` +
  (b.maxKeyLength ? `; keys are 1 to ${b.maxKeyLength} characters` : '');

/**
 * A JSON object within `bounds`. The parsed object passes through as it was
 * sent (a record schema would rebuild it and turn a `__proto__` key into a
 * prototype), so every key the client sent is an own key of the value.
 */
export const boundedJsonObject = (bounds: JsonBounds, description: string) =>
  z
    .custom<Record<string, unknown>>(isObject, { message: 'must be an object' })
    .superRefine((value, ctx) => {
      const problem = jsonBoundsProblem(value, bounds);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .openapi({
      type: 'object',
      additionalProperties: true,
      ...(bounds.maxKeyLength ? { propertyNames: { minLength: 1, maxLength: bounds.maxKeyLength } } : {}),
      maxProperties: bounds.maxKeys,
      description: `${description} (${describeBounds(bounds)})`,
    });

/**
 * A record of `key` names to `value`s that keeps the object as parsed: every
 * own key is checked (the key's and the value's own messages, under the key's
 * path) and the object passes through, so a `__proto__` key stays an own key
 * that later rules see. A record schema skips that key and rebuilds the
 * object without it, silently dropping what the client sent.
 */
export const ownKeyRecord = <V extends z.ZodType>(key: z.ZodType<string>, value: V) =>
  z.custom<Record<string, z.output<V>>>(isObject, { message: 'must be an object' }).superRefine((record, ctx) => {
    for (const [name, item] of Object.entries(record)) {
      for (const issue of [...(key.safeParse(name).error?.issues ?? []), ...(value.safeParse(item).error?.issues ?? [])]) {
        ctx.addIssue({ code: 'custom', path: [name, ...issue.path], message: issue.message });
      }
    }
  });
