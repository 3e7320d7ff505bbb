import { Param, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { Bindings } from '../env';
import type { EventType } from './event-catalog';
import { eventOutbox } from './schema';
import type { Db, Statement } from './d1/db';
import { nowIso } from './d1/db';
import { uuidv7 } from './ids';
import { prepared, preparedSql } from './d1/prepared';
import { builtOnce } from './d1/built-once';
import { guardable, type RowGuard } from './d1/row-guard';
import { type RecordedSignal, type SignalContact, signalStatements } from './signals';

export type OutboxEvent = { id: string; workspaceId: string; type: EventType; data: Record<string, unknown>; createdAt: string };

/**
 * Collects the events a request's writes produced. Services add each event's
 * outbox insert to the same D1 batch as the change (so the event exists exactly
 * when the change does); once the batch has committed the request hands the ids
 * to the publisher, off the response path.
 */
export class EventSink {
  readonly committed: string[] = [];
  /** Outbox inserts of this sink, by statement, to read back from the batch that ran them. */
  private readonly inserts = new WeakMap<object, string>();
  /** Whether any batch of this request can hold one of them (reads have none to look for). */
  private emitted = false;
  /** Events their batch reported as born enqueued: nobody was subscribed, nothing to fan out. */
  private readonly settled = new Set<string>();
  /** Workspaces a batch of this sink may have recorded a lead-scoring signal for: scored once it committed (`signalsCommitted`). */
  readonly signalled = new Set<string>();

  /**
   * The outbox insert for one event; put it in the change's batch, then call `committedAfter`.
   * An event no active endpoint of its workspace subscribes to (checked inside the batch, so
   * exactly at commit) is stored already enqueued: its fan-out would send nothing.
   * With `guard`, the event is written only when the guard holds as the batch runs.
   */
  emit(db: Db, workspaceId: string, type: EventType, data: Record<string, unknown>, guard?: RowGuard): { event: OutboxEvent; statement: Statement } {
    const event: OutboxEvent = { id: uuidv7(), workspaceId, type, data, createdAt: nowIso() };
    const statement = outboxInsert(type).in(db, { id: event.id, ws: workspaceId, type, data, at: event.createdAt }, guard);
    return this.registered(event, statement);
  }

  /**
   * `emit` for an event whose data the batch itself computes: `data` is SQL (a module constant,
   * its values given as placeholders in `values`) evaluated as the insert runs, for events of a
   * write decided inside its batch (the row it describes is known only there).
   */
  emitFrom(
    db: Db,
    workspaceId: string,
    type: EventType,
    data: SQL,
    values: Record<string, unknown>,
    guard?: RowGuard,
  ): { event: OutboxEvent; statement: Statement } {
    const event: OutboxEvent = { id: uuidv7(), workspaceId, type, data: {}, createdAt: nowIso() };
    const statement = computedOutboxInsert(type)(data).in(db, { ...values, id: event.id, ws: workspaceId, type, at: event.createdAt }, guard);
    return this.registered(event, statement);
  }

  /**
   * The statements recording a lead-scoring signal for the contact, for the change's batch (none while no
   * engine is wired); the batch writes the signal only when the workspace scores contacts and `guard` holds.
   */
  signal(db: Db, workspaceId: string, contact: SignalContact, signal: RecordedSignal, guard?: RowGuard): Statement[] {
    const statements = signalStatements(db, workspaceId, contact, signal, guard);
    if (statements.length) this.signalled.add(workspaceId);
    return statements;
  }

  private registered(event: OutboxEvent, statement: Statement) {
    this.inserts.set(statement, event.id);
    this.emitted = true;
    return { event, statement };
  }

  committedAfter(events: OutboxEvent[]): void {
    for (const e of events) this.committed.push(e.id);
  }

  /** Committed events that may still need their fan-out (all of them unless their batch went through `watch`). */
  pending(): string[] {
    return this.committed.filter((id) => !this.settled.has(id));
  }

  /** `db` whose batches tell this sink which of its events were born enqueued. */
  watch(db: Db): Db {
    const watched = Object.create(db) as Db;
    watched.batch = (async (statements: Statement[]) => {
      const results = (await db.batch(statements as [Statement, ...Statement[]])) as unknown[];
      if (!this.emitted) return results;
      statements.forEach((statement, i) => {
        const id = this.inserts.get(statement);
        const [row] = (id && Array.isArray(results[i]) ? results[i] : []) as { enqueuedAt: string | null }[];
        if (id && row?.enqueuedAt) this.settled.add(id);
      });
      return results;
    }) as Db['batch'];
    return watched;
  }
}

/** Whether an event has a subscriber in its workspace: SQL evaluated inside the emitting batch. */
export type SubscriptionCheck = (workspaceId: SQLWrapper, type: EventType) => SQL;

/** The delivery envelope of an event (docs/webhooks.md): what endpoints and listeners receive. */
export type Envelope = { id: string; type: string; created_at: string; data: Record<string, unknown> };

/**
 * A module that reacts to committed events besides the webhook endpoints (automations). `interested` is SQL
 * telling whether the workspace has a use for an event of `type` (a column or a value), evaluated inside the
 * emitting batch and by the fan-out; the fan-out queues each such event as a message of `kind`
 * (`{kind, workspace_id, event, bookmark?}`) beside the endpoints' deliveries, before it marks the event sent.
 */
export type EventListener = { kind: string; interested: (workspaceId: SQLWrapper, type: SQLWrapper) => SQL };
export type ListenerMessage = { kind: string; workspace_id: string; event: Envelope; bookmark?: string };
/** `db` is the workspace's data handle the events were committed through. */
export type EventPublisher = (env: Bindings, db: Db, eventIds: string[]) => Promise<void>;

/** What the composition root (src/wiring.ts) hands in: the module that fans events out provides both. */
let subscribed: SubscriptionCheck | null = null;
let publisher: EventPublisher | null = null;
let listeners: readonly EventListener[] = [];

/** The modules reacting to events besides the endpoints, for the fan-out. */
export const eventListeners = (): readonly EventListener[] => listeners;

/** Called by the composition root only; the outbox inserts built so far are rebuilt with the new check. */
export function wireEventOutbox(outbox: {
  eventPublisher: EventPublisher | null;
  subscriptionCheck: SubscriptionCheck | null;
  eventListeners: readonly EventListener[];
}): void {
  publisher = outbox.eventPublisher;
  subscribed = outbox.subscriptionCheck;
  listeners = outbox.eventListeners;
  outboxInserts.clear();
  computedOutboxInserts.clear();
}

/** The outbox insert of one event type, built once per isolate (every write emits). */
const outboxInserts = new Map<EventType, ReturnType<typeof buildOutboxInsert>>();
const outboxInsert = (type: EventType) => outboxInserts.get(type) ?? outboxInserts.set(type, buildOutboxInsert(type, jsonData)).get(type)!;
/** The same per data SQL, for `emitFrom`. */
const computedOutboxInserts = new Map<EventType, (data: SQL) => ReturnType<typeof buildOutboxInsert>>();
const computedOutboxInsert = (type: EventType) =>
  computedOutboxInserts.get(type) ??
  computedOutboxInserts
    .set(
      type,
      builtOnce((data: SQL) => buildOutboxInsert(type, data)),
    )
    .get(type)!;

const jsonData = new Param(sql.placeholder('data'), eventOutbox.data);

function buildOutboxInsert(type: EventType, data: SQLWrapper) {
  const [ws, at] = [sql.placeholder('ws'), sql.placeholder('at')];
  const checks = [...(subscribed ? [subscribed(ws, type)] : []), ...listeners.map((l) => l.interested(ws, sql`${type}`))];
  const enqueuedAt = subscribed ? sql`CASE WHEN ${sql.join(checks, sql` OR `)} THEN NULL ELSE ${at} END` : sql`NULL`;
  // The row is selected rather than listed so that a guard's WHERE decides whether it is written.
  return guardable((condition) =>
    preparedSql(
      'all',
      () => sql`INSERT INTO ${eventOutbox} (id, workspace_id, type, data, created_at, enqueued_at, attempts)
      SELECT ${sql.placeholder('id')}, ${ws}, ${sql.placeholder('type')}, ${data}, ${at}, ${enqueuedAt}, 0
      WHERE ${condition}
      RETURNING enqueued_at AS "enqueuedAt"`,
    ),
  );
}

export async function publishCommitted(env: Bindings, db: Db, eventIds: string[]): Promise<void> {
  if (!publisher || eventIds.length === 0) return;
  try {
    await publisher(env, db, eventIds);
  } catch (err) {
    // The outbox sweep re-sends whatever did not reach the queue.
    console.error('event publish failed; the outbox sweep will retry', err);
  }
}

/**
 * Statements for the batch that emitted some events: each sets `path` (a JSON path such as
 * `$.number`) of their data to `value`, SQL evaluated when the batch runs, its values given
 * as placeholders. For data the batch itself decides (a sequence number taken inside it), so
 * the event still commits with its change. Prepared once.
 */
export function eventDataPatch(path: string, value: SQL) {
  const patch = prepared((db) =>
    db
      .update(eventOutbox)
      .set({ data: sql`json_set(${eventOutbox.data}, ${path}, ${value})` })
      .where(sql`${eventOutbox.id} IN (SELECT value FROM json_each(${sql.placeholder('eventIds')}))`),
  );
  return (db: Db, eventIds: string[], values: Record<string, unknown>): Statement => patch.in(db, { ...values, eventIds: JSON.stringify(eventIds) });
}
