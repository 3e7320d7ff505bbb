import { z } from '@hono/zod-openapi';
import { FEATURES } from '../platform/workspace';
import { isPhoneCountry } from '../platform/phone';
import { isValidTimeZone } from '../platform/timezones';
import { hasAtMostTwoDecimals } from '../platform/money';

const positiveInt = z.number().int().min(0).max(2147483647);
const cap = positiveInt.nullable().optional();
const rateLimit = z.number().int().min(1).max(1_000_000).nullable().optional();

const workspaceFields = {
  name: z.string().trim().min(1).max(200),
  timezone: z.string().refine(isValidTimeZone, { message: 'timezone must be a valid IANA time zone id' }),
  default_country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, { message: 'default_country must be an ISO-3166 alpha-2 code' })
    // Two letters that name no region would fail every later phone write of the workspace.
    .refine((code) => !/^[A-Za-z]{2}$/.test(code) || isPhoneCountry(code), {
      message: 'must be a country code of the phone numbering plan (ISO 3166 alpha-2, e.g. US, GB, DE)',
    }),
  currency: z.string().regex(/^[A-Za-z]{3}$/, { message: 'currency must be a 3-letter code' }),
  api_access: z.boolean(),
  features: z.array(z.enum(FEATURES)).max(FEATURES.length),
  caps: z.object({ contacts: cap, deals: cap, orders: cap, newsletters: cap }).strict(),
  lead_scoring: z.boolean(),
  email: z.object({ monthly_quota: cap, daily_warming_cap: cap, paused: z.boolean().optional() }).strict(),
  rate_limits: z.object({ per_key_per_minute: rateLimit, emails_per_minute: rateLimit, bookings_per_hour: rateLimit }).strict(),
  whatsapp_phone_number_id: z.string().trim().min(1).max(64),
  vat: z
    .object({
      mode: z.enum(['inclusive', 'exclusive']),
      rate: z.number().min(0).max(100).refine(hasAtMostTwoDecimals, { message: 'rate has at most 2 decimals' }),
    })
    .strict(),
};

export const workspacePatch = z.object(workspaceFields).partial().strict();
/** `shard` places the workspace on a data database (a `SHARD_<n>` binding name); it cannot change afterwards. */
export const workspaceCreate = workspacePatch
  .required({ name: true })
  .extend({ shard: z.string().max(100).optional() })
  .strict();

export const apiKeyCreate = z.object({ name: z.string().trim().min(1).max(100) }).strict();

export const userCreate = z
  .object({
    name: z.string().trim().min(1).max(200),
    email: z.string().trim().max(255).pipe(z.email()),
    role: z.enum(['admin', 'agent']),
    active: z.boolean().optional(),
  })
  .strict();

export const pipelineCreate = z
  .object({
    name: z.string().trim().min(1).max(200),
    is_default: z.boolean().optional(),
    description: z.string().max(2000).nullable().optional(),
    stages: z
      .array(
        z
          .object({
            name: z.string().trim().min(1).max(200),
            color: z.string().max(32).optional(),
            win_probability: z.number().int().min(0).max(100).nullable().optional(),
          })
          .strict(),
      )
      .max(100),
  })
  .strict();

export const blacklistCreate = z.object({ phone: z.string().min(1).max(32) }).strict();
