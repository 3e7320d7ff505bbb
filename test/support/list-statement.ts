import { expect } from 'vitest';
import type { ServiceContext } from '../../src/platform/context';
import { dbFor } from '../../src/platform/d1/db';
import { shardOf } from './db';

/** The statements a service call sends to the workspace's shard (captured from the D1 binding it runs on), with its answer. */
async function recorded<T>(workspaceId: string, run: (ctx: ServiceContext) => Promise<T>) {
  const shard = await shardOf(workspaceId);
  const seen: { sql: string; params: unknown[] }[] = [];
  const recording = {
    prepare: (query: string) => {
      const entry = { sql: query, params: [] as unknown[] };
      seen.push(entry);
      const statement = shard.prepare(query);
      return Object.assign(Object.create(statement), {
        bind: (...params: unknown[]) => {
          entry.params = params;
          return statement.bind(...params);
        },
      });
    },
    batch: (statements: D1PreparedStatement[]) => shard.batch(statements),
  } as unknown as D1Database;
  const answer = await run({ db: dbFor(recording), ws: { id: workspaceId, defaultCountry: 'US' } } as unknown as ServiceContext);
  const planOf = async ({ sql, params }: { sql: string; params: unknown[] }) =>
    (
      await shard
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>()
    ).results.map((r) => r.detail);
  return { shard, seen, answer, planOf };
}

/**
 * The one statement a list sends for a query, with its `EXPLAIN QUERY PLAN` lines, the rows D1
 * reports it read (`meta.rows_read`: every table and index row it stepped through) when run again
 * alone, and the list's own answer.
 */
export async function statementOf<T>(ws: { id: string }, list: (ctx: ServiceContext) => Promise<T>) {
  const { shard, seen, answer, planOf } = await recorded(ws.id, list);
  expect(seen).toHaveLength(1);
  const [{ sql, params }] = seen;
  const run = await shard
    .prepare(sql)
    .bind(...params)
    .all();
  return { plan: await planOf(seen[0]), rowsRead: run.meta.rows_read, answer };
}

/** The `EXPLAIN QUERY PLAN` lines of every statement a service call sends, in order. */
export async function plansOf(ws: { id: string }, run: (ctx: ServiceContext) => Promise<unknown>): Promise<string[][]> {
  const { seen, planOf } = await recorded(ws.id, run);
  return Promise.all(seen.map(planOf));
}

/** Plan lines reading `table` itself (not an index named after it). */
export const readsOf = (plan: string[], table: string) => plan.filter((line) => new RegExp(`^(SCAN|SEARCH) ${table}( |$)`).test(line));
