import { z } from '@hono/zod-openapi';
import { serviceContext } from '../../../platform/context';
import { limitQuery, offsetQuery, parsePaging } from '../../../platform/list';
import { bearer, defineRoute, jsonContent } from '../../../platform/openapi';
import { SharedErrors } from '../../../platform/shared-errors';
import { createRouter, idParams } from '../../../platform/validation';
import { ContactErrors } from '../errors';
import { ContactImport, ContactImportPage } from './dto';
import { IMPORT_MAX_ROWS } from './file';
import { createImport, getImport, listImports, serializeImport } from './service';

export const importRoutes = createRouter();

const PAGING = { limit: 20, cap: 100 };

const CSV_EXAMPLE = 'email;name;tags;custom_fields.plan\nada@example.com;Ada Lovelace;vip|newsletter;pro\n';

importRoutes.openapi(
  defineRoute({
    method: 'post',
    path: '/contact-imports',
    operationId: 'createContactImport',
    tags: ['Contacts'],
    summary: 'Import contacts from a CSV file',
    description:
      'The body is the file (`Content-Type: text/csv`): UTF-8 with or without a BOM, RFC 4180 quoting, `,` or `;` as delimiter ' +
      `(detected from the header row), at most 10 MB and ${IMPORT_MAX_ROWS} data rows; empty lines are skipped. The header row names ` +
      'contact write fields (`email`, `phone`, `name`, `first_name`, `last_name`, `company_name`, `city`, `lifecycle_stage`, ...), ' +
      '`tags` and `groups` (names separated by `|`) and `custom_fields.<key>`; the read-only columns of an export (`id`, ' +
      '`whatsapp_consent_state`, `email_consent_state`, `created_at`, `updated_at`) are accepted and skipped, so an exported file imports as is. ' +
      "A cell that starts with single quotes before `=`, `+`, `-`, `@`, a tab or a carriage return loses one quote (an export's formula guard). " +
      'The whole file is checked before anything is stored: an unknown column, an empty file, a file over the limits, invalid CSV or ' +
      'another content type answers 400 and creates nothing. Each row then behaves like `POST /v1/contacts` with source `import` ' +
      '(an empty cell sends nothing; a custom field cell holding a JSON number, boolean, object or array is read as that value), except ' +
      'that no contact webhook events are emitted. Rows are processed through a queue in chunks of 100; poll `GET /v1/contact-imports/{id}`.',
    security: bearer,
    request: {
      body: {
        required: true,
        content: { 'text/csv': { schema: z.string().openapi({ description: 'The CSV file' }), example: CSV_EXAMPLE } },
      },
    },
    responses: { 201: jsonContent(ContactImport, 'The import, `queued`') },
    errors: [
      ContactErrors.importNotCsv,
      ContactErrors.importTooLarge,
      ContactErrors.importNotUtf8,
      ContactErrors.importEmpty,
      ContactErrors.importTooManyRows,
      ContactErrors.importMalformed,
      ContactErrors.importUnknownColumns,
      ContactErrors.importBadHeader,
    ],
  }),
  async (c) => {
    const mediaType = (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (mediaType !== 'text/csv') throw ContactErrors.importNotCsv();
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    return c.json(serializeImport(await createImport(c.env, serviceContext(c), bytes)), 201);
  },
);

importRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contact-imports',
    operationId: 'listContactImports',
    tags: ['Contacts'],
    summary: 'List contact imports',
    description: 'Newest first.',
    security: bearer,
    request: { query: z.object({ limit: limitQuery(PAGING), offset: offsetQuery() }) },
    responses: { 200: jsonContent(ContactImportPage, 'A page of imports') },
    errors: [SharedErrors.invalidInteger],
  }),
  async (c) => c.json(await listImports(serviceContext(c), parsePaging(c.req.valid('query'), PAGING)), 200),
);

importRoutes.openapi(
  defineRoute({
    method: 'get',
    path: '/contact-imports/{id}',
    operationId: 'getContactImport',
    tags: ['Contacts'],
    summary: 'Get a contact import and its progress',
    security: bearer,
    request: { params: idParams },
    responses: { 200: jsonContent(ContactImport, 'The import') },
    errors: [ContactErrors.importNotFound],
  }),
  async (c) => c.json(serializeImport(await getImport(serviceContext(c), c.req.valid('param').id.toLowerCase())), 200),
);
