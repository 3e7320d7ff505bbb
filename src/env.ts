import type { Db } from './platform/db';
import type { Workspace } from './modules/workspaces/model';
import type { RateLimiter } from './durable-objects/rate-limiter';

export interface Bindings {
  DB: D1Database;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  EVENTS_QUEUE: Queue<unknown>;
  ADMIN_TOKEN?: string;
  ALLOW_UNSAFE_WEBHOOK_HOSTS?: string;
  EMAIL_PROVIDER?: string;
  PAYMENT_PROVIDER?: string;
  WHATSAPP_PROVIDER?: string;
  WHATSAPP_APP_SECRET?: string;
  WHATSAPP_VERIFY_TOKEN?: string;
  TRACKING_SECRET?: string;
  RATE_LIMIT_PER_IP_PER_MINUTE?: string;
}

export interface Variables {
  db: Db;
  workspace: Workspace;
  apiKeyId: string;
  routeMatched: boolean;
  events: import('./platform/events').EventSink;
}

export type AppEnv = { Bindings: Bindings; Variables: Variables };
