import { and, desc, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { SharedErrors } from '../../platform/shared-errors';
import { envelope, parsePaging, searchParam } from '../../platform/list';
import { preparedList } from '../../platform/d1/prepared';
import { isUuid } from '../../platform/validation';
import { titleOrContactSearch } from '../contacts';
import { selectDealsWithContact, serializeDealWithContact, type DealWithContactRow } from './read';
import { deals, DEAL_STATUSES } from './schema';

export type DealListParams = Partial<
  Record<'pipeline_id' | 'stage_id' | 'contact_id' | 'owner_user_id' | 'status' | 'external_reference' | 'search' | 'limit' | 'offset', string>
>;

const search = titleOrContactSearch(deals, deals.workspaceId);

/** Deals with their contact's identity; `search` reads the deals' search index. */
const run = preparedList<
  'pipeline_id' | 'stage_id' | 'contact_id' | 'owner_user_id' | 'status' | 'external_reference' | 'search' | 'search_short',
  DealWithContactRow
>(
  {
    pipeline_id: deals.pipelineId,
    stage_id: deals.stageId,
    contact_id: deals.contactId,
    owner_user_id: deals.ownerUserId,
    status: deals.status,
    external_reference: deals.externalReference,
    ...search.filters,
  },
  (present, where, ws) => {
    const matching = and(search.inWorkspace(present, ws), where);
    return {
      count: (db) => db.select({ total: sql<number>`count(*)` }).from(deals).where(matching),
      page: (db) => selectDealsWithContact(db, matching).orderBy(desc(deals.createdAt), desc(deals.id)),
    };
  },
);

/**
 * Dedicated params only (no generic filter); the total and the page are read in one statement
 * (`preparedList`).
 */
export async function listDeals(ctx: ServiceContext, params: DealListParams) {
  const paging = parsePaging(params, { limit: 25, cap: 100 });
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  for (const name of ['pipeline_id', 'stage_id', 'contact_id', 'owner_user_id'] as const) {
    const value = params[name];
    if (value === undefined || value === '') continue;
    if (!isUuid(value)) throw SharedErrors.invalidUuidParam({ name });
    values[name] = value.toLowerCase();
  }
  if (params.status !== undefined && (DEAL_STATUSES as readonly string[]).includes(params.status)) values.status = params.status;
  if (params.external_reference !== undefined) values.external_reference = params.external_reference;
  const term = searchParam('search', params.search)?.trim();
  if (term) Object.assign(values, search.values(term));
  const { total, rows } = await run(ctx.db, values);
  return envelope(rows.map(serializeDealWithContact), total, paging);
}
