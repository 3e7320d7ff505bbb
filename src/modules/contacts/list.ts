import { rawAll, rawRun } from '../../platform/raw-query';
import { sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { compileFilter, filterSource } from '../../platform/filter';
import { envelope, parseFilterParam, parsePaging, parseSort } from '../../platform/list';
import { toE164 } from '../../platform/phone';
import { CONTACT_SORTS, contactCatalog } from './catalog';
import { contactColumns, serializeContact, type ContactRow } from './read';

export type ListQuery = { filter?: string; sort?: string; limit?: string; offset?: string; search?: string };

const SEARCHED = ['name', 'first_name', 'last_name', 'email', 'phone', 'company_name'];

/**
 * Case-insensitive substring over the searched columns, plus the exact E.164
 * form of the term and historical identifiers. Terms of 3+ characters probe the
 * trigram index; shorter ones (below trigram size) scan the workspace's rows.
 */
function searchCondition(ctx: ServiceContext, raw: string | undefined): SQL | undefined {
  const term = raw?.trim();
  if (!term) return undefined;
  const lower = term.toLowerCase();
  const substring =
    [...term].length >= 3
      ? sql`c.rowid IN (SELECT rowid FROM contacts_fts WHERE contacts_fts MATCH ${`"${term.replace(/"/g, '""')}"`})`
      : sql`(${sql.join(
          SEARCHED.map((f) => sql`instr(lower(coalesce(${sql.raw(`c.${f}`)}, '')), ${lower}) > 0`),
          sql.raw(' OR '),
        )})`;
  const exact = JSON.stringify([lower, toE164(term, ctx.ws.defaultCountry)].filter((v): v is string => !!v));
  return sql`(${substring}
    OR c.phone IN (SELECT value FROM json_each(${exact}))
    OR c.email IN (SELECT value FROM json_each(${exact}))
    OR c.id IN (SELECT contact_id FROM contact_identifiers WHERE workspace_id = ${ctx.ws.id} AND value IN (SELECT value FROM json_each(${exact}))))`;
}

/** GET /v1/contacts: total and page in one batch; each row carries its labels and attendances. */
export async function listContacts(ctx: ServiceContext, query: ListQuery) {
  const paging = parsePaging(query, { limit: 50, cap: 500 });
  const { where, values } = compileFilter(parseFilterParam(query.filter), contactCatalog);
  const sort = parseSort(query.sort, CONTACT_SORTS);
  const conditions = [sql`c.workspace_id = ${ctx.ws.id}`];
  if (where) conditions.push(where);
  const search = searchCondition(ctx, query.search);
  if (search) conditions.push(search);
  const from = sql`FROM ${filterSource(values)} CROSS JOIN contacts c WHERE ${sql.join(conditions, sql.raw(' AND '))}`;
  const dir = sql.raw(sort.descending ? 'DESC' : 'ASC');
  const [counted, rows] = await ctx.db.batch([
    rawAll<{ total: number }>(ctx.db, sql`SELECT count(*) AS total ${from}`),
    rawAll<ContactRow>(ctx.db, 
      sql`SELECT ${contactColumns} ${from} ORDER BY ${sql.raw(`c.${sort.field}`)} ${dir}, c.id ${dir} LIMIT ${paging.limit} OFFSET ${paging.offset}`,
    ),
  ]);
  return envelope(rows.map(serializeContact), counted[0].total, paging);
}
