import type { Bindings } from '../../src/env';

type Client = Pick<D1Database, 'prepare' | 'batch'>;

/**
 * `env` whose shards hold every batch carrying a statement that matches `pattern` until `release()`:
 * a worker stalled at that step (a merely slow original), while another env's workers run on.
 * `reached` settles when the first such batch arrives.
 */
export function gatedShards(env: Bindings, pattern: RegExp) {
  let reach!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  const sqlOf = new WeakMap<object, string>();
  const wrap = (db: Client): D1Database => {
    const wrapper = {
      prepare: (query: string) => {
        const statement = db.prepare(query);
        const bind = statement.bind.bind(statement);
        sqlOf.set(statement, query);
        statement.bind = (...values: unknown[]) => {
          const bound = bind(...values);
          sqlOf.set(bound, query);
          return bound;
        };
        return statement;
      },
      batch: async (statements: D1PreparedStatement[]) => {
        if (statements.some((s) => pattern.test(sqlOf.get(s) ?? ''))) {
          reach();
          await released;
        }
        return db.batch(statements);
      },
      withSession: (constraint?: string) => {
        const session = (db as D1Database).withSession(constraint);
        return { ...wrap(session), getBookmark: () => session.getBookmark() };
      },
    };
    return wrapper as unknown as D1Database;
  };
  const out: Record<string, unknown> = { ...(env as unknown as Record<string, unknown>) };
  for (const name of Object.keys(out)) if (/^SHARD_\d+$/.test(name)) out[name] = wrap(out[name] as D1Database);
  return { env: out as unknown as Bindings, reached, release };
}
