import { drizzle, type DrizzleD1Database } from 'drizzle-orm/d1';
import type { BatchItem } from 'drizzle-orm/batch';

export type Db = DrizzleD1Database<Record<string, never>>;
export type Statement = BatchItem<'sqlite'>;

/**
 * One handle per request. Workspaces reach their data only through this
 * resolver, so sharding workspaces over several databases later touches only here.
 */
export function dbFor(d1: D1Database): Db {
  return drizzle(d1);
}

/** The only atomic unit D1 offers: all statements commit together or none does. */
export async function runBatch(db: Db, statements: Statement[]): Promise<unknown[]> {
  if (statements.length === 0) return [];
  const [first, ...rest] = statements;
  return db.batch([first, ...rest]);
}

export const nowIso = () => new Date().toISOString();

/** D1 reports constraint failures as errors whose message (or cause) names the constraint. */
export function isUniqueViolation(err: unknown): boolean {
  for (let e: unknown = err; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof Error && /UNIQUE constraint failed/i.test(e.message)) return true;
  }
  return false;
}
