import { createExecutionContext, createScheduledController, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import worker from '../../src/index';

/**
 * One cron tick as the runtime delivers it, then the sweep queue's messages it sent, each
 * handled as the queue would hand it over, all with the Worker's environment plus `vars`.
 */
export async function cronTick(vars: Record<string, string> = {}) {
  const sent: { body: unknown }[] = [];
  const tickEnv = {
    ...(env as any),
    ...vars,
    SWEEP_QUEUE: { sendBatch: async (batch: { body: unknown }[]) => void sent.push(...batch), send: async () => {} },
  };
  const tick = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: '* * * * *' }), tickEnv, tick);
  await waitOnExecutionContext(tick);
  const messages = sent.map((m) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts: 1, body: m.body, ack() {}, retry() {} }));
  await worker.queue({ queue: 'workspace-api-sweeps', messages, ackAll() {}, retryAll() {} } as never, tickEnv);
  return sent.length;
}
