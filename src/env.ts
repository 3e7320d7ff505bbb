import type { RateLimiter } from './durable-objects/rate-limiter';
import type { SlotLock } from './durable-objects/slot-lock';
import type { IdempotencyClaims } from './durable-objects/idempotency-claims';

/**
 * The bindings modules may use. The D1 databases (control plane and shards)
 * are deliberately absent: only src/platform/d1/shards.ts reaches them, and
 * modules get a workspace-scoped `Db` from it.
 */
export interface Bindings {
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  SLOT_LOCK: DurableObjectNamespace<SlotLock>;
  EVENTS_QUEUE: Queue<unknown>;
  SEND_QUEUE: Queue<unknown>;
  /** One instance per automation enrollment, its id the enrollment id (src/modules/automations/engine.ts). */
  AUTOMATION_RUNS: Workflow<{ workspace_id: string; enrollment_id: string }>;
  /** One message per shard and cron tick: that shard's sweeps (src/sweeps/runner.ts). */
  SWEEP_QUEUE: Queue<unknown>;
  /** Email idempotency-key claims: one instance per (workspace, key). */
  EMAIL_CLAIMS: DurableObjectNamespace<IdempotencyClaims>;
  /** Files: uploaded contact imports until processed, contact exports for 7 days. */
  FILES: R2Bucket;
  ADMIN_TOKEN?: string;
  ALLOW_UNSAFE_WEBHOOK_HOSTS?: string;
  EMAIL_PROVIDER?: string;
  PAYMENT_PROVIDER?: string;
  /** Stripe (`PAYMENT_PROVIDER=stripe`): the API secret key and the webhook signing secret. */
  STRIPE_SECRET_KEY?: string;
  STRIPE_WEBHOOK_SECRET?: string;
  /** The origin of links the service hands out (pay, booking and manage pages, email tracking); defaults to the request's origin. */
  PUBLIC_BASE_URL?: string;
  WHATSAPP_PROVIDER?: string;
  WHATSAPP_APP_SECRET?: string;
  WHATSAPP_VERIFY_TOKEN?: string;
  /** `WHATSAPP_PROVIDER=meta`: the Cloud API bearer token, and optionally the Graph API version (default v21.0). */
  WHATSAPP_ACCESS_TOKEN?: string;
  WHATSAPP_GRAPH_VERSION?: string;
  TRACKING_SECRET?: string;
  /** Seconds after which a crashed email send's key claim can be taken over (default 180). */
  EMAIL_CLAIM_LEASE_SECONDS?: string;
  RESEND_API_KEY?: string;
  RESEND_WEBHOOK_SECRET?: string;
  RATE_LIMIT_PER_IP_PER_MINUTE?: string;
  /** `off`: no Worker instance keeps anything between requests, in memory or in its location's cache; `location`: only the location's cache is kept (src/platform/instance-cache.ts). */
  INSTANCE_CACHES?: string;
  /** `fail`: an error a /v1 operation throws that its route does not declare answers 500, so the test suite sees it (src/platform/declared-errors.ts). */
  UNDECLARED_ERRORS?: string;
  /** Per source IP and minute, for each family of public form posts (booking, manage, pay, unsubscribe; default 10). */
  RATE_LIMIT_PUBLIC_PER_IP_PER_MINUTE?: string;
  RATE_LIMIT_UNSUBSCRIBE_PER_IP_PER_MINUTE?: string;
  /** Failed attempts per source IP and minute: API keys (default 30) and the operator token (default 10). */
  RATE_LIMIT_FAILED_AUTH_PER_IP_PER_MINUTE?: string;
  RATE_LIMIT_OPERATOR_FAILED_AUTH_PER_IP_PER_MINUTE?: string;
  /** Milliseconds an isolate spends a lease of rate-limit tokens before it gives back the rest (default 2000). */
  RATE_LIMIT_LEASE_MS?: string;
  /** `auto` when the shards have D1 read replication on: reads may then be served by replicas (src/platform/d1/consistency.ts). */
  D1_READ_REPLICATION?: string;
  /** Bytes past which a shard takes no new workspace (default 8000000000: 80% of D1's 10 GB). */
  SHARD_FILL_LIMIT_BYTES?: string;
  /** Seconds a moved workspace's old copy is kept, fenced, before it is deleted (default 30): longer than any stale route to it (src/platform/d1/workspace-moves/). */
  MOVE_CLEAR_AFTER_SECONDS?: string;
  /** Signs the `Bookmark` values the service hands out (src/platform/d1/bookmarks.ts); unset, a built-in key signs them. */
  BOOKMARK_SECRET?: string;
  /** Static assets (the API reference viewer under /docs/); absent in builds without `[assets]`. */
  ASSETS?: Fetcher;
}

/** Operator routes have no request-wide workspace (src/platform/app-env.ts): each resolves the workspace it names (src/admin/workspace-data.ts). */
export type AdminEnv = { Bindings: Bindings };
