import { buildApp } from './app';
import type { Bindings } from './env';
import { handleQueueBatch } from './queue';
import { runAllSweeps } from './sweeps/registry';
import './sweeps';

export { RateLimiter } from './durable-objects/rate-limiter';
export { SlotLock } from './durable-objects/slot-lock';
export { IdempotencyClaims } from './durable-objects/idempotency-claims';

const app = buildApp();

export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    ctx.waitUntil(runAllSweeps(env));
  },
  async queue(batch, env) {
    await handleQueueBatch(batch, env);
  },
} satisfies ExportedHandler<Bindings, unknown>;
