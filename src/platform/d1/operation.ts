import type { ServiceContext } from '../context';
import type { ApiError } from '../errors';
import type { OutboxEvent } from '../outbox';
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

/** An operation's reads by name: a statement, one left out (`false`, `null`, `undefined`: it reads as no rows; a plan left out is never to be resolved), or a plan. */
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

/**
 * A plan over named reads, laid out as an operation's are: how a module hands its reads to
 * another's batch and resolves them by name. `lostRace` as `ReadPlan`'s, joined by the races of
 * plans among `reads`.
 */
export function planOf<R extends ReadSpec, P>(reads: R, resolve: (read: ReadsOf<R>) => P | Promise<P>, lostRace?: Race): ReadPlan<P> {
  const statements: Statement[] = [];
  const races: Race[] = lostRace ? [lostRace] : [];
  const readsOf = layOut(reads, statements, races);
  return {
    reads: statements,
    resolve: (results) => resolve(readsOf(results) as ReadsOf<R>),
    ...(races.length ? { lostRace: (err: unknown) => races.some((lost) => lost(err)) } : {}),
  };
}

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
  /** Statements whose own rows the answer reads, each given them once the batch ran. */
  readonly returned: { at: number; rows: unknown }[] = [];

  /** What the batch is written inside (`heldBy`). */
  hold?: Hold;

  constructor(private readonly ctx: ServiceContext) {}

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

  /** `statement`, whose own rows the answer needs (an upsert's RETURNING): the getter gives them once the batch committed. */
  returning<S extends Statement>(statement: S): () => RowsOf<S> {
    const slot = { at: this.statements.push(statement) - 1, rows: undefined as unknown };
    this.returned.push(slot);
    return () => slot.rows as RowsOf<S>;
  }

  /** The answer, from the rows of `reread` (a read at the end of the batch, so it sees what the batch wrote). */
  answer<S extends Statement, A>(reread: S, answer: (rows: RowsOf<S>) => A): Decided<A> {
    return { batch: this, rereads: [reread], answer: ([rows]) => answer(rows as RowsOf<S>) };
  }

  /** The answer, from reads at the end of the batch by name (a record and its child rows). */
  answerFrom<R extends Record<string, Statement>, A>(rereads: R, answer: (read: { [K in keyof R]: RowsOf<R[K]> }) => A): Decided<A> {
    const names = Object.keys(rereads);
    return {
      batch: this,
      rereads: Object.values(rereads),
      answer: (results) => answer(Object.fromEntries(names.map((name, i) => [name, results[i]])) as { [K in keyof R]: RowsOf<R[K]> }),
    };
  }

  /**
   * `answer`, for writes guarded on the row `reread` finds (`afterInsertOf`): no row back means the
   * row went before the batch ran, so their events were not written and are not announced, and
   * `gone` refuses.
   */
  answerIfWritten<S extends Statement, A>(reread: S, answer: (rows: RowsOf<S>) => A, gone: () => unknown): Decided<A> {
    return { ...this.answer(reread, answer), gone };
  }

  /** The answer, known without reading anything back. */
  answerWith<A>(value: A): Decided<A> {
    return { batch: this, rereads: [], answer: () => value };
  }

  /** The answer, worked out once the batch committed (from the rows `returning` gave). */
  answerAfter<A>(answer: () => A): Decided<A> {
    return { batch: this, rereads: [], answer: () => answer() };
  }
}

/** Runs `write`, the write batch, while it holds what the batch was decided on. */
export type Hold = (write: () => Promise<void>) => Promise<void>;

/**
 * Thrown by a hold whose decision no longer stands once it holds: nothing was written, and the
 * operation runs again from its reads, as after a lost race.
 */
export class DecisionStale extends Error {}

/**
 * What the rules decided: the batch (none: nothing to write), the reads that end it, how their
 * results answer, and (`gone`) the refusal when the first of them finds nothing.
 */
export type Decided<A> = { batch?: WriteBatch; rereads: Statement[]; answer: (results: unknown[]) => A; gone?: () => unknown };

/** The answer of an operation that writes nothing (the change is already there). */
export const unchanged = <A>(value: A): Decided<A> => ({ rereads: [], answer: () => value });

/**
 * Writes sent along with the reads, ahead of them in the same batch (one round trip): each guarded
 * on what the reads look for, so they write only when they complete the operation on their own
 * (a create whose reference is free). `done` tells from the reads (a read of what they write)
 * whether they did, and then answers; otherwise they wrote nothing and the rules decide as without them.
 */
export type Along<R extends ReadSpec, A> = { statements: Statement[]; events: OutboxEvent[]; done: (read: ReadsOf<R>) => A | null | undefined };

