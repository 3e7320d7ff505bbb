import type { Bindings } from './env';
import { withWriteFloors } from './platform/d1/floors';
import type { QueueBatchHandler, QueueMessageBody, QueueTask } from './platform/manifest';

type Handler = (message: Message<QueueMessageBody>, env: Bindings) => Promise<void>;

/**
 * The queue consumers' entry for `tasks` (the wiring's, src/wiring.ts). Messages are handled
 * independently: one failing message (or kind) never fails another, and one slow message holds back
 * no other but those of its kind after it when the kind runs in turn. The batch is one unit of work:
 * each workspace it wrote has its floor raised once, at its end.
 */
export function queueConsumer(tasks: readonly QueueTask[]): (batch: MessageBatch<unknown>, env: Bindings) => Promise<void> {
  const handlers = new Map<string, Handler>();
  const batchHandlers = new Map<string, QueueBatchHandler>();
  for (const task of tasks) {
    if (handlers.has(task.kind) || batchHandlers.has(task.kind)) throw new Error(`queue message kind "${task.kind}" is declared twice`);
    if ('runBatch' in task) batchHandlers.set(task.kind, task.runBatch);
    else if (task.inTurn) batchHandlers.set(task.kind, inTurn(task.kind, task.run));
    else handlers.set(task.kind, acknowledged(task.run));
  }
  return (batch, env) => withWriteFloors(env, (scoped) => handleMessages(batch, scoped, handlers, batchHandlers));
}

/** A handler of `(env, body)` that acknowledges its message when it returns (a throw retries it). */
const acknowledged =
  (task: (env: Bindings, body: never) => Promise<void>): Handler =>
  async (message, env) => {
    await task(env, message.body as never);
    message.ack();
  };

/**
 * A batch's messages of the kind run one after another, in the order the queue delivered them: each is
 * a large unit of work (a campaign page of rendered sends, its chunks in flight at once), so an
 * invocation holds one of them at a time however many its batch carries.
 */
const inTurn =
  (kind: string, task: (env: Bindings, body: never) => Promise<void>): QueueBatchHandler =>
  async (messages, env) => {
    for (const message of messages) {
      try {
        await task(env, message.body as never);
        message.ack();
      } catch (err) {
        console.error('queue handler failed', kind, err);
        message.retry();
      }
    }
  };

async function handleMessages(
  batch: MessageBatch<unknown>,
  env: Bindings,
  handlers: Map<string, Handler>,
  batchHandlers: Map<string, QueueBatchHandler>,
): Promise<void> {
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
