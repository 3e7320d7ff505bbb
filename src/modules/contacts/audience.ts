import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../platform/d1/db';
import { compileFilter, filterWith } from '../../platform/filter';
import { boundedJsonObject, describeBounds } from '../../platform/json-bounds';
import { orNull } from '../../platform/validation';
import { rawAll } from '../../platform/d1/raw-query';
import { contactPhoneBlacklisted } from '../blacklist';
import { contactCatalog } from './catalog';

export const AUDIENCE_FILTER_BOUNDS = { maxDepth: 30, maxKeys: 2000, maxBytes: 32_768 };

const AUDIENCE_FILTERS = 'A contact condition tree (the `filter` grammar of GET /v1/contacts), type-checked on write';

/** The `audience_filters` field of a campaign body: a bounded contact condition tree, type-checked by the service on write. */
export const audienceFiltersInput = () => boundedJsonObject(AUDIENCE_FILTER_BOUNDS, AUDIENCE_FILTERS);

/**
 * `audience_filters` of a campaign write, null included: a record reads back `audience_filters: null`, and a write
 * that changes a campaign (a PATCH, an email campaign's replay) clears the stored tree with it.
 */
export const campaignAudienceFilters = () =>
  orNull(
    audienceFiltersInput(),
    'object',
    `${AUDIENCE_FILTERS} (${describeBounds(AUDIENCE_FILTER_BOUNDS)}). null: no filter; on a write to an existing campaign it clears the stored one`,
  );

/** Type-checks a contact condition tree (400 `Invalid filter...` / `Invalid filter value ...`) without running it. */
export function checkContactFilter(filters: Record<string, unknown>, workspaceId: string): void {
  compileFilter(filters, contactCatalog, workspaceId);
}

/** Where a page resumes: after this contact, in (creation time, id) order. */
export type AudienceCursor = { id: string; createdAt: string | null };

/**
 * One keyset page of the contacts a WhatsApp broadcast may reach: a phone,
 * WhatsApp consent `subscribed`, not blocked, the phone not blacklisted,
 * matching `filters` (the contact filter grammar) and `extra` (an audience's
 * condition over `c`), after `after`, in the consent index's own order
 * (creation time, id): a page seeks to its cursor and stops after `limit`
 * matches, so every page costs the same however deep. A cursor without its
 * creation time takes the contact's (a contact gone since restarts the walk;
 * rows already targeted are kept as they are).
 */
export async function whatsappAudiencePage(
  db: Db,
  workspaceId: string,
  opts: { filters: Record<string, unknown> | null; extra?: SQL | null; after: AudienceCursor | null; limit: number },
): Promise<{ id: string; created_at: string }[]> {
  const { where, values } = compileFilter(opts.filters ?? {}, contactCatalog, workspaceId);
  const { after } = opts;
  const createdAt = after?.createdAt ?? sql`coalesce((SELECT x.created_at FROM contacts x WHERE x.id = ${after?.id ?? ''}), '')`;
  const conditions = [
    sql`c.workspace_id = ${workspaceId}`,
    sql`c.whatsapp_consent_state = 'subscribed'`,
    after ? sql`(c.created_at, c.id) > (${createdAt}, ${after.id})` : sql`1`,
    sql`c.phone IS NOT NULL`,
    sql`c.block_state = 'none'`,
    sql`NOT ${contactPhoneBlacklisted}`,
  ];
  if (where) conditions.push(where);
  if (opts.extra) conditions.push(opts.extra);
  return rawAll<{ id: string; created_at: string }>(
    db,
    sql`${filterWith(values)} SELECT c.id, c.created_at FROM contacts c INDEXED BY contacts_workspace_wa_consent CROSS JOIN fp
      WHERE ${sql.join(conditions, sql.raw(' AND '))} ORDER BY c.created_at, c.id LIMIT ${opts.limit}`,
  );
}

/** What a personalized send needs of each contact (variables may reference these fields). */
export type RecipientContact = {
  id: string;
  phone: string | null;
  block_state: string;
  whatsapp_consent_state: string | null;
  custom_fields: string;
  /** 1 when the contact's phone is blacklisted. */
  blacklisted: number;
} & Record<(typeof VARIABLE_FIELDS)[number], string | null>;

export const VARIABLE_FIELDS = [
  'name',
  'first_name',
  'last_name',
  'phone',
  'email',
  'company_name',
  'job_title',
  'city',
  'country',
  'language',
] as const;

/** Batchable read of the listed contacts of a workspace. */
export const selectRecipientContacts = (db: Db, workspaceId: string, ids: string[]) =>
  rawAll<RecipientContact>(
    db,
    sql`SELECT c.id, c.block_state, c.whatsapp_consent_state, c.custom_fields, ${sql.raw(VARIABLE_FIELDS.map((f) => `c.${f}`).join(', '))},
      ${contactPhoneBlacklisted} AS blacklisted
      FROM contacts c WHERE c.workspace_id = ${workspaceId} AND c.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
  );
