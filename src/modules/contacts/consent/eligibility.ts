import { sql, type SQL } from 'drizzle-orm';
import type { Bindings } from '../../../env';
import type { ServiceContext } from '../../../platform/context';
import type { Db } from '../../../platform/d1/db';
import { compileFilter, filterWith } from '../../../platform/filter';
import { rawAll } from '../../../platform/d1/raw-query';
import { declaredIndex } from '../../../platform/d1/indexes';
import { contactCatalog } from '../catalog';
import { contacts, emailBaselineTerms } from '../schema';
import { platformListed, platformListJson, shardPlatformListed, suppressedSql, suppressionRows } from '../../suppressions';
import { blacklistRows, contactPhoneBlacklisted } from '../../blacklist';

/** Who an audience targets: a contact filter tree (the shared grammar) or a list of contact ids. */
export type ContactTarget = { filters: Record<string, unknown> } | { contact_ids: string[] };

/**
 * The email send-eligibility baseline (an audience only narrows
 * it): an address, email consent `subscribed`, no block, no complaint, a
 * deliverability that does not bounce, not suppressed (workspace or platform
 * list) and no blacklisted phone. The same verdict as the consent read's
 * `email.suppressed`, plus the subscription.
 *
 * The terms on the contact's own columns are those of the partial index
 * `contacts_email_eligible` (`emailBaselineTerms`). The platform list lives in the control
 * plane, apart from the shard: a count takes its addresses as one JSON array (`platform`),
 * a page of recipients drops the ones it holds afterwards (`withoutPlatformListed`), and
 * `eligibleSql` honours only the rows of it a shard still holds from before.
 */
const ownTermsSql = sql.raw(emailBaselineTerms('c.'));
/** The platform-list rows a shard still holds from before the list moved to the control plane. */
const shardPlatformRowsSql = shardPlatformListed(sql`c.email`);
const eligibleSql = sql`${ownTermsSql}
  AND NOT ${suppressedSql(sql.raw('c.workspace_id'), sql.raw('c.email'))}
  AND NOT ${contactPhoneBlacklisted}`;

/** Validates a filter tree against the contact catalog (400 `Invalid filter: ...`) and compiles it. */
export const compileContactFilter = (ctx: { wsId: string }, filters: Record<string, unknown>) => compileFilter(filters, contactCatalog, ctx.wsId);

/** A filter tree as a condition over contacts `c`, its values in their own CTE inside the subquery, apart from the caller's. */
export function contactsMatching(workspaceId: string, filters: Record<string, unknown>): SQL {
  const { where, values } = compileContactFilter({ wsId: workspaceId }, filters);
  if (!where) return sql`1`;
  return sql`c.id IN (${filterWith(values)} SELECT c.id FROM ${contacts} c CROSS JOIN fp WHERE c.workspace_id = ${workspaceId} AND ${where})`;
}

/** Whether contact `contactId` exists and matches a filter tree (empty: exists), as SQL for a guarded write. */
export function contactMatches(workspaceId: string, contactId: string, filters: Record<string, unknown>): SQL {
  const { where, values } = compileContactFilter({ wsId: workspaceId }, filters);
  if (!where) return sql`EXISTS (SELECT 1 FROM ${contacts} c WHERE c.workspace_id = ${workspaceId} AND c.id = ${contactId})`;
  return sql`EXISTS (${filterWith(values)} SELECT 1 FROM ${contacts} c CROSS JOIN fp WHERE c.workspace_id = ${workspaceId} AND c.id = ${contactId} AND ${where})`;
}

/** What a personalised email reads of a recipient: the token fields and `custom_fields`. */
export type EligibleContact = {
  id: string;
  email: string;
  name: string | null;
  first_name: string | null;
  last_name: string | null;
  phone: string | null;
  company_name: string | null;
  job_title: string | null;
  city: string | null;
  country: string | null;
  language: string | null;
  custom_fields: string;
};
const RECIPIENT_COLUMNS = sql.raw(
  'c.id, c.email, c.name, c.first_name, c.last_name, c.phone, c.company_name, c.job_title, c.city, c.country, c.language, c.custom_fields',
);

/**
 * A narrowing of the baseline: a filter tree (the shared grammar) and/or a condition over `c` (an
 * audience's); `listed` when that condition is a list of ids, which the query then starts from.
 */
export type EligibleNarrowing = { filters?: Record<string, unknown> | null; extra?: SQL | null; listed?: boolean };

