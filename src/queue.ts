import type { Bindings } from './env';
import { withWriteFloors } from './platform/d1/floors';

export type QueueMessageBody = { kind: string } & Record<string, unknown>;
type Handler = (message: Message<QueueMessageBody>, env: Bindings) => Promise<void>;
type BatchHandler = (messages: Message<QueueMessageBody>[], env: Bindings) => Promise<void>;

const handlers = new Map<string, Handler>();
const batchHandlers = new Map<string, BatchHandler>();

/** Modules that fan work out through the queue register a handler for their message kind. */
export function registerQueueHandler(kind: string, handler: Handler): void {
  handlers.set(kind, handler);
}

/**
 * Modules whose messages share work (one read and one write for many) take all of a batch's
 * messages of their kind at once; the handler acknowledges or retries each. A throw retries
 * those it had not settled yet (a message settles once: its first `ack` or `retry` holds).
 */
export function registerQueueBatchHandler(kind: string, handler: BatchHandler): void {
  batchHandlers.set(kind, handler);
}

/** A handler of `(env, body)` that acknowledges its message when it returns (a throw retries it). */
export function registerQueueTask(kind: string, task: (env: Bindings, body: never) => Promise<void>): void {
  registerQueueHandler(kind, async (message, env) => {
    await task(env, message.body as never);
    message.ack();
  });
}

/**
 * Like `registerQueueTask`, but a batch's messages of the kind run one after another, in the order
 * the queue delivered them: each is a large unit of work (a campaign page of rendered sends, its
 * chunks in flight at once), so an invocation holds one of them at a time however many its batch carries.
 */
export function registerQueueTaskInTurn(kind: string, task: (env: Bindings, body: never) => Promise<void>): void {
  registerQueueBatchHandler(kind, async (messages, env) => {
    for (const message of messages) {
      try {
        await task(env, message.body as never);
        message.ack();
      } catch (err) {
        console.error('queue handler failed', kind, err);
        message.retry();
      }
    }
  });
}

/**
 * Messages are handled independently: one failing message (or kind) never fails another, and one
 * slow message holds back no other but those of its kind after it when the kind runs in turn.
 * The batch is one unit of work: each workspace it wrote has its floor raised once, at its end.
 */
export function handleQueueBatch(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  return withWriteFloors(env, (scoped) => handleMessages(batch, scoped));
}

async function handleMessages(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  const shared = new Map<string, Message<QueueMessageBody>[]>();
  const single: Message<QueueMessageBody>[] = [];
  for (const raw of batch.messages) {
    const message = raw as Message<QueueMessageBody>;
    const kind = message.body?.kind;
    if (batchHandlers.has(kind)) shared.set(kind, [...(shared.get(kind) ?? []), message]);
    else single.push(message);
  }
  await Promise.all([
    ...[...shared].map(async ([kind, messages]) => {
      try {
        await batchHandlers.get(kind)!(messages, env);
      } catch (err) {
        console.error('queue handler failed', kind, err);
        for (const message of messages) message.retry();
      }
    }),
    ...single.map(async (message) => {
      const handler = handlers.get(message.body?.kind);
      if (!handler) {
        console.error('queue message of unknown kind dropped', message.body?.kind);
        message.ack();
        return;
      }
      try {
        await handler(message, env);
      } catch (err) {
        console.error('queue handler failed', message.body.kind, err);
        message.retry();
      }
    }),
  ]);
}
