import { buildApp } from '../src/app';
import type { Bindings } from '../src/env';
import production from '../src/index';
import { countingEnv, type Counter } from './counting-d1';
import { benchInstanceCaches, benchRoutes } from './routes';

export { RateLimiter } from '../src/durable-objects/rate-limiter';
export { SlotLock } from '../src/durable-objects/slot-lock';
export { IdempotencyClaims } from '../src/durable-objects/idempotency-claims';
export { AutomationRun } from '../src/modules/automations';

const app = buildApp();

/**
 * The production Worker with every request's D1 round trips counted: the workspace shards' into
 * `x-d1-queries`, the control plane's (the API key look-up) into `x-d1-control`.
 */
export default {
  async fetch(request, env, ctx) {
    const counter: Counter = { queries: 0, statements: 0 };
    const counted = countingEnv({ ...env, INSTANCE_CACHES: benchInstanceCaches() }, counter);
    const url = new URL(request.url);
    const bench = benchRoutes[url.pathname];
    const response = bench ? await bench(request, counted, ctx) : await app.fetch(request, counted, ctx);
    const out = new Response(response.body, response);
    out.headers.set('x-d1-queries', String(counter.queries));
    out.headers.set('x-d1-control', String(counter.control));
    return out;
  },
  scheduled: production.scheduled,
  queue: production.queue,
} satisfies ExportedHandler<Bindings, unknown>;
