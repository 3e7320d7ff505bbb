import { setEventPublisher, setSubscriptionCheck } from '../../platform/events';
import { registerQueueBatchHandler } from '../../queue';
import { registerSweep } from '../../sweeps/registry';
import { deliverWebhooks } from './delivery';
import { DELIVERY_KIND, publishEvents, subscriptionCheck, sweepOutbox } from './publisher';
import { forgetOldEvents } from './retention';

// The outbox's three stages: publish after commit, deliver from the queue, re-send what never left.
setEventPublisher(publishEvents);
setSubscriptionCheck(subscriptionCheck);
registerQueueBatchHandler(DELIVERY_KIND, deliverWebhooks);
registerSweep('webhook-outbox', sweepOutbox);
registerSweep('webhook-retention', forgetOldEvents);
