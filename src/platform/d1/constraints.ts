import { getTableName, is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable, type AnySQLiteColumn } from 'drizzle-orm/sqlite-core';

/**
 * A constraint that failed a statement, and so its whole batch. D1 gives no error code for it,
 * only SQLite's text (`UNIQUE constraint failed: contacts.workspace_id, contacts.email`) on the
 * error or its cause; `constraintFailure` is the one place that reads that text.
 */
export type ConstraintFailure =
  | { kind: 'unique'; table: string; columns: string[] }
  /** A unique index over expressions, which SQLite names instead of its columns. */
  | { kind: 'unique_index'; index: string }
  | { kind: 'not_null'; table: string; column: string }
  /** `constraint`: the CHECK's name, or its expression when it has none. */
  | { kind: 'check'; constraint: string }
  | { kind: 'foreign_key' }
  /** A trigger's `RAISE(ABORT, message)`. */
  | { kind: 'trigger'; message: string };

/** `D1_ERROR: <SQLite's text>: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_<KIND>)`, the prefix and suffix each optional. */
const D1_TEXT = /^(?:D1_ERROR: )?([\s\S]*?)(: SQLITE_CONSTRAINT(?: \(extended: SQLITE_CONSTRAINT_(\w+)\))?)?$/;

function parse(message: string): ConstraintFailure | null {
  const [, text, coded, extended] = D1_TEXT.exec(message)!;
  let m: RegExpExecArray | null;
  if ((m = /^UNIQUE constraint failed: index '(.+)'$/.exec(text))) return { kind: 'unique_index', index: m[1] };
  if ((m = /^UNIQUE constraint failed: (\w+)\.\w+(?:, \1\.\w+)*$/.exec(text))) {
    return {
      kind: 'unique',
      table: m[1],
      columns: text
        .slice('UNIQUE constraint failed: '.length)
        .split(', ')
        .map((c) => c.slice(m![1].length + 1)),
    };
  }
  if ((m = /^NOT NULL constraint failed: (\w+)\.(\w+)$/.exec(text))) return { kind: 'not_null', table: m[1], column: m[2] };
  if ((m = /^CHECK constraint failed: ([\s\S]+)$/.exec(text))) return { kind: 'check', constraint: m[1] };
  if (text === 'FOREIGN KEY constraint failed') return { kind: 'foreign_key' };
  // Any other text SQLite reports as a constraint failure is a trigger's own message.
  if (coded && (extended === undefined || extended === 'TRIGGER')) return { kind: 'trigger', message: text };
  return null;
}

/** The constraint failure behind `err` (a D1 error, or one wrapping it as its cause), or null when it is none. */
export function constraintFailure(err: unknown): ConstraintFailure | null {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const failure = parse(e.message);
    if (failure) return failure;
  }
  return null;
}

/**
 * A constraint a write may fail on when a parallel write won a race, named from the schema: a
 * renamed column is a compile error, and a key the schema does not declare throws where it is
 * named, when its module loads (so every test fails).
 */
export type Constraint = { readonly name: string; failedBy(failure: ConstraintFailure): boolean };

const sameColumns = (a: readonly string[], b: readonly string[]) => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/** The unique index, unique constraint or primary key of one table over exactly `columns` (in any order). */
export function uniqueOn(...columns: [AnySQLiteColumn, ...AnySQLiteColumn[]]): Constraint {
  const table = columns[0].table;
  if (!is(table, SQLiteTable) || columns.some((c) => c.table !== table)) throw new Error('uniqueOn: the columns must be of one table');
  const tableName = getTableName(table);
  const names = columns.map((c) => c.name);
  const config = getTableConfig(table);
  const declared = [
    ...config.indexes
      .filter((i) => i.config.unique)
      .map((i) => ({ name: i.config.name, columns: i.config.columns.map((c) => ('name' in c ? c.name : '')) })),
    ...config.uniqueConstraints.map((u) => ({ name: u.getName() ?? tableName, columns: u.columns.map((c) => c.name) })),
    ...config.primaryKeys.map((p) => ({ name: p.getName(), columns: p.columns.map((c) => c.name) })),
    ...config.columns.filter((c) => c.primary || c.isUnique).map((c) => ({ name: `${tableName}.${c.name}`, columns: [c.name] })),
  ];
  const key = declared.find((d) => sameColumns(d.columns, names));
  if (!key) throw new Error(`uniqueOn: ${tableName} declares no unique key over (${names.join(', ')})`);
  return { name: key.name, failedBy: (f) => f.kind === 'unique' && f.table === tableName && sameColumns(f.columns, names) };
}

/**
 * The NOT NULL column a `guarded` write sets to NULL when what it read no longer holds. A column
 * that takes NULL could never fail, so it is refused (by type, and again when named).
 */
export function guardOf(column: AnySQLiteColumn<{ notNull: true }>): Constraint {
  if (!column.notNull) throw new Error(`guardOf: ${column.name} takes NULL, so no guard on it can fail`);
  const table = getTableName(column.table);
  return { name: `${table}.${column.name}`, failedBy: (f) => f.kind === 'not_null' && f.table === table && f.column === column.name };
}

/** A trigger's `RAISE(ABORT, message)`, named by its trigger (`docs/architecture.md` lists them). */
export function raisedBy(trigger: string, message: string): Constraint {
  return { name: trigger, failedBy: (f) => f.kind === 'trigger' && f.message === message };
}

/** Whether `err` is the failure of one of `expected`. */
export function failedOn(err: unknown, ...expected: Constraint[]): boolean {
  const failure = constraintFailure(err);
  return failure !== null && expected.some((c) => c.failedBy(failure));
}

/** `failedOn` as a test of one failure among `expected` (a plan's lost race, `ReadPlan.lostRace`). */
export const lostRaceOn =
  (...expected: Constraint[]) =>
  (err: unknown): boolean =>
    failedOn(err, ...expected);
