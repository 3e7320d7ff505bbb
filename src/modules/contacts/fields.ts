import { z } from '@hono/zod-openapi';
import type { FieldKind } from '../../platform/filter';
import { boundedJsonObject, CUSTOM_FIELDS_BOUNDS } from '../../platform/json-bounds';
import { BLOCK_STATES, CONTACT_SOURCES, GENDERS, LIFECYCLE_STAGES } from './schema';

/**
 * The contact's writable scalar fields (docs/contacts.md), one row each: the
 * request schema, the filter catalog and the change detection all read this table.
 * Scalars accept null on writes to clear a value.
 */
const str = (max: number) => z.string().max(max);
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const isoDate = z
  .string()
  .refine((v) => ISO_DATE.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v), {
    message: 'must be an ISO 8601 date (YYYY-MM-DD)',
  })
  .openapi({ format: 'date', example: '1990-04-17' });

type ScalarDef = { schema: z.ZodTypeAny; kind: FieldKind; values?: readonly string[] };

const text = (max: number): ScalarDef => ({ schema: str(max), kind: 'text' });
const oneOf = (values: readonly [string, ...string[]]): ScalarDef => ({ schema: z.enum(values), kind: 'enum', values });

export const SCALAR_FIELDS = {
  name: text(200),
  first_name: text(100),
  last_name: text(100),
  avatar_url: text(500),
  notes: text(5000),
  lifecycle_stage: oneOf(LIFECYCLE_STAGES),
  source: oneOf(CONTACT_SOURCES),
  company_name: text(200),
  vat_number: text(40),
  job_title: text(120),
  industry: text(80),
  company_website: text(500),
  annual_revenue: { schema: z.number(), kind: 'number' },
  employee_count: { schema: z.number().int().min(0).max(2147483647), kind: 'integer' },
  currency_preference: text(8),
  address_line1: text(200),
  address_line2: text(200),
  city: text(100),
  state: text(100),
  country: text(100),
  postal_code: text(20),
  gender: oneOf(GENDERS),
  date_of_birth: { schema: isoDate, kind: 'date' },
  language: text(12),
  source_page_url: text(2048),
  source_page_title: text(500),
  referrer: text(2048),
  user_agent: text(2048),
  affiliate: text(200),
  utm_source: text(200),
  utm_medium: text(200),
  utm_campaign: text(200),
  utm_term: text(200),
  utm_content: text(200),
  gclid: text(200),
  fbclid: text(200),
  lead_score: { schema: z.number(), kind: 'number' },
  linkedin_url: text(500),
  facebook_url: text(500),
  instagram_handle: text(100),
  twitter_handle: text(100),
} satisfies Record<string, ScalarDef>;

export type ScalarField = keyof typeof SCALAR_FIELDS;
export const SCALAR_NAMES = Object.keys(SCALAR_FIELDS) as ScalarField[];

const labelNames = z.array(z.string().trim().min(1).max(100)).max(200);

const scalarShape = Object.fromEntries(Object.entries(SCALAR_FIELDS).map(([k, d]) => [k, d.schema.nullable().optional()])) as {
  [K in ScalarField]: z.ZodOptional<z.ZodNullable<(typeof SCALAR_FIELDS)[K]['schema']>>;
};

export const ContactWrite = z
  .object({
    ...scalarShape,
    phone: z.string().max(32).nullable().optional(),
    email: z.string().trim().max(255).pipe(z.email()).nullable().optional().openapi({ format: 'email', description: 'Trimmed and lower-cased' }),
    block_state: z.enum(BLOCK_STATES).optional(),
    custom_fields: boundedJsonObject(
      CUSTOM_FIELDS_BOUNDS,
      'Merged into the stored object; a key set to null is removed. The stored result is bounded too',
    ).optional(),
    tags: labelNames.optional().openapi({ description: 'Tag NAMES (ids come back on reads); missing tags are created' }),
    groups: labelNames.optional().openapi({ description: 'Group NAMES (ids come back on reads); missing groups are created' }),
  })
  .strict()
  .openapi('ContactWrite');

export type ContactWriteInput = z.infer<typeof ContactWrite>;
