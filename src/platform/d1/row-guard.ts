import { sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { builtOnce } from './built-once';
import type { Db, Statement } from './db';

type Values = Record<string, unknown>;

/**
 * A condition a write statement checks when its batch runs, writing nothing
 * unless it holds: how a write rides in the same batch as the reads that decide
 * whether it should happen at all (one round trip instead of two). `condition`
 * is SQL with placeholders; `values` are theirs, added to the statement's own.
 */
export type RowGuard = { condition: SQL; values: Values };

const written = builtOnce((table: SQLiteTable) => sql`EXISTS (SELECT 1 FROM ${table} WHERE ${sql.identifier('id')} = ${sql.placeholder('guard')})`);

/** The guard of the statements that follow the conditional insert of row `id` of `table`: that row must exist. */
export function afterInsertOf(table: SQLiteTable, id: string): RowGuard {
  return { condition: written(table), values: { guard: id } };
}

const pairs = builtOnce((a: SQL) => builtOnce((b: SQL) => sql`(${a}) AND (${b})`));

/**
 * A guard that holds when both hold. Its condition is built once per pair of conditions (both
 * module constants), so the statements guarded by it still come in a handful of variants.
 */
export function bothOf(a: RowGuard, b: RowGuard): RowGuard {
  return { condition: pairs(a.condition)(b.condition), values: { ...a.values, ...b.values } };
}

type Bindable = { in(db: Db, values: Values): Statement };

/**
 * A prepared statement in one variant per guard condition (and one with none,
 * where the condition is `true`), each built once per isolate; guard conditions
 * are module constants, so a handful of variants exist.
 */
export function guardable<P extends Bindable>(build: (condition: SQL) => P) {
  const variants = new Map<SQL | null, P>();
  const variant = (guard: RowGuard | undefined): P => {
    const key = guard?.condition ?? null;
    let found = variants.get(key);
    if (!found) variants.set(key, (found = build(guard?.condition ?? sql`true`)));
    return found;
  };
  return {
    in: (db: Db, values: Values, guard?: RowGuard): Statement => variant(guard).in(db, guard ? { ...values, ...guard.values } : values),
  };
}
