import type { Queryable } from './queryable';

/** Statements that can change data name one of these verbs; anything else only reads. Naming one by accident only waits. */
const MAY_WRITE = /\b(insert|update|delete|replace|upsert|create|drop|alter)\b/i;

export const mayWrite = (query: string) => MAY_WRITE.test(query);

class GatedStatement implements D1PreparedStatement {
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
  first<T = unknown>(column: string): Promise<T | null>;
  first<T = Record<string, unknown>>(): Promise<T | null>;
  async first<T>(column?: string) {
    await this.admission;
    return column === undefined ? this.real.first<T>() : this.real.first<T>(column);
  }
  async run<T>() {
    await this.admission;
    return this.real.run<T>();
  }
  raw<T = unknown[]>(options: { columnNames: true }): Promise<[string[], ...T[]]>;
  raw<T = unknown[]>(options?: { columnNames?: false }): Promise<T[]>;
  async raw<T>(options?: { columnNames?: boolean }) {
    await this.admission;
    return options?.columnNames ? this.real.raw<T>({ columnNames: true }) : this.real.raw<T>();
  }
}

/**
 * A read may run before its rate limit has answered (./auth.ts), as long as it
 * writes nothing until then. This wraps the request's D1 session: a statement
 * that only reads runs at once; one whose SQL may write (or a batch holding
 * one) first waits for `admission`, and fails with its error when the request
 * is refused, so a refused request never changes anything.
 */
export function gateWrites(session: Queryable, admission: Promise<unknown>): Queryable {
  return {
    prepare: (query) => (mayWrite(query) ? new GatedStatement(session.prepare(query), admission) : session.prepare(query)),
    batch: async (statements) => {
      if (statements.some((s) => s instanceof GatedStatement)) await admission;
      return session.batch(statements.map((s) => (s instanceof GatedStatement ? s.real : s)));
    },
  };
}
