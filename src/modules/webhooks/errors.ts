import { defineErrors } from '../../platform/errors';

/** Webhook endpoints, their deliveries and the events answer their own errors in the domain envelope (README "Errors"). */
export const WebhookErrors = defineErrors('WebhookErrors', {
  endpointNotFound: { status: 404, code: 'endpoint_not_found', message: 'Webhook endpoint not found' },
  deliveryNotFound: { status: 404, code: 'delivery_not_found', message: 'Webhook delivery not found' },
  eventNotFound: { status: 404, code: 'event_not_found', message: 'Event not found' },
  unsafeUrl: { status: 400, code: 'unsafe_url', message: '{reason}', about: 'the URL is not a public http(s) URL; the message says why' },
  endpointLimit: { status: 409, code: 'endpoint_limit_reached', message: 'A workspace can have at most {max} webhook endpoints' },
});
