import { buildApp } from './app';
import type { Bindings } from './env';
import { configureInstanceCaches } from './platform/instance-cache';
import { enqueueSweeps } from './sweeps/runner';
import { handleQueueBatch } from './wiring';

export { RateLimiter } from './durable-objects/rate-limiter';
export { SlotLock } from './durable-objects/slot-lock';
export { IdempotencyClaims } from './durable-objects/idempotency-claims';
export { AutomationRun } from './modules/automations';

const app = buildApp();

/** The Worker: the app, the cron tick and the queue consumers, all from one wiring (./wiring.ts). */
export default {
  fetch: app.fetch,
  async scheduled(_controller, env, ctx) {
    configureInstanceCaches(env.INSTANCE_CACHES);
    ctx.waitUntil(enqueueSweeps(env));
  },
  async queue(batch, env) {
    configureInstanceCaches(env.INSTANCE_CACHES);
    await handleQueueBatch(batch, env);
  },
} satisfies ExportedHandler<Bindings, unknown>;