/** The indexes the statements below walk, by the names the contacts schema gives them. */
const [BY_ID, BY_EMAIL_CONSENT, ELIGIBLE, BY_PHONE] = [
  'contacts_id',
  'contacts_workspace_email_consent',
  'contacts_email_eligible',
  'contacts_workspace_phone',
].map((name) => declaredIndex(contacts, name));

/** The platform list's addresses (a JSON array) as a list to test an address against. */
const platformEntries = (platform: SQL) => sql`(SELECT value FROM json_each(${platform}))`;

/**
 * Eligible contacts are found through the subscribed range of the consent index, or by id through
 * `contacts_id` when the narrowing lists them. Both are named: without statistics the
 * planner walked every contact with an email address instead (ten times the rows on the
 * benchmark's workspace for a count or a page, and for a chunk of 50 listed ids). With
 * `platform`, its addresses are left out here; without, the caller leaves them out.
 */
function eligibleFrom(workspaceId: string, narrowing: EligibleNarrowing, platform?: SQL) {
  const { withValues, condition } = narrowingCondition(workspaceId, narrowing);
  const walked = sql.raw(`contacts c INDEXED BY ${narrowing.listed ? BY_ID : BY_EMAIL_CONSENT}`);
  const unlisted = platform ? sql` AND c.email NOT IN ${platformEntries(platform)}` : sql``;
  return {
    withValues,
    condition,
    from: sql`FROM ${walked} CROSS JOIN fp WHERE c.workspace_id = ${workspaceId} AND ${condition} AND ${eligibleSql}${unlisted}`,
  };
}

const narrowingOf = (target: ContactTarget): EligibleNarrowing =>
  'filters' in target
    ? { filters: target.filters }
    : { extra: sql`c.id IN (SELECT value FROM json_each(${JSON.stringify(target.contact_ids)}))`, listed: true };

/**
 * How many contacts pass the baseline and the narrowing, as one scalar expression (`fp` must be
 * in scope when the narrowing reads it); `platform` is the platform list's addresses as a JSON
 * array (`platformListJson`). Listed contacts are counted one by one through `contacts_id`.
 * Otherwise the count is taken from the entries of the partial index `contacts_email_eligible`
 * (the baseline's terms on the contact's own columns, with the address and phone), each tested
 * against the platform-list rows the shard still holds, less those of them on the workspace's own
 * lists (suppressed address, blacklisted phone) or the platform list, found from those lists'
 * entries: a contact row is read only where the narrowing needs its columns, and each list is
 * walked once instead of looked up for every contact.
 */
export function eligibleCountSql(workspace: SQL, narrowing: SQL, listed: boolean, platform: SQL): SQL {
  if (listed) {
    return sql`(SELECT count(*) FROM contacts c INDEXED BY ${sql.raw(BY_ID)}
      WHERE c.workspace_id = ${workspace} AND ${narrowing} AND ${eligibleSql} AND c.email NOT IN ${platformEntries(platform)})`;
  }
  const counted = sql`${ownTermsSql} AND ${narrowing} AND NOT ${shardPlatformRowsSql}`;
  const eligible = sql.raw(ELIGIBLE);
  return sql`((SELECT count(*) FROM contacts c INDEXED BY ${eligible} WHERE c.workspace_id = ${workspace} AND ${counted})
    - (SELECT count(*) FROM (
      SELECT c.rowid FROM ${suppressionRows} s CROSS JOIN contacts c INDEXED BY ${eligible}
        WHERE s.workspace_id = ${workspace} AND c.workspace_id = ${workspace} AND c.email = s.email AND ${counted}
      UNION SELECT c.rowid FROM ${blacklistRows} b CROSS JOIN contacts c INDEXED BY ${sql.raw(BY_PHONE)}
        WHERE b.workspace_id = ${workspace} AND c.workspace_id = ${workspace} AND c.phone = b.phone AND ${counted}
      UNION SELECT c.rowid FROM json_each(${platform}) p CROSS JOIN contacts c INDEXED BY ${eligible}
        WHERE c.workspace_id = ${workspace} AND c.email = p.value AND ${counted})))`;
}

/** The narrowing as one condition over `c`, with the prefix defining the `fp` its filter reads. */
function narrowingCondition(workspaceId: string, narrowing: EligibleNarrowing) {
  let values: unknown[] = [];
  let where: SQL = sql`1`;
  if (narrowing.filters) {
    const compiled = compileContactFilter({ wsId: workspaceId }, narrowing.filters);
    values = compiled.values;
    if (compiled.where) where = compiled.where;
  }
  return { withValues: filterWith(values), condition: sql`${where} AND ${narrowing.extra ?? sql`1`}` };
}

