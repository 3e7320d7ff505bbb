import { and, eq, isNull, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Bindings } from '../../env';
import { type Db, nowIso } from '../../platform/d1/db';
import { uuidv7 } from '../../platform/ids';
import { rawRun } from '../../platform/d1/raw-query';
import { bookmarkOf } from '../../platform/d1/floors';
import { isDeliveredTo, type EventType } from '../../platform/event-catalog';
import { eventOutbox } from '../../platform/schema';
import { type Envelope, eventListeners, type ListenerMessage } from '../../platform/outbox';
import { webhookEndpoints } from './schema';
import { settledHere } from '../../platform/d1/workspace-moves/settled';

export const DELIVERY_KIND = 'webhook-delivery';

export type { Envelope };

/**
 * One queue message per (event, endpoint): each delivery is attempted, retried and dead-lettered on its own.
 * `bookmark`: the D1 bookmark of the session that read the event after its write committed, when the
 * publisher's handle knows one (the request that wrote it, a unit of work's session); else the delivery reads one.
 */
export type DeliveryMessage = { kind: typeof DELIVERY_KIND; workspace_id: string; endpoint_id: string; event: Envelope; bookmark?: string };

// Queues accept at most 100 messages and 256 KB per sendBatch; stay under both.
const BATCH_MESSAGES = 100;
const BATCH_BYTES = 200_000;

