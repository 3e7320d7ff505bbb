import { z } from '@hono/zod-openapi';

export const BATCH_LIMIT = 100;

/** Items are checked one by one (as the single route checks its body), so one bad item answers alone: the array takes any value. */
const BatchItem = z.unknown().openapi({ $ref: '#/components/schemas/ContactWrite' } as never);

export const ContactBatch = z
  .object({
    contacts: z
      .array(BatchItem)
      .min(1)
      .max(BATCH_LIMIT)
      .openapi({ description: `1 to ${BATCH_LIMIT} \`POST /v1/contacts\` bodies` }),
  })
  .strict()
  .openapi('ContactBatch');

const ItemDone = z
  .object({
    index: z.number().int().openapi({ description: "The item's position in `contacts`, from 0" }),
    status: z.literal(201),
    id: z.string().uuid(),
    duplicate: z.boolean().openapi({ description: 'An existing contact (or one an earlier item created) was updated' }),
  })
  .openapi('ContactBatchItemDone');

const ItemFailed = z
  .object({
    index: z.number().int(),
    status: z.number().int().openapi({ description: 'The 4xx the item would have got alone' }),
    error: z.record(z.string(), z.unknown()).openapi({ description: 'The error body it would have got alone (framework shape)' }),
  })
  .openapi('ContactBatchItemFailed');

export const ContactBatchResult = z.object({ data: z.array(z.union([ItemDone, ItemFailed])) }).openapi('ContactBatchResult');