/** How many contacts pass the baseline and the narrowing (a campaign's estimate); `platform` as for `eligibleCountSql`. */
export async function countEmailEligible(db: Db, workspaceId: string, narrowing: EligibleNarrowing, platform: string): Promise<number> {
  const { withValues, condition } = narrowingCondition(workspaceId, narrowing);
  const [row] = await rawAll<{ n: number }>(
    db,
    sql`${withValues} SELECT ${eligibleCountSql(sql`${workspaceId}`, condition, narrowing.listed === true, sql`${platform}`)} AS n FROM fp`,
  );
  return row.n;
}

/**
 * One keyset page (ids after `after`, in id order) of the contacts that pass the baseline and the
 * narrowing, but for the platform list: its addresses are refused by the send path they go on to.
 */
export function emailEligiblePage(db: Db, workspaceId: string, narrowing: EligibleNarrowing, page: { limit: number; after?: string | null }) {
  const { withValues, from } = eligibleFrom(workspaceId, narrowing);
  return rawAll<EligibleContact>(
    db,
    sql`${withValues} SELECT ${RECIPIENT_COLUMNS} ${from} AND c.id > ${page.after ?? ''} ORDER BY c.id LIMIT ${page.limit}`,
  );
}

/** A page of eligible contacts less those whose address is on the platform list: one control-plane statement for the page. */
export async function withoutPlatformListed<T extends { email: string }>(env: Bindings, rows: T[]): Promise<T[]> {
  const listed = await platformListed(
    env,
    rows.map((r) => r.email),
  );
  return listed.size ? rows.filter((r) => !listed.has(r.email)) : rows;
}

/** Where a page of eligible ids resumes: after this contact, in the consent index's (creation time, id) order. */
export type EligibleCursor = { id: string; createdAt: string | null };

/**
 * The next page of eligible ids with their addresses (targeting needs no more; the send reads the
 * fields it renders) in the consent index's own order, (creation time, id), so a page seeks to its
 * cursor and stops after `limit` matches: in id order every page read and sorted the whole
 * subscribed range. A cursor without its creation time takes the contact's (from before cursors
 * carried it; a contact gone since restarts the walk, and rows already targeted are kept as they
 * are). The platform list is the caller's to apply (`withoutPlatformListed`), after the page's
 * end is taken as the next cursor.
 */
export async function emailEligibleIds(
  db: Db,
  workspaceId: string,
  narrowing: EligibleNarrowing,
  page: { limit: number; after: EligibleCursor | null },
) {
  const { withValues, from } = eligibleFrom(workspaceId, narrowing);
  const after = page.after;
  const createdAt = after?.createdAt ?? sql`coalesce((SELECT x.created_at FROM contacts x WHERE x.id = ${after?.id ?? ''}), '')`;
  const cursor = after ? sql`(c.created_at, c.id) > (${createdAt}, ${after.id})` : sql`1`;
  return rawAll<{ id: string; email: string; created_at: string }>(
    db,
    sql`${withValues} SELECT c.id, c.email, c.created_at ${from} AND ${cursor} ORDER BY c.created_at, c.id LIMIT ${page.limit}`,
  );
}

/**
 * The eligible contacts of a target, counted, and one page of them in id order
 * (keyset: pass the last id seen as `after`), in one batch after the platform list's
 * addresses are read from the control plane. The id list of a static target travels as one
 * JSON parameter.
 */
export async function emailEligibleContacts(env: Bindings, ctx: ServiceContext, target: ContactTarget, page: { limit: number; after?: string }) {
  const narrowing = narrowingOf(target);
  const platform = sql`${await platformListJson(env)}`;
  const { withValues, condition, from } = eligibleFrom(ctx.ws.id, narrowing, platform);
  const [counted, rows] = await ctx.db.batch([
    rawAll<{ n: number }>(
      ctx.db,
      sql`${withValues} SELECT ${eligibleCountSql(sql`${ctx.ws.id}`, condition, narrowing.listed === true, platform)} AS n FROM fp`,
    ),
    rawAll<EligibleContact>(
      ctx.db,
      sql`${withValues} SELECT ${RECIPIENT_COLUMNS} ${from} AND c.id > ${page.after ?? ''} ORDER BY c.id LIMIT ${page.limit}`,
    ),
  ]);
  return { count: counted[0].n, contacts: rows };
}
