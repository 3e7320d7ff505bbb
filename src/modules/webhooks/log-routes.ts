import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { createRouter } from '../../platform/validation';
import { listEndpointDeliveries, retryDelivery, sendTestEvent } from './delivery-log';
import {
  DeliveryIdParams,
  DeliveryLogQuery,
  EndpointIdParams,
  EventIdParams,
  TestEventSent,
  WebhookDeliveryLog,
  WebhookNoBody,
  WebhookDeliveryLogList,
  WebhookEvent,
  WebhookEventList,
  WebhookEventListQuery,
} from './dto';
import { getWebhookEvent, listWebhookEvents } from './events-api';
import { WebhookErrors } from './errors';

/** What an integrator needs to recover missed events and see why deliveries fail. */
export const webhookLogRoutes = createRouter();

const eventTags = ['Webhook events'];
const endpointTags = ['Webhook endpoints'];

webhookLogRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/webhook-events',
    operationId: 'listWebhookEvents',
    tags: eventTags,
    summary: 'List the events of the last 30 days',
    description:
      'Every event the workspace emitted in the last 30 days, newest first, whether or not an endpoint subscribes to it: ' +
      "each item is exactly the envelope a webhook delivers, with the same `id` as its deliveries' `webhook-id`. " +
      'Read it to recover events an endpoint missed. Test events (`webhook.test`) are not listed.',
    security: bearer,
    request: { query: WebhookEventListQuery },
    responses: { 200: jsonContent(WebhookEventList, 'A page of events') },
  }),
  async (c) => c.json(await listWebhookEvents(serviceContext(c), c.req.valid('query')), 200),
);

webhookLogRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/webhook-events/{id}',
    operationId: 'getWebhookEvent',
    tags: eventTags,
    summary: 'Read an event',
    description: "An unknown, another workspace's, malformed or forgotten (older than 30 days) id is not found.",
    security: bearer,
    request: { params: EventIdParams },
    responses: { 200: jsonContent(WebhookEvent, 'The event') },
    errors: [WebhookErrors.eventNotFound],
  }),
  async (c) => c.json(await getWebhookEvent(serviceContext(c), c.req.valid('param').id), 200),
);

webhookLogRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/webhook-endpoints/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    tags: endpointTags,
    summary: "List an endpoint's deliveries",
    description: 'Newest first: one row per event sent to the endpoint, with its latest attempt. Kept 30 days.',
    security: bearer,
    request: { params: EndpointIdParams, query: DeliveryLogQuery },
    responses: { 200: jsonContent(WebhookDeliveryLogList, 'A page of deliveries') },
    errors: [WebhookErrors.endpointNotFound],
  }),
  async (c) => c.json(await listEndpointDeliveries(serviceContext(c), c.req.valid('param').id.toLowerCase(), c.req.valid('query')), 200),
);

webhookLogRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/webhook-endpoints/{id}/deliveries/{delivery_id}/retry',
    operationId: 'retryWebhookDelivery',
    tags: endpointTags,
    summary: 'Redeliver now',
    description:
      'The delivery is attempted again now, a dead or delivered one too: signed anew, with the same `webhook-id` (receivers dedupe on it). ' +
      'It reads `pending` until that attempt ends. A delivery whose event is older than 30 days is not found.',
    security: bearer,
    request: { params: DeliveryIdParams, body: jsonBody(WebhookNoBody, {}) },
    responses: { 202: jsonContent(WebhookDeliveryLog, 'The delivery, pending') },
    errors: [WebhookErrors.endpointNotFound, WebhookErrors.deliveryNotFound],
  }),
  async (c) => {
    const { id, delivery_id } = c.req.valid('param');
    return c.json(await retryDelivery(serviceContext(c), c.env, id.toLowerCase(), delivery_id.toLowerCase()), 202);
  },
);

webhookLogRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/webhook-endpoints/{id}/test',
    operationId: 'sendWebhookTest',
    tags: endpointTags,
    summary: 'Send a test event',
    description:
      'One signed event of type `webhook.test` with data `{endpoint_id}` to this endpoint only, whatever it subscribes to: listed in its deliveries, not among the events.',
    security: bearer,
    request: { params: EndpointIdParams, body: jsonBody(WebhookNoBody, {}) },
    responses: { 202: jsonContent(TestEventSent, "The test event's id (its `webhook-id`)") },
    errors: [WebhookErrors.endpointNotFound],
  }),
  async (c) => c.json(await sendTestEvent(serviceContext(c), c.env, c.req.valid('param').id.toLowerCase()), 202),
);
