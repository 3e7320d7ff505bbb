import { runBatch, type Db } from './db';
import type { Statement } from './statement';
import type { RowsOf } from './typed-read';

/**
 * `writes`, then `reads`, as one batch (all or nothing): each read's rows by name, which see what
 * the writes did (a delete's RETURNING, the row an update left).
 */
export async function writeThenRead<R extends Record<string, Statement>>(
  db: Db,
  writes: Statement[],
  reads: R,
): Promise<{ [K in keyof R]: RowsOf<R[K]> }> {
  const names = Object.keys(reads);
  const results = (await runBatch(db, [...writes, ...Object.values(reads)])).slice(writes.length);
  return Object.fromEntries(names.map((name, i) => [name, results[i]])) as { [K in keyof R]: RowsOf<R[K]> };
}
