import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import type { Bindings } from '../../src/env';

/** A statement a handler ran, as SQL and bound values, and the round trip (a lone statement or a batch) that carried it. */
export type Ran = { sql: string; params: unknown[]; trip: number };

/** How many round trips a log holds. */
export const roundTrips = (ran: Ran[]) => new Set(ran.map((r) => r.trip)).size;

let trips = 0;
const nextTrip = () => ++trips;

class RecordingStatement {
  constructor(
    readonly real: D1PreparedStatement,
    readonly sql: string,
    private readonly log: Ran[],
    readonly params: unknown[] = [],
  ) {}
  bind(...values: unknown[]) {
    return new RecordingStatement(this.real.bind(...values), this.sql, this.log, values);
  }
  private ran<T>(result: Promise<T>) {
    this.log.push({ sql: this.sql, params: this.params, trip: nextTrip() });
    return result;
  }
  all<T>() {
    return this.ran(this.real.all<T>());
  }
  first<T>(column?: string) {
    return this.ran(column === undefined ? this.real.first<T>() : this.real.first<T>(column));
  }
  run<T>() {
    return this.ran(this.real.run<T>());
  }
  raw<T>(options?: { columnNames?: boolean }) {
    return this.ran(this.real.raw<T>(options as never));
  }
}

function recordingD1(db: Pick<D1Database, 'prepare' | 'batch'>, log: Ran[]): D1Database {
  const wrapper = {
    prepare: (query: string) => new RecordingStatement(db.prepare(query), query, log),
    batch: (statements: RecordingStatement[]) => {
      const trip = nextTrip();
      for (const s of statements) log.push({ sql: s.sql, params: s.params, trip });
      return db.batch(statements.map((s) => s.real));
    },
    withSession: (constraint?: string) => {
      const session = (db as D1Database).withSession(constraint);
      return { ...recordingD1(session, log), getBookmark: () => session.getBookmark() };
    },
  };
  return wrapper as unknown as D1Database;
}

/** A queue binding that keeps what is sent to it instead of delivering it. */
export function heldQueue() {
  const bodies: any[] = [];
  const queue = {
    send: async (body: unknown) => void bodies.push(body),
    sendBatch: async (messages: { body: unknown }[]) => void bodies.push(...messages.map((m) => m.body)),
  };
  return { queue: queue as unknown as Queue, bodies };
}

/** The test env with every shard's statements recorded into `log` and the queues held (nothing is consumed). */
export function recordingEnv(log: Ran[]) {
  const events = heldQueue();
  const sends = heldQueue();
  const out: Record<string, unknown> = { ...(env as unknown as Record<string, unknown>), EVENTS_QUEUE: events.queue, SEND_QUEUE: sends.queue };
  for (const name of Object.keys(out)) if (/^SHARD_\d+$/.test(name)) out[name] = recordingD1(out[name] as D1Database, log);
  return { env: out as unknown as Bindings, sent: sends.bodies, events: events.bodies };
}

type PlanRow = { id: number; parent: number; detail: string };

/**
 * What in a statement's plan makes its cost grow with a table instead of with its input: a
 * full scan of a table, a sort of a whole range to take its first rows, or a list (`json_each`,
 * or a CTE materialized from one) scanned inside a loop over a table's rows (walked again for
 * every row of a range, instead of driving probes by key).
 */
export function unboundedSteps(plan: PlanRow[]): string[] {
  const lists = new Set(plan.flatMap(({ detail }) => /^MATERIALIZE (\S+)$/.exec(detail)?.[1] ?? []));
  // `fp`, a filter's parameters (src/platform/filter.ts), is one row: joining it costs nothing per row.
  lists.delete('fp');
  const isOneRow = (detail: string) => detail === 'SCAN fp';
  const isList = (detail: string) =>
    / VIRTUAL TABLE/.test(detail) || lists.has(/^SCAN (\S+)$/.exec(detail)?.[1] ?? '') || /^SCAN (CONSTANT ROW|\(subquery)/.test(detail);
  const found: string[] = [];
  const byParent = new Map<number, PlanRow[]>();
  for (const row of plan) byParent.set(row.parent, [...(byParent.get(row.parent) ?? []), row]);
  for (const rows of byParent.values()) {
    let table: string | null = null;
    for (const { detail } of rows) {
      if (/^USE TEMP B-TREE FOR ORDER BY/.test(detail)) found.push(detail);
      else if (isOneRow(detail)) continue;
      else if (isList(detail)) {
        if (table) found.push(`${detail} inside ${table}`);
      } else if (/^SCAN /.test(detail)) found.push(detail);
      else if (/^SEARCH /.test(detail)) table ??= detail;
    }
  }
  return found;
}

/**
 * Every recorded statement on the shard explained: none may have an unbounded step, except
 * statements matching `small` (reads of what a workspace keeps a handful of). Answers how many
 * were explained.
 */
export async function expectBoundedPlans(shard: D1Database, ran: Ran[], small?: RegExp) {
  const seen = new Set<string>();
  const unbounded: Record<string, string[]> = {};
  for (const { sql, params } of ran) {
    if (seen.has(sql) || !/^\s*(WITH|SELECT|INSERT|UPDATE|DELETE)/i.test(sql) || small?.test(sql)) continue;
    seen.add(sql);
    const plan = (
      await shard
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<PlanRow>()
    ).results;
    const steps = unboundedSteps(plan);
    if (steps.length) unbounded[sql] = steps;
  }
  expect(unbounded).toEqual({});
  return seen.size;
}
