/**
 * Wraps a D1 binding so every round trip is counted: each statement execution
 * (`all`, `first`, `run`, `raw`) and each `batch` or `exec` is one; `statements`
 * counts the statements they carried. `queries` and `statements` count the
 * workspace shards (a route's own work); `control` counts the control plane's round
 * trips apart (the API key look-up: on every request of a fresh instance). A round trip
 * counts when it completes, so the count read as the response leaves holds the
 * round trips the response waited for, and not work started for `waitUntil`
 * (the after-commit event fan-out), which completes later.
 */
export type Counter = { queries: number; statements: number; control?: number };

/** Where a binding's round trips are counted: a shard's into `queries` and `statements`, the control plane's into `control`. */
type Tally = (statements: number) => void;

const shardTally =
  (counter: Counter): Tally =>
  (statements) => {
    counter.queries++;
    counter.statements += statements;
  };
const controlTally =
  (counter: Counter): Tally =>
  () => {
    counter.control = (counter.control ?? 0) + 1;
  };

const counted = <T>(tally: Tally, roundTrip: Promise<T>, statements = 1): Promise<T> => roundTrip.finally(() => tally(statements));

class CountingStatement {
  constructor(
    readonly real: D1PreparedStatement,
    private readonly tally: Tally,
  ) {}
  bind(...values: unknown[]) {
    return new CountingStatement(this.real.bind(...values), this.tally);
  }
  all<T>() {
    return counted(this.tally, this.real.all<T>());
  }
  first<T>(column?: string) {
    return counted(this.tally, column === undefined ? this.real.first<T>() : this.real.first<T>(column));
  }
  run<T>() {
    return counted(this.tally, this.real.run<T>());
  }
  raw<T>(options?: { columnNames?: boolean }) {
    return counted(this.tally, this.real.raw<T>(options as never));
  }
}

type Queryable = Pick<D1Database, 'prepare' | 'batch'>;

const countingQueries = (db: Queryable, tally: Tally) => ({
  prepare: (query: string) => new CountingStatement(db.prepare(query), tally),
  batch: (statements: (CountingStatement | D1PreparedStatement)[]) =>
    counted(tally, db.batch(statements.map((s) => (s instanceof CountingStatement ? s.real : s))), statements.length),
});

function countingD1(db: D1Database, tally: Tally): D1Database {
  const wrapper = {
    ...countingQueries(db, tally),
    exec: (query: string) => counted(tally, db.exec(query)),
    dump: () => db.dump(),
    withSession: (constraint?: string) => {
      const session = db.withSession(constraint);
      return { ...countingQueries(session, tally), getBookmark: () => session.getBookmark() };
    },
  };
  return wrapper as unknown as D1Database;
}

/** The env with every D1 binding counted into `counter`: the shards (`SHARD_<n>`) and the control plane (`DB`) apart. */
export function countingEnv<E extends object>(env: E, counter: Counter): E {
  const out: Record<string, unknown> = { ...(env as Record<string, unknown>) };
  counter.control ??= 0;
  for (const [name, value] of Object.entries(env as Record<string, unknown>)) {
    if (name === 'DB') out[name] = countingD1(value as D1Database, controlTally(counter));
    if (/^SHARD_\d+$/.test(name)) out[name] = countingD1(value as D1Database, shardTally(counter));
  }
  return out as E;
}
