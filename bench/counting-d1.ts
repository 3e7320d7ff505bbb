/**
 * Wraps a D1 binding so every round trip is counted: each statement execution
 * (`all`, `first`, `run`, `raw`) and each `batch` or `exec` is one; `statements`
 * counts the statements they carried. A round trip
 * counts when it completes, so the count read as the response leaves holds the
 * round trips the response waited for, and not work started for `waitUntil`
 * (the after-commit event fan-out), which completes later.
 */
export type Counter = { queries: number; statements: number };

const counted = <T>(counter: Counter, roundTrip: Promise<T>, statements = 1): Promise<T> =>
  roundTrip.finally(() => {
    counter.queries++;
    counter.statements += statements;
  });

class CountingStatement {
  constructor(
    readonly real: D1PreparedStatement,
    private readonly counter: Counter,
  ) {}
  bind(...values: unknown[]) {
    return new CountingStatement(this.real.bind(...values), this.counter);
  }
  all<T>() {
    return counted(this.counter, this.real.all<T>());
  }
  first<T>(column?: string) {
    return counted(this.counter, column === undefined ? this.real.first<T>() : this.real.first<T>(column));
  }
  run<T>() {
    return counted(this.counter, this.real.run<T>());
  }
  raw<T>(options?: { columnNames?: boolean }) {
    return counted(this.counter, this.real.raw<T>(options as never));
  }
}

type Queryable = Pick<D1Database, 'prepare' | 'batch'>;

const countingQueries = (db: Queryable, counter: Counter) => ({
  prepare: (query: string) => new CountingStatement(db.prepare(query), counter),
  batch: (statements: (CountingStatement | D1PreparedStatement)[]) =>
    counted(
      counter,
      db.batch(statements.map((s) => (s instanceof CountingStatement ? s.real : s))),
      statements.length,
    ),
});

export function countingD1(db: D1Database, counter: Counter): D1Database {
  const wrapper = {
    ...countingQueries(db, counter),
    exec: (query: string) => counted(counter, db.exec(query)),
    dump: () => db.dump(),
    withSession: (constraint?: string) => {
      const session = db.withSession(constraint);
      return { ...countingQueries(session, counter), getBookmark: () => session.getBookmark() };
    },
  };
  return wrapper as unknown as D1Database;
}

/** The env with every D1 binding (control plane and shards) counted into one counter. */
export function countingEnv<E extends object>(env: E, counter: Counter): E {
  const out: Record<string, unknown> = { ...(env as Record<string, unknown>) };
  for (const [name, value] of Object.entries(env as Record<string, unknown>)) {
    if (name === 'DB' || /^SHARD_\d+$/.test(name)) out[name] = countingD1(value as D1Database, counter);
  }
  return out as E;
}
