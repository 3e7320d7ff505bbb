import { createExecutionContext, createMessageBatch, getQueueResult } from 'cloudflare:test';
import type { Bindings } from '../../src/env';
import type { QueueMessageBody } from '../../src/platform/manifest';
import { handleQueueBatch } from '../../src/wiring';

/** How many messages the send queue's consumer takes at a time (wrangler.toml `max_batch_size`). */
export const SEND_BATCH = 10;

let sequence = 0;

/**
 * Hands `bodies` to the Worker's queue entry (or `consume`) as one consumer batch, against `env` (a
 * recording env whose send queue is held: what the handlers enqueue lands in `waiting`). A message
 * the consumer retries goes back to the end of `waiting`, as the queue redelivers it.
 */
export async function deliver(env: Bindings, waiting: QueueMessageBody[], bodies: QueueMessageBody[], consume = handleQueueBatch): Promise<void> {
  const messages = bodies.map((body) => ({ id: `send-${++sequence}`, timestamp: new Date(), attempts: 1, body }));
  const batch = createMessageBatch('workspace-api-sends', messages);
  await consume(batch, env);
  const retried = new Set((await getQueueResult(batch, createExecutionContext())).retryMessages.map((m) => m.msgId));
  waiting.push(...messages.filter((m) => retried.has(m.id)).map((m) => m.body));
}

/** The next consumer batch in the order the messages were enqueued. */
export const nextBatch = (waiting: QueueMessageBody[]) => waiting.splice(0, SEND_BATCH);
