import { z } from '@hono/zod-openapi';
import { booleanQuery, limitQuery, offsetQuery, searchQuery, textQuery } from '../../platform/list';
import { hasAtMostTwoDecimals } from '../../platform/money';

const VAT_MODES = ['inclusive', 'exclusive'] as const;

const writeFields = {
  name: z.string().trim().min(1).max(200),
  sku: z.string().min(1).max(100).nullable().optional(),
  external_id: z.string().min(1).max(200).nullable().optional().openapi({ description: 'Unique per workspace; the POST upsert key' }),
  description: z.string().max(2000).nullable().optional(),
  price: z.number().min(0).max(9999999999).nullable().optional().openapi({ description: 'Workspace payment currency; null means dynamic pricing' }),
  vat_mode: z.enum(VAT_MODES).nullable().optional().openapi({ description: 'Sent together with `vat_rate`; both null clears the override' }),
  vat_rate: z
    .number()
    .min(0)
    .max(100)
    .refine(hasAtMostTwoDecimals, { message: 'vat_rate must have at most 2 decimals' })
    .openapi({ multipleOf: 0.01 })
    .nullable()
    .optional(),
  is_active: z.boolean().optional(),
};

type VatLegs = { vat_mode?: string | null; vat_rate?: number | null };

/** The VAT pair travels together: both absent, both null (clears) or both set. */
function checkVatPair(value: VatLegs, ctx: z.RefinementCtx) {
  const modeSent = value.vat_mode !== undefined;
  const rateSent = value.vat_rate !== undefined;
  if (modeSent !== rateSent || (modeSent && (value.vat_mode === null) !== (value.vat_rate === null))) {
    ctx.addIssue({
      code: 'custom',
      path: [modeSent ? 'vat_rate' : 'vat_mode'],
      message: 'vat_mode and vat_rate must be sent together (both set, or both null to clear)',
    });
  }
}

export const ProductCreate = z.object(writeFields).strict().superRefine(checkVatPair).openapi('ProductCreate');

export const ProductPatch = z
  .object({ ...writeFields, name: writeFields.name.optional() })
  .strict()
  .superRefine(checkVatPair)
  .openapi('ProductPatch');

export type ProductCreateInput = z.infer<typeof ProductCreate>;
export type ProductPatchInput = z.infer<typeof ProductPatch>;

export const Product = z
  .object({
    id: z.string().uuid(),
    workspace_id: z.string().uuid(),
    name: z.string(),
    sku: z.string().nullable(),
    external_id: z.string().nullable(),
    description: z.string().nullable(),
    price: z.number().nullable(),
    vat_mode: z.enum(VAT_MODES).nullable(),
    vat_rate: z.number().nullable(),
    is_active: z.boolean(),
    created_by: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Product');

export const ProductCreated = Product.extend({ duplicate: z.boolean() }).openapi('ProductCreated');

export const ProductList = z
  .object({ data: z.array(Product), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .openapi('ProductList');

export const ProductListQuery = z.object({
  q: searchQuery('q', 'Literal case-insensitive substring of name or description (`%` and `_` match themselves)'),
  sku: textQuery('Exact match'),
  external_id: textQuery('Exact match'),
  is_active: booleanQuery('is_active', 'Only active (`true`) or inactive (`false`) products'),
  limit: limitQuery({ limit: 50, cap: 500 }),
  offset: offsetQuery(),
});
