import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../../platform/context';
import { limitQuery, offsetQuery, parsePaging } from '../../../platform/list';
import { bearer, defineRoute, jsonBody, jsonContent, SUCCESS_HEADERS } from '../../../platform/openapi';
import { SharedErrors } from '../../../platform/shared-errors';
import { createRouter, idParams } from '../../../platform/validation';
import { ContactErrors } from '../errors';
import { ContactExport, ContactExportCreate, ContactExportPage } from './dto';
import { createExport, downloadExport, getExport, listExports, serializeExport } from './service';

export const exportRoutes = createRouter();

const PAGING = { limit: 20, cap: 100 };

exportRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/contact-exports',
    operationId: 'createContactExport',
    tags: ['Contacts'],
    summary: 'Export contacts to a CSV file',
    description:
      'Exports the contacts `filter` selects (all without one) through a queue, in pages of 500; poll `GET /v1/contact-exports/{id}` ' +
      'until `completed`, then download. The file has a header row, then one row per contact in creation order: `id`, the contact write ' +
      'fields, `tags` and `groups` (names joined by `|`), one `custom_fields.<key>` column per custom field key of the workspace (a text ' +
      'value as is, any other as JSON), `whatsapp_consent_state`, `email_consent_state`, `created_at` and `updated_at`. A cell that ' +
      'starts with `=`, `+`, `-`, `@`, a tab or a carriage return (one a spreadsheet would run as a formula) is written with a single ' +
      'quote in front, one that starts with quotes before such a character with one more quote; the stored values are unchanged. ' +
      'Importing the file (`POST /v1/contact-imports`) gives the same contacts. Files are kept 7 days.',
    security: bearer,
    request: { body: jsonBody(ContactExportCreate, { filter: { lifecycle_stage: 'customer' } }) },
    responses: { 201: jsonContent(ContactExport, 'The export, `queued`') },
    errors: [SharedErrors.invalidFilter],
  }),
  async (c) => c.json(serializeExport(await createExport(c.env, serviceContext(c), c.req.valid('json').filter)), 201),
);

exportRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contact-exports',
    operationId: 'listContactExports',
    tags: ['Contacts'],
    summary: 'List contact exports',
    description: 'Newest first.',
    security: bearer,
    request: { query: z.object({ limit: limitQuery(PAGING), offset: offsetQuery() }) },
    responses: { 200: jsonContent(ContactExportPage, 'A page of exports') },
    errors: [SharedErrors.invalidInteger],
  }),
  async (c) => c.json(await listExports(serviceContext(c), parsePaging(c.req.valid('query'), PAGING)), 200),
);

exportRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contact-exports/{id}',
    operationId: 'getContactExport',
    tags: ['Contacts'],
    summary: 'Get a contact export',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(ContactExport, 'The export') },
    errors: [ContactErrors.exportNotFound],
  }),
  async (c) => c.json(serializeExport(await getExport(serviceContext(c), c.req.valid('param').id.toLowerCase())), 200),
);

exportRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contact-exports/{id}/download',
    operationId: 'downloadContactExport',
    tags: ['Contacts'],
    summary: 'Download a completed contact export',
    description:
      'The CSV file (UTF-8, RFC 4180 quoting, CRLF line ends). Before completion 409 `EXPORT_NOT_READY`; after 7 days 410 `EXPORT_EXPIRED`.',
    security: bearer,
    request: { params: idParams },
    responses: {
      200: {
        description: 'The CSV file',
        headers: SUCCESS_HEADERS,
        content: { 'text/csv': { schema: z.string().openapi({ description: 'Header row, then one row per contact' }) } },
      },
    },
    errors: [ContactErrors.exportNotFound, ContactErrors.exportNotReady, ContactErrors.exportExpired],
  }),
  async (c) => {
    const id = c.req.valid('param').id.toLowerCase();
    const stream = await downloadExport(c.env, serviceContext(c), id);
    return c.body(stream, 200, { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': `attachment; filename="contacts-${id}.csv"` });
  },
);
