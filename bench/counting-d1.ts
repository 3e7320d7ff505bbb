/**
 * Wraps a D1 binding so every round trip is counted: each statement execution
 * (`all`, `first`, `run`, `raw`) and each `batch` or `exec` is one.
 */
export type Counter = { queries: number };

class CountingStatement {
  constructor(
    readonly real: D1PreparedStatement,
    private readonly counter: Counter,
  ) {}
  bind(...values: unknown[]) {
    return new CountingStatement(this.real.bind(...values), this.counter);
  }
  all<T>() {
    this.counter.queries++;
    return this.real.all<T>();
  }
  first<T>(column?: string) {
    this.counter.queries++;
    return column === undefined ? this.real.first<T>() : this.real.first<T>(column);
  }
  run<T>() {
    this.counter.queries++;
    return this.real.run<T>();
  }
  raw<T>(options?: { columnNames?: boolean }) {
    this.counter.queries++;
    return this.real.raw<T>(options as never);
  }
}

export function countingD1(db: D1Database, counter: Counter): D1Database {
  const wrapper = {
    prepare: (query: string) => new CountingStatement(db.prepare(query), counter),
    batch: (statements: (CountingStatement | D1PreparedStatement)[]) => {
      counter.queries++;
      return db.batch(statements.map((s) => (s instanceof CountingStatement ? s.real : s)));
    },
    exec: (query: string) => {
      counter.queries++;
      return db.exec(query);
    },
    dump: () => db.dump(),
    withSession: (constraint?: string) => db.withSession(constraint),
  };
  return wrapper as unknown as D1Database;
}
