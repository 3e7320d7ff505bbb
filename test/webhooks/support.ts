import { env } from 'cloudflare:workers';
import { vi } from 'vitest';
import type { Bindings } from '../../src/env';
import type { EventType } from '../../src/platform/event-catalog';
import type { DeliveryMessage } from '../../src/modules/webhooks/publisher';
import { dbFor } from '../../src/platform/d1/db';
import { EventSink, type OutboxEvent } from '../../src/platform/outbox';
import type { TestWorkspace } from '../support/harness';
import { rowOnShards, runOnShards, shardOf } from '../support/db';

export type Captured = { url: string; init: RequestInit; body: string; headers: Record<string, string> };

/**
 * Replaces `fetch` in the isolate the worker shares with the tests: every
 * outbound request is recorded and answered by `answer` (204 by default).
 */
export function captureFetch(answer: (url: string) => Response | Promise<Response> = () => new Response(null, { status: 204 })) {
  const calls: Captured[] = [];
  const spy = vi.spyOn(globalThis, 'fetch').mockImplementation(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    calls.push({ url, init, body: String(init.body ?? ''), headers: Object.fromEntries(new Headers(init.headers).entries()) });
    return answer(url);
  });
  return { calls, to: (url: string) => calls.filter((c) => c.url === url), restore: () => spy.mockRestore() };
}

export const receiverUrl = () => `https://receiver.example.com/${crypto.randomUUID()}`;

export async function registerEndpoint(ws: TestWorkspace, body: { url: string; events?: string[] }) {
  const res = await ws.api('POST', '/v1/webhook-endpoints', body);
  if (res.status !== 201) throw new Error(`register -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; url: string; secret: string; events: string[] };
}

/** The drizzle handle on a workspace's shard, as services get it. */
export const dataDb = async (workspaceId: string) => dbFor(await shardOf(workspaceId));

/** Writes an outbox row exactly as an emitting service does; `ageMs` backdates it for the sweep. */
export async function emitEvent(workspaceId: string, type: EventType, data: Record<string, unknown> = {}, ageMs = 0): Promise<OutboxEvent> {
  const d1 = await shardOf(workspaceId);
  const db = dbFor(d1);
  const { event, statement } = new EventSink().emit(db, workspaceId, type, data);
  await db.batch([statement]);
  if (ageMs) {
    event.createdAt = new Date(Date.now() - ageMs).toISOString();
    await d1.prepare('UPDATE event_outbox SET created_at = ? WHERE id = ?').bind(event.createdAt, event.id).run();
  }
  return event;
}

/** An env whose queue records what the publisher sends instead of delivering it. */
export function recordingQueueEnv() {
  const sent: DeliveryMessage[] = [];
  const sendBatch = vi.fn(async (batch: { body: DeliveryMessage }[]) => {
    sent.push(...batch.map((m) => m.body));
  });
  return { env: { ...env, EVENTS_QUEUE: { sendBatch, send: vi.fn() } } as unknown as Bindings, sent, sendBatch };
}

export type FakeMessage = Message<any> & { ack: ReturnType<typeof vi.fn>; retry: ReturnType<typeof vi.fn> };

export function deliveryMessage(
  workspaceId: string,
  endpointId: string,
  event: Pick<OutboxEvent, 'id' | 'type' | 'createdAt' | 'data'>,
): FakeMessage {
  return queueMessage({
    kind: 'webhook-delivery',
    workspace_id: workspaceId,
    endpoint_id: endpointId,
    event: { id: event.id, type: event.type, created_at: event.createdAt, data: event.data },
  });
}

/** A queue message carrying `body` (one the publisher or the sweep sent), as the consumer gets it. */
export function queueMessage(body: DeliveryMessage): FakeMessage {
  return {
    id: crypto.randomUUID(),
    timestamp: new Date(),
    attempts: 1,
    body,
    ack: vi.fn(),
    retry: vi.fn(),
    retryAll: vi.fn(),
  } as unknown as FakeMessage;
}

export function fakeEvent(type: EventType = 'deal.created', data: Record<string, unknown> = { deal_id: crypto.randomUUID() }) {
  return { id: crypto.randomUUID(), type, createdAt: new Date().toISOString(), data };
}

export async function deliveryRow(eventId: string, endpointId: string) {
  return rowOnShards('SELECT * FROM webhook_deliveries WHERE event_id = ? AND endpoint_id = ?', eventId, endpointId);
}

/**
 * Brings a retrying delivery's next attempt to now, as waiting out its delay would: the queue hands its
 * retried message back at that time, and a message that comes earlier is acknowledged unsent.
 */
export async function makeDue(eventId: string, endpointId: string) {
  await runOnShards(
    "UPDATE webhook_deliveries SET next_attempt_at = ? WHERE event_id = ? AND endpoint_id = ? AND state = 'retrying'",
    new Date(Date.now() - 1000).toISOString(),
    eventId,
    endpointId,
  );
}