export type Operation<R extends ReadSpec, A> = {
  /** What the rules need, read in one batch. */
  reads: R;
  /** Writes sent along with the reads; several (each on its own bet, in order), the first that is `done` answers. */
  along?: Along<R, A> | null | (Along<R, A> | null | false)[];
  /** The rules: from what was read to the batch written and the answer; throws an ApiError to refuse. */
  decide(read: ReadsOf<R>, batch: WriteBatch): Decided<A> | Promise<Decided<A>>;
  /** Constraints the write batch fails on when a parallel write won a race: the operation runs again from its reads. */
  lostRaceOn?: Constraint[];
  /** Constraints whose failure is a rule (a cap reached), with the error it answers. */
  refusedOn?: [Constraint, () => ApiError][];
  /** Constraints whose failure means the change is already there (a second delivery of one message), with the answer then. */
  answeredOn?: [Constraint, () => A][];
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
export async function runOperation<R extends ReadSpec, A>(ctx: ServiceContext, op: Operation<R, A> | (() => Operation<R, A>)): Promise<A> {
  let resolved: Operation<R, A> | undefined;
  for (let attempt = 1; ; attempt++) {
    const races: ((err: unknown) => boolean)[] = [];
    try {
      // An operation given as a function is planned again for each attempt (new ids, a new contact plan).
      resolved = typeof op === 'function' ? op() : op;
      return await runOnce(ctx, resolved, races);
    } catch (err) {
      if (!(err instanceof DecisionStale) && !races.some((lost) => lost(err))) throw err;
      if (attempt >= (resolved?.attempts ?? CONFLICT_ATTEMPTS)) throw SharedErrors.concurrentChange();
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * attempt));
    }
  }
}

async function runOnce<R extends ReadSpec, A>(ctx: ServiceContext, op: Operation<R, A>, races: ((err: unknown) => boolean)[]): Promise<A> {
  if (op.lostRaceOn?.length) races.push((err) => failedOn(err, ...op.lostRaceOn!));
  const alongs = [op.along].flat().filter((along) => !!along);
  const statements: Statement[] = alongs.flatMap((along) => along.statements);
  const readsOf = layOut(op.reads, statements, races);
  const reads = readsOf(await runBatch(ctx.db, statements));
  for (const along of alongs) {
    const done = along.done(reads as ReadsOf<R>);
    if (done !== null && done !== undefined) {
      ctx.events.committedAfter(along.events);
      return done;
    }
  }
  const decided = await op.decide(reads as ReadsOf<R>, new WriteBatch(ctx));
  const { batch, rereads } = decided;
  if (!batch || (batch.statements.length === 0 && rereads.length === 0)) return decided.answer([]);
  let written: unknown[] | undefined;
  let answered: { value: A } | undefined;
  const write = async () => {
    try {
      written = await runBatch(ctx.db, [...batch.statements, ...rereads]);
    } catch (err) {
      for (const [constraint, answer] of op.answeredOn ?? []) if (failedOn(err, constraint)) return void (answered = { value: answer() });
      throw refusal(err, races, op, batch);
    }
  };
  await (batch.hold ? batch.hold(write) : write());
  if (answered) return answered.value;
  // A hold that let go without writing or throwing would otherwise announce events of nothing.
  if (!written) throw new Error('runOperation: the hold returned without writing the batch');
  for (const slot of batch.returned) slot.rows = written[slot.at];
  const reread = written.slice(batch.statements.length);
  if (decided.gone && (reread[0] as unknown[]).length === 0) throw decided.gone();
  ctx.events.committedAfter(batch.events);
  return decided.answer(reread);
}

type Race = (err: unknown) => boolean;

/**
 * Named reads laid out after `statements` (those already in the batch), the races of their plans
 * added to `races`: what each name gives the rules, from the batch's results.
 */
function layOut(spec: ReadSpec, statements: Statement[], races: Race[]): (results: unknown[]) => Record<string, unknown> {
  const slots: { name: string; start: number; count: number; plan?: ReadPlan<unknown> }[] = [];
  for (const [name, read] of Object.entries(spec)) {
    if (!read) {
      slots.push({ name, start: 0, count: 0 });
    } else if (isPlan(read)) {
      slots.push({ name, start: statements.length, count: read.reads.length, plan: read });
      statements.push(...read.reads);
      if (read.lostRace) races.push(read.lostRace);
    } else {
      slots.push({ name, start: statements.push(read) - 1, count: 1 });
    }
  }
  return (results) => {
    const reads: Record<string, unknown> = {};
    for (const { name, start, count, plan } of slots) {
      if (plan) reads[name] = async () => plan.resolve(results.slice(start, start + count));
      else reads[name] = count ? results[start] : [];
    }
    return reads;
  };
}

/** What a failed write batch answers: a lost race as itself (the operation runs again), a rule's failure as its error. */
function refusal(
  err: unknown,
  races: ((err: unknown) => boolean)[],
  op: Pick<Operation<ReadSpec, unknown>, 'refusedOn'>,
  batch: WriteBatch,
): unknown {
  if (races.some((lost) => lost(err))) return err;
  for (const [constraint, error] of op.refusedOn ?? []) if (failedOn(err, constraint)) return error();
  for (const map of batch.mapErrors) {
    const mapped = map(err);
    if (mapped !== err) return mapped;
  }
  return err;
}

/** Named reads on their own, one batch: what an operation's reads give its rules. */
export function runReads<R extends ReadSpec>(ctx: ServiceContext, reads: R): Promise<ReadsOf<R>> {
  return readAll(ctx.db, reads);
}

/**
 * Named reads in one batch on `db`, each given by name as `decide` gets them: for reads that
 * depend on what an operation read first (the calendar around a booking's own start) and reads
 * deciding nothing.
 */
export async function readAll<R extends ReadSpec>(db: Db, reads: R): Promise<ReadsOf<R>> {
  const statements: Statement[] = [];
  const readsOf = layOut(reads, statements, []);
  return readsOf(await runBatch(db, statements)) as ReadsOf<R>;
}

const isPlan = (read: Statement | ReadPlan<unknown>): read is ReadPlan<unknown> =>
  typeof (read as ReadPlan<unknown>).resolve === 'function' && Array.isArray((read as ReadPlan<unknown>).reads);
