import { sql, type SQL } from 'drizzle-orm';
import { handleOver, type BatchResults, type Db } from './handle';
import type { Queryable } from './queryable';
import type { Statement } from './statement';

export type { Db } from './handle';
export type { Statement } from './statement';

/**
 * One handle per request. Workspaces reach their data only through this
 * resolver, so sharding workspaces over several databases later touches only here.
 */
export function dbFor(d1: D1Database): Db {
  return handleOver(d1);
}

/** The D1 client (or session) behind a handle, for statements drizzle does not prepare itself. */
export const clientOf = (db: Db): Queryable => db.$client;

/** The only atomic unit D1 offers: all statements commit together or none does. */
export async function runBatch<T extends readonly Statement[]>(db: Db, statements: readonly [...T]): Promise<BatchResults<T>> {
  if (statements.length === 0) return [] as BatchResults<T>;
  return db.batch(statements);
}

/** The clock stands still while a request computes (it moves on I/O), so a request's many stamps share one formatting. */
let lastMs = NaN;
let lastIso = '';
export const nowIso = (): string => {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
};

/**
 * D1 has no interactive transactions: a write that depends on what was read
 * sets a NOT NULL column to NULL when the read no longer holds. The constraint
 * then fails the whole batch (events included), and the operation runs again
 * from its reads; it names the failure by the column (`guardOf(deals.stageId)`,
 * ./constraints.ts, in `lostRaceOn` of ./operation.ts).
 */
export const guarded = (expectation: SQL, value: SQL) => sql`CASE WHEN ${expectation} THEN ${value} ELSE NULL END`;

/**
 * Attempts of a write that keeps losing races. Each lost race means another
 * write committed in between, so N parallel writes on one record all finish
 * within N attempts; this covers bursts of 10 with room to spare.
 */
export const CONFLICT_ATTEMPTS = 12;
