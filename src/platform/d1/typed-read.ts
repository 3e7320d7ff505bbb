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
