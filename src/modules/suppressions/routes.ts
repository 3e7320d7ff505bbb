import { serviceContext } from '../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { createRouter, idParams } from '../../platform/validation';
import { SuppressionCreate, SuppressionCreated, SuppressionDeleted, SuppressionList, SuppressionListQuery } from './dto';
import { addSuppression, listSuppressions, removeSuppression } from './service';
import { SuppressionErrors } from './errors';
import { SharedErrors } from '../../platform/shared-errors';

export const suppressionRoutes = createRouter();
const tags = ['Suppressions'];

suppressionRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/suppressions',
    operationId: 'listSuppressions',
    tags,
    summary: 'List suppressed addresses',
    description: "This workspace's rows, newest first. The platform-managed global list is enforced at send time but never listed.",
    security: bearer,
    request: { query: SuppressionListQuery },
    responses: { 200: jsonContent(SuppressionList, 'A page of suppressions') },
    errors: [SharedErrors.invalidRequest],
  }),
  async (c) => c.json(await listSuppressions(serviceContext(c), c.req.valid('query')), 200),
);

suppressionRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/suppressions',
    operationId: 'createSuppression',
    tags,
    summary: 'Suppress an address',
    description:
      "201 both ways: an address already on the list comes back unchanged with `duplicate: true`. Adding a suppression does not change any contact's consent.",
    security: bearer,
    request: {
      body: jsonBody(SuppressionCreate, { email: 'bounced@example.com', reason: 'bounce', note: 'Hard bounce reported by the mailbox provider' }),
    },
    responses: { 201: jsonContent(SuppressionCreated, 'The row, new or existing') },
    errors: [SharedErrors.invalidRequest],
  }),
  async (c) => c.json(await addSuppression(serviceContext(c), c.req.valid('json')), 201),
);

suppressionRoutes.openapi(
  defineRoute({
    method: 'delete',
    path: '/suppressions/{id}',
    operationId: 'deleteSuppression',
    tags,
    summary: 'Remove a suppression',
    description: "Removes this workspace's row only; it lifts the send-time block and resubscribes no one. Platform rows cannot be removed.",
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(SuppressionDeleted, 'Removed') },
    errors: [SharedErrors.invalidRequest, SuppressionErrors.notFound],
  }),
  async (c) => c.json(await removeSuppression(serviceContext(c), c.req.valid('param').id.toLowerCase()), 200),
);
