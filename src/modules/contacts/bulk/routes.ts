import type { z } from '@hono/zod-openapi';
import { serviceContext } from '../../../platform/context';
import { bearer, defineRoute, jsonBody, jsonContent, undeclaredQueryCheck } from '../../../platform/openapi';
import { SharedErrors } from '../../../platform/shared-errors';
import { createRouter, requestIssues } from '../../../platform/validation';
import { CONTACT_WRITE_ERRORS } from '../errors';
import { BATCH_LIMIT, ContactBatch, ContactBatchResult } from './dto';
import { checkItem, upsertContacts } from './upsert';

export const bulkRoutes = createRouter();

const batchRoute = defineRoute({
  method: 'post',
  path: '/contacts/batch',
  operationId: 'upsertContactBatch',
  tags: ['Contacts'],
  summary: 'Create or update up to 100 contacts',
  description:
    `Each item is a \`POST /v1/contacts\` body, applied in order as if sent alone (1 to ${BATCH_LIMIT} items). ` +
    'The answer lists every item in input order with the status it would have got alone: `201` with `id` and `duplicate`, ' +
    'or its 4xx with `error`, the body it would have answered (a 409 `CONTACT_MERGE_REQUIRED` opens its merge request). ' +
    'One bad item never fails the others. An item matching an earlier item of the batch by phone or email updates that ' +
    'contact (`duplicate: true`, same `id`). Events are those of each item sent alone. The batch costs two D1 round trips.',
  security: bearer,
  request: {
    body: jsonBody(ContactBatch, {
      contacts: [
        { email: 'ada@example.com', name: 'Ada Lovelace', tags: ['newsletter'] },
        { phone: '+4791234567', name: 'Grace Hopper', custom_fields: { plan: 'pro' } },
      ],
    }),
  },
  responses: { 200: jsonContent(ContactBatchResult, 'One answer per item, in input order') },
  errors: CONTACT_WRITE_ERRORS,
});

/*
 * The reference documents the route as declared, while the router matches it as `/contacts/:segment`:
 * a static `batch` beside `POST /contacts/:id/notes` is a path Hono's RegExpRouter cannot compile, and
 * every request would then be matched by walking a tree. Any other segment is not this route (404).
 */
bulkRoutes.openAPIRegistry.registerPath(batchRoute);

const checkBatchQuery = undeclaredQueryCheck(batchRoute.request);

bulkRoutes.post('/contacts/:segment', async (c, next) => {
  if (c.req.param('segment') !== 'batch') return next();
  checkBatchQuery(c.req.url);
  const parsed = ContactBatch.safeParse(await c.req.json());
  if (!parsed.success) throw SharedErrors.invalidRequest({ problems: requestIssues({ success: false, target: 'json', error: parsed.error }, c) });
  const ctx = serviceContext(c);
  const items = parsed.data.contacts.map((item) => checkItem(ctx, item));
  return c.json({ data: await upsertContacts(ctx, items, { source: 'api' }) } as z.infer<typeof ContactBatchResult>, 200);
});
