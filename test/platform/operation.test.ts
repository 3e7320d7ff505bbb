import { env } from 'cloudflare:workers';
import { and, eq, sql } from 'drizzle-orm';
import { integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceContext } from '../../src/platform/context';
import { guardOf, uniqueOn } from '../../src/platform/d1/constraints';
import { CONFLICT_ATTEMPTS, dbFor, guarded, type Db, type Statement } from '../../src/platform/d1/db';
import { DecisionStale, planOf, readAll, runOperation, unchanged, type ReadPlan } from '../../src/platform/d1/operation';
import { preparedSql } from '../../src/platform/d1/prepared';
import { afterInsertOf } from '../../src/platform/d1/row-guard';
import { FRAMEWORK_SURFACE } from '../../src/platform/error-surfaces';
import { ApiError, defineErrors } from '../../src/platform/errors';
import { EventSink } from '../../src/platform/outbox';
import type { Workspace } from '../../src/platform/workspace';

// A table of this test's own: one counter per key, one address per workspace.
const probes = sqliteTable(
  'operation_probe',
  { id: text('id').primaryKey(), ws: text('ws').notNull(), email: text('email'), n: integer('n').notNull() },
  (t) => [uniqueIndex('operation_probe_ws_email').on(t.ws, t.email)],
);
const d1 = () => env.SHARD_0;
const WS = 'operation-probe-ws';

beforeAll(async () => {
  await d1().batch(
    [
      'CREATE TABLE IF NOT EXISTS operation_probe (id TEXT PRIMARY KEY NOT NULL, ws TEXT NOT NULL, email TEXT, n INTEGER NOT NULL)',
      'CREATE UNIQUE INDEX IF NOT EXISTS operation_probe_ws_email ON operation_probe (ws, email)',
    ].map((q) => d1().prepare(q)),
  );
});
afterAll(async () => {
  await d1().batch([d1().prepare('DROP TABLE IF EXISTS operation_probe'), d1().prepare('DELETE FROM event_outbox WHERE workspace_id = ?').bind(WS)]);
});
beforeEach(async () => {
  await d1().prepare('DELETE FROM operation_probe').run();
});

/** A service context over SHARD_0 whose batches are counted (statements per batch). */
function context() {
  const batches: number[] = [];
  const db = dbFor(d1());
  const counted = Object.create(db) as Db;
  counted.batch = ((statements: Statement[]) => {
    batches.push(statements.length);
    return db.batch(statements as [Statement, ...Statement[]]);
  }) as Db['batch'];
  const ctx: ServiceContext = { db: counted, ws: { id: WS } as Workspace, events: new EventSink() };
  return { ctx, batches };
}

const byEmail = (db: Db, email: string) =>
  db
    .select()
    .from(probes)
    .where(and(eq(probes.ws, WS), eq(probes.email, email)));
const byId = (db: Db, id: string) => db.select().from(probes).where(eq(probes.id, id));
const insert = (db: Db, id: string, email: string | null, n = 0) => db.insert(probes).values({ id, ws: WS, email, n });
const Probes = defineErrors('Probes', { refused: { status: 422, message: 'refused' }, gone: { status: 404, message: 'gone' } });
const refused = Probes.refused();

