import { runBatch, type Db } from './db';
import type { Statement } from './statement';

declare const rows: unique symbol;

/**
 * A statement of a read batch that says what it reads: its rows' type travels with it, so a
 * batch's results are typed by what was put in, never cast by position. Prepared reads carry it;
 * drizzle's own builders give theirs as what they resolve to.
 */
export type Read<T> = Statement & { readonly [rows]: T };

/** What a read statement answers. */
export type RowsOf<S> = S extends { readonly [rows]: infer T } ? T : S extends PromiseLike<infer T> ? T : unknown;

/** `statement` as a read of `T`: for statements built outside the typed helpers (raw SQL whose rows the caller knows). */
export const readOf = <T>(statement: Statement): Read<T> => statement as Read<T>;

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
