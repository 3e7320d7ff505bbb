import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent, noContent } from '../../platform/openapi';
import { createRouter } from '../../platform/validation';
import { CreatedWebhookEndpoint, EndpointIdParams, WebhookEndpointCreate, WebhookEndpointList } from './dto';
import { createEndpoint, deleteEndpoint, listEndpoints } from './service';
import { WebhookErrors } from './errors';
import { parseAllowList } from './url-safety';

export const webhookRoutes = createRouter();

const tags = ['Webhook endpoints'];

webhookRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/webhook-endpoints',
    operationId: 'createWebhookEndpoint',
    tags,
    summary: 'Register a webhook endpoint',
    description:
      'At most 3 per workspace. Deliveries are signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with the returned `secret`.',
    security: bearer,
    request: { body: jsonBody(WebhookEndpointCreate, { url: 'https://example.com/hooks', events: ['contact.created', 'deal.won'] }) },
    responses: { 201: jsonContent(CreatedWebhookEndpoint, 'The endpoint with its signing secret') },
    errors: [WebhookErrors.unsafeUrl, WebhookErrors.endpointLimit],
  }),
  async (c) => {
    const endpoint = await createEndpoint(serviceContext(c), c.req.valid('json'), parseAllowList(c.env.ALLOW_UNSAFE_WEBHOOK_HOSTS));
    return c.json(endpoint, 201);
  },
);

webhookRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    tags,
    summary: 'List webhook endpoints',
    description: 'At most 3 rows, unpaginated; secrets are never included.',
    security: bearer,
    responses: { 200: jsonContent(WebhookEndpointList, 'Endpoints') },
  }),
  async (c) => c.json({ data: await listEndpoints(serviceContext(c)) }, 200),
);

webhookRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/webhook-endpoints/{id}',
    operationId: 'deleteWebhookEndpoint',
    tags,
    summary: 'Delete a webhook endpoint',
    description: 'Deliveries stop immediately; queued ones for it are dropped. An unknown, foreign or malformed id is not found.',
    security: bearer,
    request: { params: EndpointIdParams },
    responses: { 204: noContent('Deleted') },
    errors: [WebhookErrors.endpointNotFound],
  }),
  async (c) => {
    await deleteEndpoint(serviceContext(c), c.req.valid('param').id);
    return c.body(null, 204);
  },
);
