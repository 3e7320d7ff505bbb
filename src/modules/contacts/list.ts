import { rawAll } from '../../platform/raw-query';
import { sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { compileFilter, filterWith } from '../../platform/filter';
import { envelope, parseFilterParam, parsePaging, parseSort, searchParam } from '../../platform/list';
import { toE164 } from '../../platform/phone';
import { CONTACT_SORTS, contactCatalog } from './catalog';
import { contactColumns, serializeContact, type ContactRow } from './read';

export type ListQuery = { filter?: string; sort?: string; limit?: string; offset?: string; search?: string };

const SEARCHED = ['name', 'first_name', 'last_name', 'email', 'phone', 'company_name'];

/**
 * Rowids of the workspace's contacts holding the exact E.164 form of the term
 * (or the lower-cased term) as phone or email, now or in their history: index
 * probes only (`kind` pins the identifier look-up to the unique index).
 */
function exactMatches(ctx: ServiceContext, term: string): SQL {
  const exact = JSON.stringify([term.toLowerCase(), toE164(term, ctx.ws.defaultCountry)].filter((v): v is string => !!v));
  return sql`SELECT rowid FROM contacts WHERE workspace_id = ${ctx.ws.id} AND phone IN (SELECT value FROM json_each(${exact}))
    UNION SELECT rowid FROM contacts WHERE workspace_id = ${ctx.ws.id} AND email IN (SELECT value FROM json_each(${exact}))
    UNION SELECT x.rowid FROM json_each(${exact}) j CROSS JOIN contact_identifiers i CROSS JOIN contacts x
      WHERE i.workspace_id = ${ctx.ws.id} AND i.kind IN ('phone', 'email') AND i.value = j.value AND x.id = i.contact_id`;
}

/**
 * Case-insensitive substring over the searched columns, plus exact identifiers.
 * Terms of 3+ characters are a candidate set from the trigram index that the
 * query starts from (CROSS JOIN fixes that order), so cost follows the matches,
 * not the workspace. Shorter terms (below trigram size) scan the workspace's
 * rows through the covering search index.
 */
function searchSource(ctx: ServiceContext, raw: string | undefined): { candidates?: SQL; condition?: SQL } {
  const term = searchParam('search', raw)?.trim();
  if (!term) return {};
  if ([...term].length >= 3) {
    const match = `"${term.replace(/"/g, '""')}"`;
    return { candidates: sql`(SELECT rowid AS rid FROM contacts_fts WHERE contacts_fts MATCH ${match} UNION ${exactMatches(ctx, term)}) s` };
  }
  const likes = caseVariants(term).flatMap((variant) => {
    const pattern = `%${variant.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    return SEARCHED.map((f) => sql`${sql.raw(`c.${f}`)} LIKE ${pattern} ESCAPE '\\'`);
  });
  return { condition: sql`(${sql.join(likes, sql.raw(' OR '))} OR c.rowid IN (${exactMatches(ctx, term)}))` };
}

/**
 * LIKE folds only ASCII case, so a short term is spelled in every case of its
 * non-ASCII characters (at most 4 spellings for a 2-character term).
 */
function caseVariants(term: string): string[] {
  let out = [''];
  for (const ch of term) {
    const forms = /[^\x00-\x7f]/.test(ch) ? [...new Set([ch.toLowerCase(), ch.toUpperCase()])] : [ch];
    out = out.flatMap((prefix) => forms.map((f) => prefix + f));
  }
  return out;
}

/**
 * GET /v1/contacts: total and page in one batch. The page is chosen on bare
 * rows first; labels and attendances are then read for its rows only.
 */
export async function listContacts(ctx: ServiceContext, query: ListQuery) {
  const paging = parsePaging(query, { limit: 50, cap: 500 });
  const { where, values } = compileFilter(parseFilterParam(query.filter), contactCatalog, ctx.ws.id);
  const sort = parseSort(query.sort, CONTACT_SORTS);
  const search = searchSource(ctx, query.search);
  const conditions = [sql`c.workspace_id = ${ctx.ws.id}`];
  if (search.candidates) conditions.push(sql`c.rowid = s.rid`);
  if (where) conditions.push(where);
  if (search.condition) conditions.push(search.condition);
  // Without candidates the contacts come first, so a sort index can serve ORDER BY ... LIMIT
  // (behind the one-row filter source, it cannot).
  const sources = search.candidates
    ? sql`fp CROSS JOIN ${search.candidates} CROSS JOIN contacts c`
    : sql`contacts c CROSS JOIN fp`;
  const withValues = filterWith(values);
  const matching = sql`WHERE ${sql.join(conditions, sql.raw(' AND '))}`;
  const from = sql`FROM ${sources} ${matching}`;
  // The count has no order to keep, so the filter's values come first and can probe an index
  // (`lifecycle_stage = ?`, `lead_score >= ?`) instead of testing every contact of the workspace.
  const counted = search.candidates ? from : sql`FROM fp CROSS JOIN contacts c ${matching}`;
  const order = sql.raw(`c.${sort.field} ${sort.descending ? 'DESC' : 'ASC'}, c.id ${sort.descending ? 'DESC' : 'ASC'}`);
  const [total, rows] = await ctx.db.batch([
    rawAll<{ total: number }>(ctx.db, sql`${withValues} SELECT count(*) AS total ${counted}`),
    rawAll<ContactRow>(
      ctx.db,
      sql`${withValues} SELECT ${contactColumns} FROM (SELECT c.rowid AS page_rid ${from} ORDER BY ${order} LIMIT ${paging.limit} OFFSET ${paging.offset}) p
        CROSS JOIN contacts c WHERE c.rowid = p.page_rid ORDER BY ${order}`,
    ),
  ]);
  return envelope(rows.map(serializeContact), total[0].total, paging);
}