describe('runOperation', () => {
  it('gives each read its rows by name, a read left out as no rows, and sends only the reads given', async () => {
    const { ctx, batches } = context();
    await insert(ctx.db, 'a', 'a@example.com', 1);
    const answer = await runOperation(ctx, {
      reads: {
        found: byEmail(ctx.db, 'a@example.com'),
        missing: byEmail(ctx.db, 'b@example.com'),
        skipped: false && byEmail(ctx.db, 'a@example.com'),
      },
      decide: (read) => unchanged({ found: read.found.map((r) => r.id), missing: read.missing.length, skipped: read.skipped.length }),
    });
    expect(answer).toEqual({ found: ['a'], missing: 0, skipped: 0 });
    // One read batch of two statements; nothing written.
    expect(batches).toEqual([2]);
  });

  it('writes the decided batch with its re-read at the end, and the answer reads what the batch wrote', async () => {
    const { ctx, batches } = context();
    const answer = await runOperation(ctx, {
      reads: { existing: byEmail(ctx.db, 'c@example.com') },
      decide: (read, batch) => {
        expect(read.existing).toEqual([]);
        batch.write(insert(ctx.db, 'c', 'c@example.com', 5));
        return batch.answer(byId(ctx.db, 'c'), ([row]) => row.n);
      },
    });
    expect(answer).toBe(5);
    expect(batches).toEqual([1, 2]);
  });

  it('publishes the events of a batch only once it committed', async () => {
    const { ctx } = context();
    await runOperation(ctx, {
      reads: {},
      decide: (_, batch) =>
        batch
          .write(insert(ctx.db, 'e', null))
          .emit('contact.created', { id: 'e' })
          .answerWith(null),
    });
    expect(ctx.events.committed).toHaveLength(1);
    const failing = runOperation(ctx, {
      reads: {},
      // The same primary key again: the batch fails, its event with it.
      decide: (_, batch) =>
        batch
          .emit('contact.created', { id: 'e' })
          .write(insert(ctx.db, 'e', null))
          .answerWith(null),
    });
    await expect(failing).rejects.toThrow(/UNIQUE constraint failed/);
    expect(ctx.events.committed).toHaveLength(1);
    const rows = await d1().prepare('SELECT count(*) AS n FROM event_outbox WHERE workspace_id = ?').bind(WS).first<{ n: number }>();
    expect(rows?.n).toBe(1);
  });

  it('runs again from its reads when a parallel write took the key it read as free', async () => {
    const { ctx } = context();
    let attempts = 0;
    const answer = await runOperation(ctx, {
      reads: { existing: byEmail(ctx.db, 'r@example.com') },
      decide: async (read, batch) => {
        attempts++;
        if (read.existing[0]) return unchanged(`found ${read.existing[0].id}`);
        // A parallel create lands between this operation's read and its write.
        if (attempts === 1) await insert(dbFor(d1()), 'other', 'r@example.com');
        return batch.write(insert(ctx.db, 'mine', 'r@example.com')).answerWith('created');
      },
      lostRaceOn: [uniqueOn(probes.ws, probes.email)],
    });
    expect(answer).toBe('found other');
    expect(attempts).toBe(2);
  });

  it('keeps every one of parallel guarded increments: each lost race reads again', async () => {
    await insert(dbFor(d1()), 'counter', null, 0);
    const increment = () => {
      const { ctx } = context();
      return runOperation(ctx, {
        reads: { row: byId(ctx.db, 'counter') },
        decide: (read, batch) => {
          const seen = read.row[0].n;
          batch.write(
            ctx.db
              .update(probes)
              // Only over the value read: otherwise the batch fails on the NOT NULL column and runs again.
              .set({ n: guarded(sql`${probes.n} = ${seen}`, sql`${seen + 1}`) })
              .where(eq(probes.id, 'counter')),
          );
          return batch.answer(byId(ctx.db, 'counter'), ([row]) => row.n);
        },
        lostRaceOn: [guardOf(probes.n)],
      });
    };
    const answers = await Promise.all(Array.from({ length: 8 }, increment));
    const [row] = await byId(dbFor(d1()), 'counter');
    expect(row.n).toBe(8);
    // Each increment answered the value it wrote: all different.
    expect(new Set(answers).size).toBe(8);
  });

  for (const [given, runs] of [
    [undefined, CONFLICT_ATTEMPTS],
    [CONFLICT_ATTEMPTS + 3, CONFLICT_ATTEMPTS + 3],
  ] as const) {
    it(`answers 409 once every attempt lost its race (${runs} attempts${given ? ', as the operation allows' : ''})`, async () => {
      const { ctx } = context();
      await insert(ctx.db, 'taken', 'taken@example.com');
      let attempts = 0;
      const run = runOperation(ctx, {
        reads: {},
        decide: (_, batch) => {
          attempts++;
          return batch.write(insert(ctx.db, `new-${attempts}`, 'taken@example.com')).answerWith(null);
        },
        lostRaceOn: [uniqueOn(probes.ws, probes.email)],
        attempts: given,
      });
      const err = await run.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ status: 409 });
      expect((err as ApiError).bodyOn(FRAMEWORK_SURFACE)).toMatchObject({
        message: 'The record was changed by concurrent requests while this one was applied; retry the request',
      });
      expect(attempts).toBe(runs);
    });
  }

  it('answers a rule a constraint enforces with its error, and any other failure as it is, without running again', async () => {
    const { ctx } = context();
    let attempts = 0;
    const capped = runOperation(ctx, {
      reads: {},
      decide: (_, batch) => {
        attempts++;
        return batch.write(ctx.db.insert(probes).values({ id: 'x', ws: sql`NULL`, n: 0 })).answerWith(null);
      },
      refusedOn: [[guardOf(probes.ws), () => refused]],
    });
    await expect(capped).rejects.toBe(refused);
    const other = runOperation(ctx, {
      reads: {},
      decide: (_, batch) => {
        attempts++;
        return batch.write(ctx.db.insert(probes).values({ id: 'y', ws: WS, n: sql`NULL` })).answerWith(null);
      },
      refusedOn: [[guardOf(probes.ws), () => refused]],
    });
    await expect(other).rejects.toThrow(/NOT NULL constraint failed: operation_probe.n/);
    expect(attempts).toBe(2);
  });

  it('joins another module’s plan by name: its own results, its race and its error mapping', async () => {
    const { ctx } = context();
    await insert(ctx.db, 'p', 'p@example.com', 3);
    let raced = false;
    const plan = (): ReadPlan<{ id: string | null; writes: Statement[]; events: []; mapError: (err: unknown) => unknown }> => ({
      reads: [byEmail(ctx.db, 'p@example.com'), byEmail(ctx.db, 'q@example.com')],
      resolve: ([p, q]) => {
        expect(p).toHaveLength(1);
        expect(q).toHaveLength(0);
        const writes = raced ? [] : [insert(ctx.db, 'p', 'again@example.com')];
        return { id: (p as { id: string }[])[0].id, writes, events: [], mapError: (err) => err };
      },
      lostRace: (err) => {
        raced = String(err).includes('UNIQUE');
        return raced;
      },
    });
    const answer = await runOperation(ctx, {
      reads: { before: byId(ctx.db, 'p'), contact: plan(), after: byId(ctx.db, 'p') },
      decide: async (read, batch) => {
        const planned = await read.contact();
        expect(read.before[0].n).toBe(3);
        expect(read.after[0].n).toBe(3);
        return batch.join(planned).answerWith(planned.id);
      },
    });
    expect(answer).toBe('p');
    expect(raced).toBe(true);
  });

  it('answers from writes sent along with the reads when they wrote, and decides from the reads when they did not', async () => {
    const createAlong = preparedSql(
      'run',
      () => sql`INSERT INTO operation_probe (id, ws, email, n) SELECT ${sql.placeholder('id')}, ${WS}, 'along@example.com', 1
        WHERE NOT EXISTS (SELECT 1 FROM operation_probe WHERE ws = ${WS} AND email = 'along@example.com')`,
    );
    const attempt = async (id: string) => {
      const { ctx, batches } = context();
      let decided = false;
      const { event, statement } = ctx.events.emit(ctx.db, WS, 'contact.created', { id }, afterInsertOf(probes, id));
      const answer = await runOperation(ctx, {
        along: { statements: [createAlong.in(ctx.db, { id }), statement], events: [event], done: (read) => (read.mine[0] ? `created ${id}` : null) },
        reads: { mine: byId(ctx.db, id), existing: byEmail(ctx.db, 'along@example.com') },
        decide: (read) => {
          decided = true;
          return unchanged(`found ${read.existing[0].id}`);
        },
      });
      return { answer, decided, batches, committed: ctx.events.committed.length };
    };
    // Free: the writes sent along answer, in one round trip.
    expect(await attempt('first')).toEqual({ answer: 'created first', decided: false, batches: [4], committed: 1 });
    // Taken: they wrote nothing, the reads decide, and their event is not announced.
    expect(await attempt('second')).toEqual({ answer: 'found first', decided: true, batches: [4], committed: 0 });
  });

  it('answers a failure that means the change is already there with its answer, once', async () => {
    const { ctx } = context();
    await insert(ctx.db, 'd', null);
    let attempts = 0;
    const answer = await runOperation<Record<string, never>, 'written' | 'already there'>(ctx, {
      reads: {},
      decide: (_, batch) => {
        attempts++;
        return batch.write(insert(ctx.db, 'd', null)).answerWith('written');
      },
      answeredOn: [[uniqueOn(probes.id), () => 'already there']],
    });
    expect(answer).toBe('already there');
    expect(attempts).toBe(1);
  });

  it('lays out a module’s named reads as a plan another operation joins, its race included', async () => {
    const { ctx } = context();
    await insert(ctx.db, 'n', 'n@example.com', 7);
    let attempts = 0;
    const plan = planOf(
      { found: byEmail(ctx.db, 'n@example.com'), skipped: false && byEmail(ctx.db, 'n@example.com'), other: byId(ctx.db, 'none') },
      (read) => ({ n: read.found[0].n, skipped: read.skipped.length, other: read.other.length }),
      (err) => String(err).includes('UNIQUE constraint failed: operation_probe.ws, operation_probe.email'),
    );
    expect(plan.reads).toHaveLength(2);
    const answer = await runOperation(ctx, {
      reads: { before: byId(ctx.db, 'n'), planned: plan },
      decide: async (read, batch) => {
        attempts++;
        const planned = await read.planned();
        expect(read.before[0].n).toBe(7);
        // The first attempt takes an address that is held: the plan's race runs the operation again.
        if (attempts === 1) batch.write(insert(ctx.db, 'n2', 'n@example.com'));
        return batch.answerWith(planned);
      },
    });
    expect(answer).toEqual({ n: 7, skipped: 0, other: 0 });
    expect(attempts).toBe(2);
  });

  it('answers from the rows a written statement returns, once the batch committed', async () => {
    const { ctx, batches } = context();
    const answer = await runOperation(ctx, {
      reads: {},
      decide: (_, batch) => {
        const first = batch.returning(insert(ctx.db, 'ret1', null, 4).returning({ id: probes.id, n: probes.n }));
        batch.write(insert(ctx.db, 'ret2', null));
        const second = batch.returning(insert(ctx.db, 'ret3', null, 9).returning({ n: probes.n }));
        return batch.answerAfter(() => [first()[0], second()[0].n]);
      },
    });
    expect(answer).toEqual([{ id: 'ret1', n: 4 }, 9]);
    expect(batches).toEqual([3]);
  });

  it('refuses, announcing nothing, when the re-read of writes guarded on a row finds it gone', async () => {
    const { ctx } = context();
    const gone = Probes.gone();
    const touch = (id: string) =>
      runOperation(ctx, {
        reads: {},
        decide: (_, batch) =>
          batch
            .write(ctx.db.update(probes).set({ n: 1 }).where(eq(probes.id, id)))
            .emit('contact.updated', { id }, afterInsertOf(probes, id))
            .answerIfWritten(
              byId(ctx.db, id),
              ([row]) => row.n,
              () => gone,
            ),
      });
    await insert(ctx.db, 'here', null);
    expect(await touch('here')).toBe(1);
    expect(ctx.events.committed).toHaveLength(1);
    await expect(touch('missing')).rejects.toBe(gone);
    expect(ctx.events.committed).toHaveLength(1);
  });

  it('sends several writes along, each on its own bet: the first done answers and only its events are announced', async () => {
    const guardedCreate = preparedSql(
      'run',
      () => sql`INSERT INTO operation_probe (id, ws, email, n) SELECT ${sql.placeholder('id')}, ${WS}, ${sql.placeholder('email')}, 1
        WHERE NOT EXISTS (SELECT 1 FROM operation_probe WHERE ws = ${WS} AND email = ${sql.placeholder('email')})`,
    );
    const { ctx, batches } = context();
    await insert(ctx.db, 'taken', 'taken-along@example.com');
    const bet = (id: string, email: string) => {
      const { event, statement } = ctx.events.emit(ctx.db, WS, 'contact.created', { id }, afterInsertOf(probes, id));
      return { statements: [guardedCreate.in(ctx.db, { id, email }), statement], events: [event] };
    };
    const lost = bet('lost', 'taken-along@example.com');
    const won = bet('won', 'free-along@example.com');
    const answer = await runOperation(ctx, {
      along: [{ ...lost, done: (read) => read.lost[0] && 'lost wrote' }, false, { ...won, done: (read) => read.won[0] && 'won wrote' }],
      reads: { lost: byId(ctx.db, 'lost'), won: byId(ctx.db, 'won') },
      decide: () => unchanged('decided'),
    });
    expect(answer).toBe('won wrote');
    expect(batches).toEqual([6]);
    expect(ctx.events.committed).toEqual([won.events[0].id]);
  });
  it('writes the batch inside its hold, and runs again from its reads when the hold finds the decision stale', async () => {
    const { ctx, batches } = context();
    const seen: string[] = [];
    let holds = 0;
    const answer = await runOperation(ctx, {
      reads: { before: byId(ctx.db, 'h') },
      decide: (read, batch) =>
        batch
          .write(insert(ctx.db, 'h', 'h@example.com', read.before.length))
          .heldBy(async (write) => {
            seen.push('held');
            // The first hold finds what was decided on gone (a lock granted too late): nothing is written.
            if (holds++ === 0) throw new DecisionStale();
            await write();
            seen.push('written');
          })
          .answerWith('done'),
    });
    expect(answer).toBe('done');
    expect(seen).toEqual(['held', 'held', 'written']);
    // The read, the stale hold, the read again, the write.
    expect(batches).toEqual([1, 1, 1]);
    expect((await byId(dbFor(d1()), 'h'))[0].n).toBe(0);
  });

  it('answers a hold’s own refusal as it is, without running again or writing', async () => {
    const { ctx } = context();
    let attempts = 0;
    const held = runOperation(ctx, {
      reads: {},
      decide: (_, batch) => {
        attempts++;
        return batch
          .write(insert(ctx.db, 'refused', null))
          .emit('contact.created', { id: 'refused' })
          .heldBy(async () => {
            throw refused;
          })
          .answerWith(null);
      },
      lostRaceOn: [uniqueOn(probes.ws, probes.email)],
    });
    await expect(held).rejects.toBe(refused);
    expect(attempts).toBe(1);
    expect(ctx.events.committed).toHaveLength(0);
    expect(await byId(dbFor(d1()), 'refused')).toEqual([]);
  });
});

describe('readAll', () => {
  it('reads named statements and plans in one batch, each by name, a read left out as no rows', async () => {
    const { ctx, batches } = context();
    await insert(ctx.db, 'r', 'r@example.com', 7);
    const plan: ReadPlan<number> = {
      reads: [byId(ctx.db, 'r'), byId(ctx.db, 'none')],
      resolve: ([r, none]) => (r as { n: number }[])[0].n + (none as []).length,
    };
    const read = await readAll(ctx.db, { row: byEmail(ctx.db, 'r@example.com'), skipped: false && byId(ctx.db, 'r'), plan });
    expect(read.row.map((r) => r.n)).toEqual([7]);
    expect(read.skipped).toEqual([]);
    expect(await read.plan()).toBe(7);
    expect(batches).toEqual([3]);
  });
});
