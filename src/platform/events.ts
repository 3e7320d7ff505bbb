import { sql, type SQL } from 'drizzle-orm';
import type { Bindings } from '../env';
import type { EventType } from '../modules/events/catalog';
import { eventOutbox } from '../modules/events/schema';
import type { Db, Statement } from './db';
import { nowIso } from './db';
import { uuidv7 } from './ids';
import { inJsonList } from './bound-parameters';

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

/**
 * A statement for the batch that emitted `eventIds`: sets `path` (a JSON path such as `$.number`)
 * of their data to `value`, SQL evaluated when the batch runs. For data the batch itself decides
 * (a sequence number taken inside it), so the event still commits with its change.
 */
export function patchEventData(db: Db, eventIds: string[], path: string, value: SQL): Statement {
  return db
    .update(eventOutbox)
    .set({ data: sql`json_set(${eventOutbox.data}, ${path}, ${value})` as unknown as Record<string, unknown> })
    .where(inJsonList(eventOutbox.id, eventIds));
}
