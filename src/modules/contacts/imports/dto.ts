import { z } from '@hono/zod-openapi';
import { IMPORT_STATUSES } from './schema';

export const ContactImport = z
  .object({
    id: z.string().uuid(),
    status: z
      .enum(IMPORT_STATUSES)
      .openapi({ description: '`queued`, `processing`, then `completed` (row errors included) or `failed` (the file could not be processed)' }),
    total_rows: z.number().int().openapi({ description: 'Data rows of the file (the header and empty lines not counted)' }),
    processed_rows: z.number().int(),
    created: z.number().int(),
    updated: z.number().int(),
    failed: z.number().int(),
    errors: z
      .array(z.object({ row: z.number().int().openapi({ description: '1-based data row (the header is row 0)' }), message: z.string() }))
      .openapi({ description: 'The first 100 row errors, each the message `POST /v1/contacts` would have answered for the row' }),
    created_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .openapi('ContactImport');

export const ContactImportPage = z
  .object({ data: z.array(ContactImport), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('ContactImportPage');
