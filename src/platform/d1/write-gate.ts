/**
 * A read may run before its rate limit has answered (./auth.ts), as long as it
 * writes nothing until then. This wraps the request's D1 session: a statement
 * that only reads runs at once; one whose SQL may write (or a batch holding
 * one) first waits for `admission`, and fails with its error when the request
 * is refused, so a refused request never changes anything.
 */
type Queryable = Pick<D1Database, 'prepare' | 'batch'>;

/** Statements that can change data name one of these verbs; anything else only reads. Naming one by accident only waits. */
const MAY_WRITE = /\b(insert|update|delete|replace|upsert|create|drop|alter)\b/i;

export const mayWrite = (query: string) => MAY_WRITE.test(query);

class GatedStatement {
  constructor(
    readonly real: D1PreparedStatement,
    private readonly admission: Promise<unknown>,
  ) {}
  bind(...values: unknown[]) {
    return new GatedStatement(this.real.bind(...values), this.admission);
  }
  async all<T>() {
    await this.admission;
    return this.real.all<T>();
  }
  async first<T>(column?: string) {
    await this.admission;
    return column === undefined ? this.real.first<T>() : this.real.first<T>(column);
  }
  async run<T>() {
    await this.admission;
    return this.real.run<T>();
  }
  async raw<T>(options?: { columnNames?: boolean }) {
    await this.admission;
    return this.real.raw<T>(options as never);
  }
}

export function gateWrites<S extends Queryable>(session: S, admission: Promise<unknown>): S {
  return {
    prepare: (query: string) => (mayWrite(query) ? new GatedStatement(session.prepare(query), admission) : session.prepare(query)),
    batch: async (statements: (GatedStatement | D1PreparedStatement)[]) => {
      if (statements.some((s) => s instanceof GatedStatement)) await admission;
      return session.batch(statements.map((s) => (s instanceof GatedStatement ? s.real : s)));
    },
  } as unknown as S;
}
