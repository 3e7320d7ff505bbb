import type { ServiceContext } from '../context';
import type { ApiError } from '../errors';
import type { OutboxEvent } from '../events';
import type { EventType } from '../event-catalog';
import { SharedErrors } from '../shared-errors';
import type { RecordedSignal, SignalContact } from '../signals';
import { failedOn, type Constraint } from './constraints';
import { CONFLICT_ATTEMPTS, runBatch, type Db, type Statement } from './db';
import type { RowGuard } from './row-guard';
import type { RowsOf } from './typed-read';

/**
 * Reads another module plans for the caller's read batch (a contact reference's), and how their
 * results become what the caller's rules need. `lostRace`: the failures of the caller's write
 * batch that mean a parallel write took what the plan read (a contact's identity), so the whole
 * operation runs again.
 */
export type ReadPlan<P> = {
  reads: Statement[];
  resolve(results: unknown[]): P | Promise<P>;
  lostRace?: (err: unknown) => boolean;
};

/** An operation's reads by name: a statement, one left out (`false`, `null`, `undefined`: it reads as no rows), or a plan. */
export type ReadSpec = Record<string, Statement | ReadPlan<unknown> | false | null | undefined>;

type Left = false | null | undefined;
/**
 * What each named read gives the rules: a statement's rows, or a plan's resolution to call when
 * the rules reach it (resolving can refuse, a contact not found, so the rules decide which of
 * their refusals comes first).
 */
export type ReadsOf<R extends ReadSpec> = {
  [K in keyof R]: Exclude<R[K], Left> extends ReadPlan<infer P> ? () => Promise<P> : RowsOf<Exclude<R[K], Left>>;
};

/** Another module's part of the write batch: its statements (first), its events, and what a failure of the batch stands for. */
export type JoinedWrites = { writes: Statement[]; events: OutboxEvent[]; mapError?: (err: unknown) => unknown };

/**
 * The write batch the rules decide on: statements in the order they run, the events they
 * announce (outbox rows in the same batch, published once it committed) and the lead-scoring
 * signals they record.
 */
export class WriteBatch {
  readonly statements: Statement[] = [];
  readonly events: OutboxEvent[] = [];
  readonly mapErrors: ((err: unknown) => unknown)[] = [];
  /** What the batch is written inside (`heldBy`). */
  hold?: Hold;

  constructor(private readonly ctx: ServiceContext) {}

  write(...statements: Statement[]): this {
    this.statements.push(...statements);
    return this;
  }

  /** Statements and the events they announce, built by a helper (a deal's stage move). */
  add(part: { statements: Statement[]; events: OutboxEvent[] }): this {
    this.statements.push(...part.statements);
    this.events.push(...part.events);
    return this;
  }

  /** `type` with `data`, an outbox row of this batch; with `guard`, written only when the guard holds as the batch runs. */
  emit(type: EventType, data: Record<string, unknown>, guard?: RowGuard): this {
    const { event, statement } = this.ctx.events.emit(this.ctx.db, this.ctx.ws.id, type, data, guard);
    this.statements.push(statement);
    this.events.push(event);
    return this;
  }

  signal(contact: SignalContact, signal: RecordedSignal, guard?: RowGuard): this {
    this.statements.push(...this.ctx.events.signal(this.ctx.db, this.ctx.ws.id, contact, signal, guard));
    return this;
  }

  join(part: JoinedWrites): this {
    this.statements.push(...part.writes);
    this.events.push(...part.events);
    if (part.mapError) this.mapErrors.push(part.mapError);
    return this;
  }

  /**
   * Writes the batch inside `hold`: locks taken on what the rules decided (a booking's hosts at
   * its slot), which calls `write` once it holds them and lets go after. A hold that finds, once
   * it holds, that the decision no longer stands (the clock passed a booking's notice while it
   * waited) throws `DecisionStale` instead of writing.
   */
  heldBy(hold: Hold): this {
    this.hold = hold;
    return this;
  }

  /** The answer, from the rows of `reread` (a read at the end of the batch, so it sees what the batch wrote). */
  answer<S extends Statement, A>(reread: S, answer: (rows: RowsOf<S>) => A): Decided<A> {
    return { batch: this, reread, answer: answer as (rows: unknown) => A };
  }

  /** The answer, known without reading anything back. */
  answerWith<A>(value: A): Decided<A> {
    return { batch: this, answer: () => value };
  }
}

/** Runs `write`, the write batch, while it holds what the batch was decided on. */
export type Hold = (write: () => Promise<void>) => Promise<void>;

/**
 * Thrown by a hold whose decision no longer stands once it holds: nothing was written, and the
 * operation runs again from its reads, as after a lost race.
 */
export class DecisionStale extends Error {}

/** What the rules decided: the batch (none: nothing to write), and how its results answer. */
export type Decided<A> = { batch?: WriteBatch; reread?: Statement; answer: (rows: unknown) => A };