const idIn = (ids: string[]) => sql`${eventOutbox.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;

/** Unenqueued outbox events matching `where`, each joined with its workspace's active endpoints and told which listeners want it: one query. */
async function loadFanout(db: Db, where: SQL) {
  const wanted = eventListeners().map((l) => l.interested(eventOutbox.workspaceId, eventOutbox.type));
  return db
    .select({
      event: eventOutbox,
      endpointId: webhookEndpoints.id,
      endpointUrl: webhookEndpoints.url,
      endpointEvents: webhookEndpoints.events,
      listeners: wanted.length ? sql<string>`json_array(${sql.join(wanted, sql`, `)})` : sql<string>`'[]'`,
    })
    .from(eventOutbox)
    .leftJoin(webhookEndpoints, and(eq(webhookEndpoints.workspaceId, eventOutbox.workspaceId), eq(webhookEndpoints.isActive, true)))
    .where(and(isNull(eventOutbox.enqueuedAt), where));
}

/** One message per (event, listener that wants it), however many endpoint rows the event joined. */
function listenerMessages(rows: Awaited<ReturnType<typeof loadFanout>>, bookmark: string | null): ListenerMessage[] {
  const listeners = eventListeners();
  const seen = new Set<string>();
  const messages: ListenerMessage[] = [];
  for (const { event, listeners: wanted } of rows) {
    if (seen.has(event.id)) continue;
    seen.add(event.id);
    (JSON.parse(wanted) as number[]).forEach((flag, i) => {
      if (!flag) return;
      const envelope = { id: event.id, type: event.type, created_at: event.createdAt, data: event.data };
      messages.push({ kind: listeners[i].kind, workspace_id: event.workspaceId, event: envelope, ...(bookmark ? { bookmark } : {}) });
    });
  }
  return messages;
}

function buildMessages(rows: Awaited<ReturnType<typeof loadFanout>>, bookmark: string | null): { messages: DeliveryMessage[]; urls: string[] } {
  const messages: DeliveryMessage[] = [];
  const urls: string[] = [];
  for (const { event, endpointId, endpointUrl, endpointEvents } of rows) {
    if (!endpointId || !endpointEvents || !isDeliveredTo(endpointEvents, event.type)) continue;
    messages.push({
      kind: DELIVERY_KIND,
      workspace_id: event.workspaceId,
      endpoint_id: endpointId,
      event: { id: event.id, type: event.type, created_at: event.createdAt, data: event.data },
      ...(bookmark ? { bookmark } : {}),
    });
    urls.push(endpointUrl!);
  }
  return { messages, urls };
}

/**
 * Each delivery's row as `pending` (its log shows it before its first attempt ends); one whose
 * attempt already recorded an outcome keeps it.
 */
export function pendingDeliveries(db: Db, messages: DeliveryMessage[], urls: string[]) {
  const now = nowIso();
  const rows = messages.map((m, i) => ({ id: uuidv7(), w: m.workspace_id, e: m.event.id, t: m.event.type, p: m.endpoint_id, u: urls[i] }));
  return rawRun(
    db,
    sql`INSERT INTO webhook_deliveries (id, workspace_id, event_id, event_type, endpoint_id, url, state, attempts, created_at, updated_at)
    SELECT value ->> 'id', value ->> 'w', value ->> 'e', value ->> 't', value ->> 'p', value ->> 'u', 'pending', 0, ${now}, ${now} FROM json_each(${JSON.stringify(rows)}) WHERE 1
    ON CONFLICT (event_id, endpoint_id) DO NOTHING`,
  );
}

/** Sends the messages in as few `sendBatch` calls as the queue's limits allow. */
export async function sendMessages(env: Bindings, messages: (DeliveryMessage | ListenerMessage)[]): Promise<void> {
  for (const part of chunk(messages)) await env.EVENTS_QUEUE.sendBatch(part.map((body) => ({ body })));
}

function chunk<M>(messages: M[]): M[][] {
  const chunks: M[][] = [];
  let current: M[] = [];
  let bytes = 0;
  for (const m of messages) {
    const size = JSON.stringify(m).length;
    if (current.length && (current.length === BATCH_MESSAGES || bytes + size > BATCH_BYTES)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(m);
    bytes += size;
  }
  if (current.length) chunks.push(current);
  return chunks;
}

/**
 * Sends the fan-out of the matching events to the queue, then stamps them
 * `enqueued_at`. A failure before the stamp leaves them for the outbox sweep;
 * receivers dedupe on the event id should one be sent twice.
 */
async function fanOut(env: Bindings, db: Db, where: SQL): Promise<{ events: number; messages: number }> {
  const rows = await loadFanout(db, where);
  if (rows.length === 0) return { events: 0, messages: 0 };
  // What read the events has seen their writes: its bookmark is at least theirs.
  const bookmark = bookmarkOf(db);
  const { messages, urls } = buildMessages(rows, bookmark);
  await sendMessages(env, [...messages, ...listenerMessages(rows, bookmark)]);
  const eventIds = [...new Set(rows.map((r) => r.event.id))];
  const stamp = db
    .update(eventOutbox)
    .set({ enqueuedAt: nowIso(), attempts: sql`${eventOutbox.attempts} + 1` })
    .where(and(idIn(eventIds), isNull(eventOutbox.enqueuedAt)));
  if (messages.length) await db.batch([pendingDeliveries(db, messages, urls), stamp]);
  else await stamp;
  return { events: eventIds.length, messages: messages.length };
}

/**
 * Whether an active endpoint of the workspace subscribes to `type`, as SQL for
 * the batch that emits the event (the same rule as `isDeliveredTo`).
 */
export function subscriptionCheck(workspaceId: SQLWrapper | string, type: EventType): SQL {
  if (!isDeliveredTo([type], type)) return sql`0`;
  return sql`EXISTS (SELECT 1 FROM ${webhookEndpoints} e, json_each(e.events) j WHERE e.workspace_id = ${workspaceId} AND e.is_active = 1 AND j.value = ${type})`;
}

/** The publisher the request path calls after its batch committed. */
export async function publishEvents(env: Bindings, db: Db, eventIds: string[]): Promise<void> {
  await fanOut(env, db, idIn(eventIds));
}

/** Outbox rows younger than this are still the request path's to publish. */
export const SWEEP_GRACE_MS = 30_000;
const SWEEP_BATCH = 200;

/** Re-sends a shard's outbox events that never reached the queue (publisher crashed or the send failed). */
export async function republishOutbox(env: Bindings, db: Db, now = Date.now()) {
  const cutoff = new Date(now - SWEEP_GRACE_MS).toISOString();
  return fanOut(
    env,
    db,
    sql`${eventOutbox.id} IN (SELECT id FROM ${eventOutbox} WHERE enqueued_at IS NULL AND created_at < ${cutoff} AND ${settledHere(eventOutbox.workspaceId)} ORDER BY created_at LIMIT ${SWEEP_BATCH})`,
  );
}
