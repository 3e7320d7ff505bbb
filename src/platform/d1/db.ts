import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import type { BatchItem } from 'drizzle-orm/batch';
import { sql, type SQL } from 'drizzle-orm';
import type { Queryable } from './queryable';
import { SharedErrors } from '../shared-errors';

/** A request's handle; `$client` is what it was made over (a binding, or a session wrapped as ./floors.ts and ./write-gate.ts do). */
export type Db = DrizzleD1Database<Record<string, never>> & { $client: Queryable };
export type Statement = BatchItem<'sqlite'>;

/**
 * One handle per request. Workspaces reach their data only through this
 * resolver, so sharding workspaces over several databases later touches only here.
 */
export function dbFor(d1: D1Database): Db {
  return drizzle(d1);
}

/** The D1 client (or session) behind a handle, for statements drizzle does not prepare itself. */
export const clientOf = (db: Db): Queryable => db.$client;

/** The only atomic unit D1 offers: all statements commit together or none does. */
export async function runBatch(db: Db, statements: Statement[]): Promise<unknown[]> {
  if (statements.length === 0) return [];
  const [first, ...rest] = statements;
  return db.batch([first, ...rest]);
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
 * then fails the whole batch (events included), and the caller re-reads; it asks
 * for the failure by the column (`guardOf(deals.stageId)`, ./constraints.ts).
 */
export const guarded = (expectation: SQL, value: SQL) => sql`CASE WHEN ${expectation} THEN ${value} ELSE NULL END`;

/**
 * Attempts of a write that keeps losing races. Each lost race means another
 * write committed in between, so N parallel writes on one record all finish
 * within N attempts; this covers bursts of 10 with room to spare.
 */
export const CONFLICT_ATTEMPTS = 12;

/**
 * Runs `once` again (re-reading everything) when a batch lost a race: a unique
 * index or a `guarded` expectation failed (`lostRace`, usually `lostRaceOn(...)`). A short random pause spreads the
 * retries of writers that collided. A write that loses every attempt answers
 * 409; other errors propagate.
 */
export async function retryOnConflict<T>(once: () => Promise<T>, lostRace: (err: unknown) => boolean, attempts = CONFLICT_ATTEMPTS): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (err) {
      if (!lostRace(err)) throw err;
      if (attempt >= attempts) throw SharedErrors.concurrentChange();
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}