/** The answer of an operation that writes nothing (the change is already there). */
export const unchanged = <A>(value: A): Decided<A> => ({ answer: () => value });

export type Operation<R extends ReadSpec, A> = {
  /** What the rules need, read in one batch. */
  reads: R;
  /** The rules: from what was read to the batch written and the answer; throws an ApiError to refuse. */
  decide(read: ReadsOf<R>, batch: WriteBatch): Decided<A> | Promise<Decided<A>>;
  /** Constraints the write batch fails on when a parallel write won a race: the operation runs again from its reads. */
  lostRaceOn?: Constraint[];
  /** Constraints whose failure is a rule (a cap reached), with the error it answers. */
  refusedOn?: [Constraint, () => ApiError][];
  /**
   * How often at most it runs while it keeps losing races (`CONFLICT_ATTEMPTS`): more for rules
   * that may lose once per choice they have (a booking, once per host of its pool).
   */
  attempts?: number;
};

/**
 * An operation as D1 allows it without interactive transactions: one read batch, the rules over
 * its results, one write batch (the writes, their outbox rows and signals, then the re-read),
 * events published after it committed. A write batch that fails on a lost race (a unique key
 * taken, a `guarded` expectation no longer true, a joined plan's race) runs the whole operation
 * again, a short random pause apart, up to `CONFLICT_ATTEMPTS`; then it answers 409.
 */
export async function runOperation<R extends ReadSpec, A>(ctx: ServiceContext, op: Operation<R, A>): Promise<A> {
  for (let attempt = 1; ; attempt++) {
    const races: ((err: unknown) => boolean)[] = [];
    try {
      return await runOnce(ctx, op, races);
    } catch (err) {
      if (!(err instanceof DecisionStale) && !races.some((lost) => lost(err))) throw err;
      if (attempt >= (op.attempts ?? CONFLICT_ATTEMPTS)) throw SharedErrors.concurrentChange();
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}

async function runOnce<R extends ReadSpec, A>(ctx: ServiceContext, op: Operation<R, A>, races: ((err: unknown) => boolean)[]): Promise<A> {
  if (op.lostRaceOn?.length) races.push((err) => failedOn(err, ...op.lostRaceOn!));
  for (const read of Object.values(op.reads)) if (read && isPlan(read) && read.lostRace) races.push(read.lostRace);
  const decided = await op.decide(await readAll(ctx.db, op.reads), new WriteBatch(ctx));
  const { batch, reread } = decided;
  if (!batch || (batch.statements.length === 0 && !reread)) return decided.answer(undefined);
  let written: unknown[] | undefined;
  const write = async () => {
    try {
      written = await runBatch(ctx.db, reread ? [...batch.statements, reread] : batch.statements);
    } catch (err) {
      throw refusal(err, races, op, batch);
    }
  };
  await (batch.hold ? batch.hold(write) : write());
  // A hold that let go without writing or throwing would otherwise announce events of nothing.
  if (!written) throw new Error('runOperation: the hold returned without writing the batch');
  ctx.events.committedAfter(batch.events);
  return decided.answer(reread ? written.at(-1) : undefined);
}

/**
 * Named reads in one batch, each given by name as `decide` gets them: for reads that depend on
 * what an operation read first (the calendar around a booking's own start) and reads deciding
 * nothing.
 */
export async function readAll<R extends ReadSpec>(db: Db, reads: R): Promise<ReadsOf<R>> {
  const statements: Statement[] = [];
  const slots: { name: string; start: number; count: number; plan?: ReadPlan<unknown> }[] = [];
  for (const [name, read] of Object.entries(reads)) {
    if (!read) {
      slots.push({ name, start: 0, count: 0 });
    } else if (isPlan(read)) {
      slots.push({ name, start: statements.length, count: read.reads.length, plan: read });
      statements.push(...read.reads);
    } else {
      slots.push({ name, start: statements.push(read) - 1, count: 1 });
    }
  }
  const results = await runBatch(db, statements);
  const named: Record<string, unknown> = {};
  for (const { name, start, count, plan } of slots) {
    if (plan) named[name] = async () => plan.resolve(results.slice(start, start + count));
    else named[name] = count ? results[start] : [];
  }
  return named as ReadsOf<R>;
}

/** What a failed write batch answers: a lost race as itself (the operation runs again), a rule's failure as its error. */
function refusal(err: unknown, races: ((err: unknown) => boolean)[], op: Operation<ReadSpec, unknown>, batch: WriteBatch): unknown {
  if (races.some((lost) => lost(err))) return err;
  for (const [constraint, error] of op.refusedOn ?? []) if (failedOn(err, constraint)) return error();
  for (const map of batch.mapErrors) {
    const mapped = map(err);
    if (mapped !== err) return mapped;
  }
  return err;
}

const isPlan = (read: Statement | ReadPlan<unknown>): read is ReadPlan<unknown> =>
  typeof (read as ReadPlan<unknown>).resolve === 'function' && Array.isArray((read as ReadPlan<unknown>).reads);
