import type { Bindings } from '../env';
import type { EventType } from '../modules/events/catalog';
import { eventOutbox } from '../modules/events/schema';
import type { Db, Statement } from './db';
import { nowIso } from './db';
import { uuidv7 } from './ids';

export type OutboxEvent = { id: string; workspaceId: string; type: EventType; data: Record<string, unknown>; createdAt: string };

/**
 * Collects the events a request's writes produced. Services add each event's
 * outbox insert to the same D1 batch as the change (so the event exists exactly
 * when the change does); once the batch has committed the request hands the ids
 * to the publisher, off the response path.
 */
export class EventSink {
  readonly committed: string[] = [];

  /** The outbox insert for one event; put it in the change's batch, then call `committedAfter`. */
  emit(db: Db, workspaceId: string, type: EventType, data: Record<string, unknown>): { event: OutboxEvent; statement: Statement } {
    const event: OutboxEvent = { id: uuidv7(), workspaceId, type, data, createdAt: nowIso() };
    const statement = db.insert(eventOutbox).values({ ...event, enqueuedAt: null, attempts: 0 });
    return { event, statement };
  }

  committedAfter(events: OutboxEvent[]): void {
    for (const e of events) this.committed.push(e.id);
  }
}

/** `db` is the workspace's data handle the events were committed through. */
type Publisher = (env: Bindings, db: Db, eventIds: string[]) => Promise<void>;
let publisher: Publisher | null = null;

/** The webhook module registers how committed events leave (queue fan-out). */
export function setEventPublisher(p: Publisher): void {
  publisher = p;
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
