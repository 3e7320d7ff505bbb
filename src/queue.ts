import type { Bindings } from './env';

export type QueueMessageBody = { kind: string } & Record<string, unknown>;
type Handler = (message: Message<QueueMessageBody>, env: Bindings) => Promise<void>;

const handlers = new Map<string, Handler>();

/** Modules that fan work out through the queue register a handler for their message kind. */
export function registerQueueHandler(kind: string, handler: Handler): void {
  handlers.set(kind, handler);
}

/** A handler of `(env, body)` that acknowledges its message when it returns (a throw retries it). */
export function registerQueueTask(kind: string, task: (env: Bindings, body: never) => Promise<void>): void {
  registerQueueHandler(kind, async (message, env) => {
    await task(env, message.body as never);
    message.ack();
  });
}

/** Messages are handled independently: one slow or failing message never holds back another. */
export async function handleQueueBatch(batch: MessageBatch<unknown>, env: Bindings): Promise<void> {
  await Promise.all(
    batch.messages.map(async (raw) => {
      const message = raw as Message<QueueMessageBody>;
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
  );
}
