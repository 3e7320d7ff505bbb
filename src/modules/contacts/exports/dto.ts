import { z } from '@hono/zod-openapi';
import { audienceFiltersInput } from '../audience';
import { EXPORT_STATUSES } from './schema';

export const ContactExportCreate = z
  .object({
    filter: audienceFiltersInput()
      .optional()
      .openapi({ description: 'The contacts to export: the `filter` grammar of `GET /v1/contacts`; none exports every contact' }),
  })
  .strict()
  .openapi('ContactExportCreate');

export const ContactExport = z
  .object({
    id: z.string().uuid(),
    status: z.enum(EXPORT_STATUSES).openapi({
      description: '`queued`, `processing`, then `completed` (downloadable for 7 days, then `expired`) or `failed`',
    }),
    row_count: z.number().int().openapi({ description: 'Contacts written so far; all of them once `completed`' }),
    filter: z.record(z.string(), z.unknown()).nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    expires_at: z.string().nullable().openapi({ description: 'When the file is deleted (7 days after completion)' }),
  })
  .openapi('ContactExport');

export const ContactExportPage = z
  .object({ data: z.array(ContactExport), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('ContactExportPage');
