import { and, eq, getTableColumns, is, Param, Placeholder, SQL, sql, StringChunk, type AnyColumn, type SQLWrapper } from 'drizzle-orm';
import { SQLiteAsyncDialect, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import { clientOf, runBatch, type Db, type Statement } from './db';
import { builder } from './handle';
import { guardable, type RowGuard } from './row-guard';
import { rowMapper, type RowLayout } from './row-mapping';
import { selectionLayout, type Template } from './selection-layout';
import { BoundStatement } from './statement';
import { readOf, type Read } from './typed-read';

type Values = Record<string, unknown>;

type Preparable = { prepare(): unknown };
type AllOf<Q extends Preparable> = ReturnType<Q['prepare']> extends { all(values?: Values): Promise<infer R> } ? R : never;
type GetOf<Q extends Preparable> = ReturnType<Q['prepare']> extends { get(values?: Values): Promise<infer R> } ? R : never;

/** One prepared query bound to a request's values, ready for `runPrepared`; `map` turns its batch result into rows. */
export type BoundQuery<R> = BoundStatement<R>;

const dialect = new SQLiteAsyncDialect();

/**
 * How each bound parameter gets its value: a placeholder's value by name (through its
 * column's encoder when it stands for a column value, as drizzle's `fillPlaceholders`
 * does), any other parameter as built. Worked out once, so a run does no type checks.
 */
function parameterFiller(params: readonly unknown[]): (values: Values) => unknown[] {
  const fills = params.map((p): ((values: Values) => unknown) => {
    if (is(p, Placeholder)) return (values) => placeholderValue(values, p.name);
    if (is(p, Param) && is(p.value, Placeholder)) {
      const { encoder } = p;
      const { name } = p.value;
      return (values) => encoder.mapToDriverValue(placeholderValue(values, name));
    }
    return () => p;
  });
  return (values) => fills.map((fill) => fill(values));
}

function placeholderValue(values: Values, name: string): unknown {
  if (!(name in values)) throw new Error(`No value for placeholder "${name}" was provided`);
  return values[name];
}

/** SQL built once, bound to a request's session and values: a statement of its batches (`runBatch`, `db.batch`), built again never. */
function batchItem<R>(db: Db, text: string, params: unknown[], map: (result: D1Result) => R): BoundStatement<R> {
  return new BoundStatement(
    clientOf(db)
      .prepare(text)
      .bind(...params),
    map,
    { sql: text, params },
  );
}

/** A query built once on `builder`, through drizzle's public `prepare()`. */
function templateOf(query: Preparable): Template {
  return query.prepare() as Template;
}

/**
 * A query whose SQL is built once per isolate instead of on every request.
 * Drizzle's query builder spends most of a small query's CPU deciding what each
 * SQL chunk is; a query written with `sql.placeholder('name')` for its values
 * (drizzle's prepared statements) skips that. Its SQL is bound to each request's
 * session here, and its rows come back exactly as the builder's own
 * `.all()`/`.get()`/`.run()` gives them.
 * An insert's every value must be a placeholder or fixed SQL: a column default
 * computed in JS (`$defaultFn`) would be computed once, at build time.
 */
export function prepared<Q extends Preparable>(build: (db: Db) => Q) {
  let built: { sql: string; fill: (values: Values) => unknown[]; rows: RowsMapping } | null = null;
  const builtOf = () => {
    if (!built) {
      const query = build(builder);
      const template = templateOf(query);
      const { sql: text, params } = template.getQuery();
      built = { sql: text, fill: parameterFiller(params), rows: rowsMapping(query, template) };
    }
    return built;
  };
  const bind = (db: Db, values: Values) => {
    const { sql: text, fill } = builtOf();
    return clientOf(db)
      .prepare(text)
      .bind(...fill(values));
  };
  const all = async (db: Db, values: Values) => {
    const { rows } = builtOf();
    return (rows.fromArrays ? rows.fromArrays(await bind(db, values).raw()) : rows.fromBatch(await bind(db, values).all())) as AllOf<Q>;
  };
  const mapAll = (r: D1Result) => builtOf().rows.fromBatch(r) as AllOf<Q>;
  return {
    all,
    get: async (db: Db, values: Values) =>
      (builtOf().rows.fromArrays ? ((await all(db, values)) as unknown[])[0] : builtOf().rows.fromBatch(await bind(db, values).all())) as GetOf<Q>,
    /** The query as a statement of a batch (`runBatch`), its result mapped as the builder's would be. */
    in: (db: Db, values: Values): Read<AllOf<Q>> => readOf(batchItem(db, builtOf().sql, builtOf().fill(values), mapAll)),
    /** The query as one statement of a `runPrepared` batch, answering all rows. */
    allIn: (db: Db, values: Values): BoundQuery<AllOf<Q>> => batchItem(db, builtOf().sql, builtOf().fill(values), mapAll),
    /** The same, answering the first row (undefined when there is none, where drizzle's own mapping would throw). */
    getIn: (db: Db, values: Values): BoundQuery<GetOf<Q> | undefined> =>
      batchItem(db, builtOf().sql, builtOf().fill(values), (r) => (r.results.length ? ((mapAll(r) as unknown[])[0] as GetOf<Q>) : undefined)),
  };
}

/**
 * How a prepared query's rows become objects: compiled once (`rowMapper`) for a select, else
 * drizzle's own mapping (`fromArrays` null: rows are read as D1's result and mapped as drizzle's
 * batch maps them; a query answering rows maps `.raw()` arrays, as drizzle's own `.all()` does).
 */
type RowsMapping = { fromArrays: ((rows: unknown[][]) => unknown[]) | null; fromBatch: (result: D1Result) => unknown };

function rowsMapping(query: Preparable, template: Template): RowsMapping {
  const layout = selectionLayout(query, template);
  if (!layout) {
    const fromBatch = (r: D1Result) => template.mapResult(r, true);
    return { fromArrays: answersRows(template) ? (rows) => template.mapAllResult(rows) as unknown[] : null, fromBatch };
  }
  const row = rowMapper(layout);
  // A batch answers rows as objects keyed by column name, in column order (what drizzle reads them as, too).
  return {
    fromArrays: (rows) => rows.map(row),
    fromBatch: (r) => (r as D1Result<Record<string, unknown>>).results.map((o) => row(Object.values(o))),
  };
}

/** Whether drizzle maps the query's result as a list of rows (a select, a `returning`), not D1's run result. */
function answersRows(template: Template): boolean {
  try {
    return Array.isArray(template.mapResult({ results: [] }, true));
  } catch {
    return false;
  }
}

/**
 * An INSERT of one row into `table`, every column a placeholder, built once: the SQL of a
 * wide row (a contact has 60 columns) is the costliest thing drizzle builds on a write.
 * A column the row leaves out (or `undefined`) gets what drizzle's builder would give it:
 * its default, else its `$defaultFn` computed now, else NULL. Defaults must be values:
 * one written as SQL would be bound as text, so the table is refused. `computed` columns get
 * SQL instead (a number read from a counter), whose placeholders name other columns of the row.
 */
export function preparedInsert<T extends SQLiteTable>(table: T, computed: Partial<Record<keyof T['$inferInsert'], SQL>> = {}) {
  const columns = Object.entries(getTableColumns(table));
  const sqlDefault = columns.find(([key, c]) => is(c.default, SQL) && !(key in computed));
  if (sqlDefault) throw new Error(`preparedInsert: column ${sqlDefault[0]} has an SQL default`);
  const columnValue = (key: string) => computed[key as keyof typeof computed] ?? sql.placeholder(key);
  const insert = prepared((db) => db.insert(table).values(Object.fromEntries(columns.map(([key]) => [key, columnValue(key)])) as T['$inferInsert']));
  // Guarded, the row is selected instead of listed, so the guard's WHERE decides whether it is written; values are encoded as drizzle's own insert encodes them.
  const names = () =>
    sql.join(
      columns.map(([, c]) => sql.identifier(c.name)),
      sql.raw(', '),
    );
  const selected = () =>
    sql.join(
      columns.map(([key, c]) => (is(columnValue(key), Placeholder) ? new Param(columnValue(key), c) : columnValue(key))),
      sql.raw(', '),
    );
  const guardedInsert = guardable((condition) =>
    preparedSql('run', () => sql`INSERT INTO ${table} (${names()}) SELECT ${selected()} WHERE ${condition}`),
  );
  return {
    /** The row's insert; with `guard`, written only when the guard holds as the batch runs it. */
    in: (db: Db, row: T['$inferInsert'], guard?: RowGuard): Statement =>
      guard ? guardedInsert.in(db, withDefaults(columns, row as Values), guard) : insert.in(db, withDefaults(columns, row as Values)),
  };
}

type Columns = [string, ReturnType<typeof getTableColumns>[string]][];

/** A row with every column present: what it gives, else the value drizzle's builder would insert. */
function withDefaults(columns: Columns, row: Values): Values {
  const values: Values = {};
  for (const [key, column] of columns) {
    const given = row[key];
    values[key] = given !== undefined ? given : (column.default ?? column.defaultFn?.() ?? column.onUpdateFn?.() ?? null);
  }
  return values;
}

/**
 * An INSERT of any number of whole rows into `table` in one statement, built once: the rows
 * travel as one JSON array and each column is read back from it by key (`true`/`false`
 * become 1/0), so neither the SQL nor the bound-parameter limit depends on the number of
 * rows. Defaults as `preparedInsert`; a table with date-mode columns is refused.
 */
export function preparedRowsInsert<T extends SQLiteTable>(table: T) {
  const columns = Object.entries(getTableColumns(table));
  const refused = columns.find(([, c]) => is(c.default, SQL) || c.dataType === 'date');
  if (refused) throw new Error(`preparedRowsInsert: column ${refused[0]} has an SQL default or holds dates`);
  const insert = guardable((condition) =>
    preparedSql('run', () => {
      const names = sql.join(
        columns.map(([, c]) => sql.identifier(c.name)),
        sql.raw(', '),
      );
      // A JSON column stores the value's JSON text (a string keeps its quotes), and SQL NULL for null.
      const read = (key: string, json: boolean) => (json ? `nullif(value -> '$.${key}', 'null')` : `json_extract(value, '$.${key}')`);
      const reads = sql.join(
        columns.map(([key, c]) => sql.raw(read(key, c.dataType === 'json'))),
        sql.raw(', '),
      );
      return sql`INSERT INTO ${table} (${names}) SELECT ${reads} FROM json_each(${sql.placeholder('rows')}) WHERE ${condition}`;
    }),
  );
  return {
    /** The rows' insert; with `guard`, written only when the guard holds as the batch runs it. */
    in: (db: Db, rows: T['$inferInsert'][], guard?: RowGuard): Statement =>
      insert.in(db, { rows: JSON.stringify(rows.map((row) => withDefaults(columns, row as Values))) }, guard),
  };
}

/**
 * Raw SQL built once, with `sql.placeholder('name')` for its values: for statements the
 * query builder cannot express (`INSERT ... SELECT FROM json_each`, correlated
 * aggregates). `in` gives it to a drizzle batch, answering rows (`all`) or D1's run
 * result (`run`), as `rawAll`/`rawRun` do; `all` runs it alone.
 */
export function preparedSql<R = Record<string, unknown>, K extends 'all' | 'run' = 'all' | 'run'>(kind: K, build: () => SQL) {
  let query: { sql: string; fill: (values: Values) => unknown[] } | null = null;
  const queryOf = () => {
    if (!query) {
      const built = dialect.sqlToQuery(build());
      query = { sql: built.sql, fill: parameterFiller(built.params) };
    }
    return query;
  };
  const map: (r: D1Result) => unknown = kind === 'all' ? (r) => r.results : (r) => r;
  return {
    in: (db: Db, values: Values): Read<K extends 'all' ? R[] : D1Result> => readOf(batchItem(db, queryOf().sql, queryOf().fill(values), map)),
    all: async (db: Db, values: Values): Promise<R[]> => {
      const q = queryOf();
      return (
        await clientOf(db)
          .prepare(q.sql)
          .bind(...q.fill(values))
          .all<R>()
      ).results;
    },
  };
}

/** A list filter: a column equal to the filter's value, or the condition its value makes. */
type ListFilter = AnyColumn | ((value: SQLWrapper) => SQL);

/**
 * A list filter equal to `column`, tested on the workspace's rows instead of sought in an index: for
 * a column leading an index over every workspace of the shard (a sweep's `(status, due)` index),
 * which SQLite would otherwise pick for the count, reading and dropping other workspaces' rows.
 * Unary plus keeps SQLite from serving the comparison from any index.
 */
export const testedOnRows =
  (column: AnyColumn): ListFilter =>
  (value) =>
    sql`+${column} = ${value}`;

/** A page query still to be limited; drizzle's select builder is one. */
type Pageable = { limit(limit: Placeholder): { offset(offset: Placeholder): Preparable } };

/**
 * A list's total and page as one statement answering one row: the total, and the page's rows
 * as one JSON array of arrays (`json_group_array`). D1 hands each value of a result over on its
 * own, so a page of 25 wide joined rows travels as hundreds of values, and as one here: that,
 * more than reading the rows, is what a page cost over a one-row read. The page is a sub-query
 * with `LIMIT`, which SQLite never flattens into the aggregate, so its rows reach
 * `json_group_array` in the page's order. Its columns are renamed by position (`c0`, `c1`, ...),
 * since a join's columns can share a name, and each array is mapped as `.raw()` rows are. A page
 * column must not be JSON made by a JSON function (it would be embedded, not quoted).
 */
function pageWithTotal(count: Template, page: Template, layout: RowLayout | null) {
  if (!layout) throw new Error('preparedList: the page must be a select naming its selection');
  const [countQuery, pageQuery] = [count.getQuery(), page.getQuery()];
  const names = layout.columns.map((_, i) => `c${i}`).join(', ');
  const rowsQuery = `(SELECT json_group_array(json_array(${names})) FROM page)`;
  const text = `WITH page(${names}) AS (${pageQuery.sql}) SELECT (${countQuery.sql}) AS total, ${rowsQuery} AS rows`;
  const fill = parameterFiller([...pageQuery.params, ...countQuery.params]);
  const row = rowMapper(layout);
  const map = (result: D1Result) => {
    const [{ total, rows }] = (result as D1Result<{ total: number; rows: string }>).results;
    return { total, rows: (JSON.parse(rows) as unknown[][]).map(row) };
  };
  return (db: Db, values: Values) => batchItem(db, text, fill(values), map);
}

/**
 * A list's total and page, prepared once per set of filters present (a list with n optional
 * filters has at most 2^n sets). `build` gets the filters present, their `and`, and the
 * workspace's placeholder; the page gets `LIMIT`/`OFFSET` here. A run's `values` hold the
 * workspace (`ws`), `limit`, `offset` and each present filter's value under its name: a filter is
 * present when its name is a key of `values`. Total and page are one statement
 * (`pageWithTotal`), sent in one batch after any `leading` statements the caller needs read in
 * the same round trip (their results: `leading`).
 */
export function preparedList<F extends string, Row>(
  filters: Record<F, ListFilter>,
  build: (present: F[], where: SQL | undefined, ws: SQLWrapper) => { count: (db: Db) => Preparable; page: (db: Db) => Pageable },
) {
  const names = Object.keys(filters) as F[];
  const condition = (name: F) => {
    const filter: ListFilter = filters[name];
    const value = sql.placeholder(name);
    return typeof filter === 'function' ? filter(value) : eq(filter, value);
  };
  // Statements are built once per set of filters present: they depend on the code alone.
  const built = new Map<string, ReturnType<typeof pageWithTotal>>();
  const statementFor = (values: Values) => {
    const present = names.filter((f) => f in values);
    const key = present.join();
    let statements = built.get(key);
    if (!statements) {
      const parts = build(present, present.length ? and(...present.map(condition)) : undefined, sql.placeholder('ws'));
      const page = parts.page(builder).limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
      const pageTemplate = templateOf(page);
      statements = pageWithTotal(templateOf(parts.count(builder)), pageTemplate, selectionLayout(page, pageTemplate));
      built.set(key, statements);
    }
    return statements;
  };
  return async (db: Db, values: Values, leading: Statement[] = []): Promise<{ total: number; rows: Row[]; leading: unknown[] }> => {
    const results = await runBatch(db, [...leading, statementFor(values)(db, values)]);
    return { ...(results[leading.length] as { total: number; rows: Row[] }), leading: results.slice(0, leading.length) };
  };
}

/** SQL with its parameters, built from drizzle's `sql` once, to be run many times. */
export type BuiltQuery = { sql: string; params: unknown[] };

/**
 * `query` built as drizzle's SQLite dialect builds it (`?` parameters, in order), reading the
 * chunks of `sql` templates directly: drizzle decides every chunk's kind with a dozen checks,
 * most of the CPU of building a large statement (a filtered list's). Text, nested `sql` and
 * plain values are read here; anything else (a column, a table) is left to drizzle, chunk by
 * chunk, as is an `sql` that inlines its values (`.inlineParams()`).
 */
export function buildSql(query: SQL): BuiltQuery {
  let text = '';
  const params: unknown[] = [];
  const walk = (chunks: unknown[]) => {
    for (const chunk of chunks) {
      if (chunk instanceof StringChunk) {
        text += chunk.value.join('');
      } else if (chunk instanceof SQL && !inlinesValues(chunk)) {
        walk(chunk.queryChunks);
      } else if (
        chunk === null ||
        typeof chunk === 'string' ||
        typeof chunk === 'number' ||
        typeof chunk === 'bigint' ||
        typeof chunk === 'boolean'
      ) {
        text += '?';
        params.push(chunk);
      } else if (chunk !== undefined) {
        const built = dialect.sqlToQuery(chunk instanceof SQL ? chunk : sql`${chunk as SQLWrapper}`);
        text += built.sql;
        params.push(...built.params);
      }
    }
  };
  walk(query.queryChunks);
  return { sql: text, params };
}

/** What building one plain value needs: how a parameter is written. */
const valueProbe = { escapeParam: () => '?' } as unknown as Parameters<SQL['buildQueryFromSourceParams']>[1];

/**
 * Whether `query` writes its values into its text (`.inlineParams()`): drizzle's public builder,
 * asked to build one plain value as part of `query`, binds none. A plain value is told apart
 * from every other chunk kind by its type alone, so this costs no entity checks.
 */
const inlinesValues = (query: SQL): boolean => query.buildQueryFromSourceParams([0], valueProbe).params.length === 0;

/** SQL text with the parameters of its `?`s, in order. */
export const bound = (text: string, ...params: unknown[]): BuiltQuery => ({ sql: text, params });

/**
 * Built pieces and SQL text (which binds nothing) as one statement, in order: a statement
 * assembled around pieces built once, without building them again inside drizzle's `sql`.
 */
export function joinBuilt(...parts: (string | BuiltQuery)[]): BuiltQuery {
  let text = '';
  const params: unknown[] = [];
  for (const part of parts) {
    if (typeof part === 'string') {
      text += part;
    } else {
      text += part.sql;
      params.push(...part.params);
    }
  }
  return { sql: text, params };
}

/** Prepared queries in one D1 batch (one round trip), each answered as its own `.all()`/`.get()` would. */
export async function runPrepared<T extends readonly BoundQuery<unknown>[]>(
  db: Db,
  queries: T,
): Promise<{ [K in keyof T]: T[K] extends BoundQuery<infer R> ? R : never }> {
  const results = await clientOf(db).batch(queries.map((q) => q.statement));
  return queries.map((q, i) => q.map(results[i])) as { [K in keyof T]: T[K] extends BoundQuery<infer R> ? R : never };
}
