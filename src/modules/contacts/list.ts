import { sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { compileFilter, filterWith, INLINE_MAX, type RowSet } from '../../platform/filter';
import { envelopeText, parseFilterParam, parsePaging, parseSort, searchParam, type Paging } from '../../platform/list';
import { toE164 } from '../../platform/phone';
import { clientOf } from '../../platform/d1/db';
import { buildSql, joinBuilt, type BuiltQuery } from '../../platform/d1/prepared';
import { CONTACT_SORTS, contactCatalog } from './catalog';
import { ListCache } from './list-cache';
import { answeredJson } from './read';
import { inSpace, spaceStart } from './search-space';

export type ListQuery = { filter?: string; sort?: string; limit?: string; offset?: string; search?: string };

const SEARCHED = ['name', 'first_name', 'last_name', 'email', 'phone', 'company_name'];

/**
 * Rowids (`rid`) of the workspace's contacts holding the exact E.164 form of the term
 * (or the lower-cased term) as phone or email, now or in their history: index
 * probes only (`kind` pins the identifier look-up to the unique index).
 */
function exactMatches(ctx: ServiceContext, term: string): SQL {
  const exact = JSON.stringify([term.toLowerCase(), toE164(term, ctx.ws.defaultCountry)].filter((v): v is string => !!v));
  return sql`SELECT rowid AS rid FROM contacts WHERE workspace_id = ${ctx.ws.id} AND phone IN (SELECT value FROM json_each(${exact}))
    UNION SELECT rowid FROM contacts WHERE workspace_id = ${ctx.ws.id} AND email IN (SELECT value FROM json_each(${exact}))
    UNION SELECT x.rowid FROM json_each(${exact}) j CROSS JOIN contact_identifiers i CROSS JOIN contacts x
      WHERE i.workspace_id = ${ctx.ws.id} AND i.kind IN ('phone', 'email') AND i.value = j.value AND x.id = i.contact_id`;
}

/**
 * A term's matches among the workspace's contacts: `matches` lists the rowids (`rid`) the trigram
 * index holds in the workspace's range (index entries only, never a contact row), `extra` the exact
 * identifier matches the index does not hold (a phone written otherwise, a former identifier), each
 * probed in the index by its rowid, so the two never overlap and their counts add up.
 */
function termMatches(ctx: ServiceContext, term: string) {
  const match = `"${term.replace(/"/g, '""')}"`;
  const start = spaceStart(ctx.ws.id);
  const matches = sql`SELECT rowid - ${start} AS rid FROM contacts_search WHERE contacts_search MATCH ${match} AND ${inSpace(sql`rowid`, start)}`;
  const extra = sql`SELECT x.rid FROM (${exactMatches(ctx, term)}) x
    WHERE NOT EXISTS (SELECT 1 FROM contacts_search WHERE contacts_search MATCH ${match} AND rowid = ${start} + x.rid)`;
  return { matches, extra };
}

/**
 * A search term's candidates: for 3+ characters, the rowids (`rid`) the query starts from, listed
 * once by the `WITH` entry `matched` (the count, the judgement of their number and the page all
 * read it); for shorter terms, a condition on each row.
 */
type SearchSource = { matched?: SQL; condition?: SQL };

/**
 * Case-insensitive substring over the searched columns, plus exact identifiers.
 * Terms of 3+ characters are a candidate set from the trigram index (rowids),
 * so cost follows the workspace's matches, not the workspace or the shard. Shorter
 * terms (below trigram size) scan the workspace's rows through the covering search index.
 */
function searchSource(ctx: ServiceContext, raw: string | undefined): SearchSource {
  const term = searchParam('search', raw)?.trim();
  if (!term) return {};
  if ([...term].length >= 3) {
    const { matches, extra } = termMatches(ctx, term);
    return { matched: sql`matched AS MATERIALIZED (SELECT rid FROM (${matches}) UNION ALL SELECT rid FROM (${extra}))` };
  }
  const likes = caseVariants(term).flatMap((variant) => {
    const pattern = `%${variant.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    return SEARCHED.map((f) => sql`${sql.raw(`c.${f}`)} LIKE ${pattern} ESCAPE '\\'`);
  });
  return { condition: sql`(${sql.join(likes, sql.raw(' OR '))} OR c.rowid IN (SELECT rid FROM (${exactMatches(ctx, term)})))` };
}

/**
 * LIKE folds only ASCII case, so a short term is spelled in every case of its
 * non-ASCII characters (at most 4 spellings for a 2-character term).
 */
function caseVariants(term: string): string[] {
  let out = [''];
  for (const ch of term) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the class is every character outside ASCII.
    const forms = /[^\x00-\x7f]/.test(ch) ? [...new Set([ch.toLowerCase(), ch.toUpperCase()])] : [ch];
    out = out.flatMap((prefix) => forms.map((f) => prefix + f));
  }
  return out;
}

/** Sorts with an index of their own, `(workspace_id, field)`: a filtered page walks it and stops at the limit. */
const SORT_INDEXES: Partial<Record<string, string>> = {
  created_at: 'contacts_workspace_created',
  updated_at: 'contacts_workspace_updated',
  name: 'contacts_workspace_name',
  first_name: 'contacts_workspace_first_name',
  last_name: 'contacts_workspace_last_name',
  company_name: 'contacts_workspace_company',
  country: 'contacts_workspace_country',
  lead_score: 'contacts_workspace_score',
};

/**
 * Consent indexes continue with the creation time and id: the newest-first page of a filter that is
 * `email_subscribed`/`whatsapp_subscribed` being true (a literal state, so the walk can seek it) walks
 * that range, where the created index would be walked until enough entries hold the state, all of
 * it when they are the oldest.
 */
const NEWEST_FIRST_WITHIN = new Set(['contacts_workspace_email_consent', 'contacts_workspace_wa_consent']);

/** The index a page walks: the sort's own, or the range of the filter's one value when it is ordered by creation within it. */
export function pageWalkIndex(sortField: string, valueIndex: string | undefined): string | undefined {
  if (sortField === 'created_at' && valueIndex && NEWEST_FIRST_WITHIN.has(valueIndex)) return valueIndex;
  return SORT_INDEXES[sortField];
}

/**
 * A page of a term's matches is cheapest one of two ways: with many matches,
 * walking the sort's index and stopping after the page's worth found among
 * them; with few, sorting all of them. The choice is made inside the statement:
 * the other way gets `LIMIT 0`, which SQLite answers without running it.
 * "Many" is over WALK_FACTOR matches per row asked for (at most that many
 * counted).
 */
const WALK_FACTOR = 10;

/** A list request compiled: its statement, and the key its answer is kept under (null: not kept). */
type CompiledList = { paging: Paging; statement: BuiltQuery; cacheKey: string | null };

/**
 * GET /v1/contacts: total and page in one statement. The page is chosen on bare
 * rows first; labels and attendances are then read for its rows only.
 *
 * A filtered or searched list's answer is kept per data generation
 * (./list-cache.ts); the caller stores a computed one after the response with `remember`.
 */
export async function listContacts(ctx: ServiceContext, query: ListQuery) {
  const list = await compileList(ctx, query);
  // Straight to D1: nothing to map, so drizzle would only add its own work.
  const { results } = await clientOf(ctx.db)
    .prepare(list.statement.sql)
    .bind(...list.statement.params)
    .all<ListRow>();
  const [{ generation, cached, counted }, ...rows] = results;
  const total = cached ?? counted ?? 0;
  const page = envelopeText(
    rows.map((r) => r.answer!),
    total,
    list.paging,
  );
  if (!list.cacheKey || cached !== null) return { page };
  const cache = new ListCache(ctx, list.cacheKey);
  return {
    page,
    remember: () =>
      cache.remember(
        generation!,
        total,
        rows.map((r) => r.id!),
      ),
  };
}

/**
 * A row of a list's statement: first its head (`pos` 0: the generation, the stored total or
 * null, the counted total), then the page's contacts in order (id and answer's JSON text).
 */
type ListRow = { id: string | null; answer: string | null; generation: number | null; cached: number | null; counted: number | null };

/**
 * The count and the page want opposite plans. The count reads the filter's values
 * as parameters, so an index on a filtered column serves it (`lifecycle_stage =`,
 * `lead_score >=`). The page walks the sort's index and stops after `limit`
 * matches; with the values visible the planner would rather collect every
 * match through a filter index and sort them all, so the page keeps the values
 * packed and names the sort index. Both are arms of one statement (exported for
 * the tests that read its plan).
 */
export async function compileList(ctx: ServiceContext, query: ListQuery): Promise<CompiledList> {
  const paging = parsePaging(query, { limit: 50, cap: 500 });
  const filter = parseFilterParam(query.filter);
  const page = compileFilter(filter, contactCatalog, ctx.ws.id, { packed: true });
  const counting = page.values.length > INLINE_MAX ? page : compileFilter(filter, contactCatalog, ctx.ws.id, { inline: true });
  const sort = parseSort(query.sort, CONTACT_SORTS);
  const search = searchSource(ctx, query.search);
  const matching = (...conditions: (SQL | undefined)[]) =>
    sql`WHERE ${sql.join([sql`c.workspace_id = ${ctx.ws.id}`, ...conditions.filter((c): c is SQL => !!c)], sql.raw(' AND '))}`;
  // A short search term scans the covering search index instead, for the page as for the count.
  const sortIndex = search.condition ? undefined : pageWalkIndex(sort.field, search.matched ? undefined : page.rows?.index);
  const walkOf = (index: string | undefined) => sql.raw(`contacts c ${index ? `INDEXED BY ${index} ` : ''}CROSS JOIN fp`);
  const walk = walkOf(sortIndex);
  const order = sql.raw(`c.${sort.field} ${sort.descending ? 'DESC' : 'ASC'}, c.id ${sort.descending ? 'DESC' : 'ASC'}`);
  // `skip`: a condition under which the page's own plan is not run (a stored answer holds the page).
  const limitUnless = (skip: SQL | undefined, limit: SQL) => (skip ? sql`CASE WHEN ${skip} THEN 0 ELSE ${limit} END` : limit);
  type Rows = { source: SQL; conditions: (SQL | undefined)[] };
  /** The rows `paging` asks for (`upTo`: the first offset + limit instead, for a page merged from several). */
  const pageRows = ({ source, conditions }: Rows, limit: SQL, upTo = false) =>
    sql`SELECT c.rowid AS page_rid FROM ${source} ${matching(...conditions)} ORDER BY ${order} LIMIT ${limit} OFFSET ${upTo ? 0 : paging.offset}`;
  const wanted = (upTo: boolean) => sql`${upTo ? paging.offset + paging.limit : paging.limit}`;
  /**
   * A page drawn from candidates: `sorted` joins and sorts them all, `walked` walks an index
   * testing each entry. With over WALK_FACTOR candidates per row asked for (`gauge` lists at
   * least them, LIMITed here) the walk stops early; with fewer, sorting is cheaper.
   */
  // `WITH` entries after `fp`: the search's matches, then each page's judgement of its candidates' number.
  const ctes: SQL[] = search.matched ? [search.matched] : [];
  const picked = (gauge: SQL, walked: Rows | undefined, sorted: Rows, upTo = false) => {
    const threshold = WALK_FACTOR * (paging.offset + paging.limit);
    // Judged once for both ways (a CTE read twice), and only if the page is computed.
    const name = sql.raw(`many_${ctes.length}`);
    if (walked) ctes.push(sql`${name} AS MATERIALIZED (SELECT (SELECT count(*) FROM (${gauge} LIMIT ${threshold + 1})) > ${threshold} AS yes)`);
    const many = sql`(SELECT yes FROM ${name})`;
    return (skip?: SQL) => {
      if (!walked) return pageRows(sorted, limitUnless(skip, wanted(upTo)), upTo);
      const walk = pageRows(walked, limitUnless(skip, sql`CASE WHEN ${many} THEN ${wanted(upTo)} ELSE 0 END`), upTo);
      const sort = pageRows(sorted, limitUnless(skip, sql`CASE WHEN ${many} THEN 0 ELSE ${wanted(upTo)} END`), upTo);
      return sql`SELECT * FROM (${walk}) UNION ALL SELECT * FROM (${sort})`;
    };
  };
  /**
   * The page of an `or` of sets: each alternative's first offset + limit rows, each found its own
   * cheapest way (walking an index its members are dense in, or sorting its few members), merged.
   * A walk testing the whole `or` would read the contact row of every entry some alternative needs
   * a column of the index lacks, and find the members of an alternative dense only among old
   * contacts (consent given long ago) only after walking past all newer ones.
   */
  const mergedPage = (alternatives: RowSet[]) => {
    const pages = alternatives.map((alt) => {
      const index = pageWalkIndex(sort.field, alt.index);
      return picked(
        sql`SELECT 1 FROM (${alt.gauge})`,
        index ? { source: walkOf(index), conditions: [alt.probe] } : undefined,
        {
          source: sql`fp CROSS JOIN (${alt.set}) s CROSS JOIN contacts c`,
          conditions: [sql`c.id = s.id`],
        },
        true,
      );
    });
    return (skip?: SQL) => {
      const firsts = sql.join(
        pages.map((rows) => sql`SELECT * FROM (${rows(skip)})`),
        sql.raw(' UNION '),
      );
      return sql`SELECT c.rowid AS page_rid FROM (${firsts}) u CROSS JOIN contacts c WHERE c.rowid = u.page_rid ORDER BY ${order} LIMIT ${paging.limit} OFFSET ${paging.offset}`;
    };
  };

  let counted: SQL;
  let pageRids: (skip?: SQL) => SQL;
  const walked = (skip?: SQL) => pageRows({ source: walk, conditions: [page.where, search.condition] }, limitUnless(skip, sql`${paging.limit}`));
  // A filter that is exactly a row set indexes list (tag holders, custom-field values, column ranges), with no search.
  const rowSet = !search.matched && !search.condition && counting.rows && page.rows ? { counting: counting.rows, page: page.rows } : undefined;
  // A plain list counts one index's entries, and one index range counts as cheaply as a stored answer reads: neither is kept.
  const keep = (Object.keys(filter).length > 0 || !!search.matched || !!search.condition) && !rowSet?.counting.ranged;
  // An `or` of a few single sets is counted and paged one alternative at a time (more would make the statements long;
  // an alternative merging sets itself costs as much to judge as the whole `or` does to walk).
  const split = rowSet?.counting.alternatives;
  const alternatives =
    split && split.length <= MERGED_MAX && !split.some((alt) => alt.merged) ? { counting: split, page: rowSet!.page.alternatives! } : undefined;
  if (search.matched) {
    // The matches drive the count; CROSS JOIN fixes that order. Without a filter, they are the count.
    const fromMatches = sql`fp CROSS JOIN matched s CROSS JOIN contacts c`;
    counted = counting.where
      ? sql`(SELECT count(*) FROM ${fromMatches} ${matching(sql`c.rowid = s.rid`, counting.where)})`
      : sql`(SELECT count(*) FROM matched)`;
    pageRids = picked(
      sql`SELECT 1 FROM matched`,
      sortIndex ? { source: walk, conditions: [sql`c.rowid IN (SELECT rid FROM matched)`, page.where] } : undefined,
      // Each match read by its rowid (NOT INDEXED: no index walk), not joined with the list: a join reads `matched` even
      // when this way gets `LIMIT 0` (a stored answer, or many matches).
      { source: sql`contacts c NOT INDEXED CROSS JOIN fp`, conditions: [sql`c.rowid IN (SELECT rid FROM matched)`, page.where] },
    );
  } else if (alternatives) {
    counted = alternativesCount(alternatives.counting);
    pageRids = mergedPage(alternatives.page);
  } else if (rowSet) {
    // Counted from the set's index entries; the page tests walked entries one by one, or sorts the few members.
    // A set of column ranges is a page's worth of walking the sort index like any tree (and its SQL, each range a
    // subquery, would be planned three times more in the page).
    counted = sql`(SELECT count(*) FROM (${rowSet.counting.set}))`;
    pageRids = rowSet.page.own
      ? walked
      : picked(sql`SELECT 1 FROM (${rowSet.page.gauge})`, sortIndex ? { source: walk, conditions: [rowSet.page.probe] } : undefined, {
          source: sql`fp CROSS JOIN (${rowSet.page.set}) s CROSS JOIN contacts c`,
          conditions: [sql`c.id = s.id`],
        });
  } else {
    counted = sql`(SELECT count(*) FROM fp CROSS JOIN contacts c ${matching(counting.where, search.condition)})`;
    pageRids = walked;
  }
  // One statement, one `fp`: the page's packed values, which a count compiled apart (its values inline) does not read.
  const total = buildSql(counted);
  const pageWith = buildSql(sql.join([filterWith(page.values), ...ctes], sql.raw(', ')));
  const orderText = `c.${sort.field} ${sort.descending ? 'DESC' : 'ASC'}, c.id ${sort.descending ? 'DESC' : 'ASC'}`;
  const pageOf = (rids: BuiltQuery) =>
    joinBuilt(
      `SELECT * FROM (SELECT c.id, ${ANSWER}, NULL, NULL, NULL, row_number() OVER (ORDER BY ${orderText}) FROM (`,
      rids,
      ') p CROSS JOIN contacts c WHERE c.rowid = p.page_rid)',
    );

  // A filtered or searched answer is kept per data generation.
  if (!keep) {
    const head = joinBuilt('SELECT NULL AS id, NULL AS answer, NULL AS generation, NULL AS cached, ', total, ' AS counted, 0 AS pos');
    return { paging, cacheKey: null, statement: joinBuilt(pageWith, ' ', head, ' UNION ALL ', pageOf(buildSql(pageRids())), ' ORDER BY pos') };
  }
  const rids = buildSql(pageRids(ListCache.stored));
  const cache = new ListCache(ctx, await ListCache.keyOf([total, pageWith, rids]));
  return {
    paging,
    cacheKey: cache.key,
    statement: joinBuilt(pageWith, ', ', cache.withClauses(), ' ', cache.head(total), ' UNION ALL ', pageOf(cache.pageRids(rids)), ' ORDER BY pos'),
  };
}

/** The answer's JSON (`answeredJson`) as SQL text: code, built once. */
const ANSWER = buildSql(answeredJson).sql;

/** At most this many alternatives are counted and paged one by one (one compound statement's worth). */
const MERGED_MAX = 5;

/**
 * The size of an `or` of sets from their index entries alone: each alternative counts its
 * members the earlier ones do not list (each earlier list is built once, and only if a later
 * alternative has members to test), so the counts add up, whichever alternative is the large one.
 */
function alternativesCount(alternatives: RowSet[]): SQL {
  const parts = alternatives.map((alt, i) => {
    const earlier = alternatives.slice(0, i).map((before) => sql`s.id NOT IN (SELECT id FROM (${before.set}))`);
    return i === 0
      ? sql`(SELECT count(*) FROM (${alt.set}))`
      : sql`(SELECT count(*) FROM (${alt.set}) s WHERE ${sql.join(earlier, sql.raw(' AND '))})`;
  });
  return sql`(${sql.join(parts, sql.raw(' + '))})`;
}
