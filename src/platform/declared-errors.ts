import type { Context, MiddlewareHandler } from 'hono';

/**
 * What each /v1 operation declares it can answer (its route's `errors`), so an error it answers
 * without declaring it is caught where it happens instead of going undocumented. The request,
 * auth, limit and platform entries are every operation's and need no declaration.
 */
type Declared = { readonly kind: string; readonly declaredAs: string };

const declared = new WeakMap<Context, { operationId: string; entries: ReadonlySet<string> }>();

/** The middleware a route runs first: the declaration of the operation the request reached. */
export const declaring =
  (operationId: string, errors: readonly Declared[]): MiddlewareHandler =>
  async (c, next) => {
    declared.set(c, { operationId, entries: new Set(errors.map((e) => e.declaredAs)) });
    await next();
  };

/** Where the request reached an operation that does not declare `entry`: the operation's id; else null. */
export function undeclaredBy(c: Context, entry: Declared): string | null {
  if (entry.kind !== 'own') return null;
  const operation = declared.get(c);
  return operation && !operation.entries.has(entry.declaredAs) ? operation.operationId : null;
}
