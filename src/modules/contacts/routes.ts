import type { z } from '@hono/zod-openapi';
import { listQuery } from '../../platform/list';
import { bearer, defineRoute, jsonBody, jsonContent } from '../../platform/openapi';
import { SharedErrors } from '../../platform/shared-errors';
import { createRouter, idParams } from '../../platform/validation';
import { afterResponse } from '../../platform/after-response';
import { serviceContext } from '../../platform/context';
import { jsonText } from '../../platform/json-text';
import { Contact, ContactPage, ContactUpsertResult, ContactWrite, type ContactBody } from './dto';
import { CONTACT_SORTS } from './catalog';
import { ContactErrors } from './errors';
import { listContacts } from './list';
import { serializeContact } from './read';
import { getContact, normalizeWrite, patchContact, upsertContact } from './service';

export const contactRoutes = createRouter();

const body = (x: unknown) => x as ContactBody;

/** What a contact write checks beyond its body's schema. */
const WRITE_ERRORS = [
  SharedErrors.invalidPhone,
  ContactErrors.invalidEmail,
  ContactErrors.phoneBlacklisted,
  ContactErrors.globalBlockLocked,
  ContactErrors.mergedFieldsTooLarge,
];

const CONTACT_LIST_QUERY = listQuery({
  sorts: CONTACT_SORTS,
  paging: { limit: 50, cap: 500 },
  search: 'Name, first/last name, email, phone and company (case-insensitive substring), the exact E.164 form and historical identifiers',
  filterExample: { lifecycle_stage: 'prospect' },
});

contactRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contacts',
    operationId: 'listContacts',
    tags: ['Contacts'],
    summary: 'List contacts',
    description:
      'Shared list conventions. `filter` accepts the contact filter grammar (exact match, any-of arrays, `$gt`, `$where` trees, ' +
      '`$jsonb_contains` for tag/group ids, `$event_attendance`, `custom_fields.<key>` and the virtual consent fields). ' +
      '`search` matches name, first/last name, email, phone and company (case-insensitive substring), ' +
      'the exact E.164 form of the term and historical identifiers. `sort` default `-created_at`.',
    security: bearer,
    request: { query: CONTACT_LIST_QUERY },
    responses: { 200: jsonContent(ContactPage, 'A page of contacts') },
  }),
  async (c) => {
    const { page, remember } = await listContacts(serviceContext(c), c.req.valid('query'));
    if (remember) afterResponse(c.executionCtx, c.var.admission)(remember);
    return jsonText<z.infer<typeof ContactPage>, 200>(c, page, 200);
  },
);

contactRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/contacts',
    operationId: 'upsertContact',
    tags: ['Contacts'],
    summary: 'Create or update a contact by phone/email',
    description:
      'Upsert: the phone resolves first (history-aware), then the email. A match is updated (scalars overwrite, `custom_fields` merge, ' +
      'tags/groups only added) and answers `duplicate: true`; otherwise a contact is created. Phone and email resolving to two different ' +
      'contacts answers 409 `CONTACT_MERGE_REQUIRED` with `merge_request_id` and writes nothing.',
    security: bearer,
    request: {
      body: jsonBody(ContactWrite, {
        email: 'ada@example.com',
        phone: '+4791234567',
        name: 'Ada Lovelace',
        city: 'Oslo',
        tags: ['newsletter'],
        custom_fields: { plan: 'pro' },
      }),
    },
    responses: { 201: jsonContent(ContactUpsertResult, 'Created (`duplicate: false`) or updated (`duplicate: true`)') },
    errors: [...WRITE_ERRORS, ContactErrors.limitReached, ContactErrors.mergeRequired.onCreate],
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const { row, duplicate } = await upsertContact(ctx, normalizeWrite(ctx, c.req.valid('json')), { source: 'api' });
    return c.json({ ...body(serializeContact(row)), duplicate }, 201);
  },
);

contactRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contacts/{id}',
    operationId: 'getContact',
    tags: ['Contacts'],
    summary: 'Get a contact',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(Contact, 'The contact') },
    errors: [ContactErrors.idNotFound],
  }),
  async (c) => jsonText<ContactBody, 200>(c, await getContact(serviceContext(c), c.req.valid('param').id.toLowerCase()), 200),
);

contactRoutes.openapi(
  defineRoute({
    method: 'patch',
    path: '/contacts/{id}',
    operationId: 'updateContact',
    tags: ['Contacts'],
    summary: 'Update a contact',
    description:
      'Partial update. `tags`/`groups` replace the set (empty clears, names auto-create); a `custom_fields` key set to null is removed. ' +
      'Moving the phone or email onto an identifier another contact holds or held answers 409 `CONTACT_MERGE_REQUIRED` and writes nothing.',
    security: bearer,
    request: { params: idParams, body: jsonBody(ContactWrite, { city: 'Bergen', tags: ['customer'], custom_fields: { plan: null } }) },
    responses: { 200: jsonContent(Contact, 'The updated contact') },
    errors: [...WRITE_ERRORS, ContactErrors.notFound, ContactErrors.idNotFound, ContactErrors.mergeRequired.onUpdate],
  }),
  async (c) => {
    const ctx = serviceContext(c);
    const row = await patchContact(ctx, c.req.valid('param').id.toLowerCase(), normalizeWrite(ctx, c.req.valid('json')));
    return c.json(body(serializeContact(row)), 200);
  },
);
