import type { ModuleManifest } from '../../platform/manifest';
import { deliverWebhooks } from './delivery';
import { webhookLogRoutes } from './log-routes';
import { DELIVERY_KIND, publishEvents, subscriptionCheck } from './publisher';
import { forgetOldEvents } from './retention';
import { webhookRoutes } from './routes';
import { sweepOutbox } from './sweep';

/** The outbox's three stages: publish after commit, deliver from the queue, re-send what never left or was lost on the way. */
export const manifest: ModuleManifest = {
  name: 'webhooks',
  routes: [webhookRoutes, webhookLogRoutes],
  sweeps: { 'webhook-outbox': sweepOutbox, 'webhook-retention': forgetOldEvents },
  queueTasks: [{ kind: DELIVERY_KIND, runBatch: deliverWebhooks }],
  eventPublisher: publishEvents,
  subscriptionCheck,
};
