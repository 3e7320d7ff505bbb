import { setEventPublisher } from '../../platform/events';
import { registerQueueHandler } from '../../queue';
import { registerSweep } from '../../sweeps/registry';
import { deliverWebhook } from './delivery';
import { DELIVERY_KIND, publishEvents, sweepOutbox } from './publisher';

// The outbox's three stages: publish after commit, deliver from the queue, re-send what never left.
setEventPublisher(publishEvents);
registerQueueHandler(DELIVERY_KIND, deliverWebhook);
registerSweep('webhook-outbox', sweepOutbox);
