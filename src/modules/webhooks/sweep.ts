import { setEventPublisher, setSubscriptionCheck } from '../../platform/events';
import { registerQueueHandler } from '../../queue';
import { registerSweep } from '../../sweeps/registry';
import { deliverWebhook } from './delivery';
import { DELIVERY_KIND, publishEvents, subscriptionCheck, sweepOutbox } from './publisher';

// The outbox's three stages: publish after commit, deliver from the queue, re-send what never left.
setEventPublisher(publishEvents);
setSubscriptionCheck(subscriptionCheck);
registerQueueHandler(DELIVERY_KIND, deliverWebhook);
registerSweep('webhook-outbox', sweepOutbox);
