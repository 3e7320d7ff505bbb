import { desc, eq, sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { badRequest } from '../../platform/errors';
import { containsInAny, envelope, parsePaging, searchParam } from '../../platform/list';
import { preparedList } from '../../platform/prepared';
import { isUuid } from '../../platform/validation';
import { countWithContactIdentity } from '../contacts/identity-join';
import { contacts } from '../contacts/schema';
import { selectDealsWithContact, serializeDealWithContact, type DealWithContactRow } from './read';
import { deals, DEAL_STATUSES } from './schema';

export type DealListParams = Partial<
  Record<'pipeline_id' | 'stage_id' | 'contact_id' | 'owner_user_id' | 'status' | 'external_reference' | 'search' | 'limit' | 'offset', string>
>;

/** Each filter's condition, its value a placeholder of the filter's name. */
const CONDITIONS = {
  pipeline_id: () => eq(deals.pipelineId, sql.placeholder('pipeline_id')),
  stage_id: () => eq(deals.stageId, sql.placeholder('stage_id')),
  contact_id: () => eq(deals.contactId, sql.placeholder('contact_id')),
  owner_user_id: () => eq(deals.ownerUserId, sql.placeholder('owner_user_id')),
  status: () => eq(deals.status, sql.placeholder('status')),
  external_reference: () => eq(deals.externalReference, sql.placeholder('external_reference')),
  search: () => containsInAny(sql.placeholder('search'), [deals.title, contacts.name, contacts.phone, contacts.email]),
} satisfies Record<string, () => SQL>;

/** Deals with their contact's identity. */
const run = preparedList<keyof typeof CONDITIONS, DealWithContactRow>(CONDITIONS, (filters, where) => ({
  count: (db) => countWithContactIdentity(db, deals, deals, sql.placeholder('ws'), where, filters.includes('search')),
  page: (db) =>
    selectDealsWithContact(db, sql.placeholder('ws'), where).orderBy(desc(deals.createdAt), desc(deals.id)).limit(sql.placeholder('limit')).offset(sql.placeholder('offset')),
}));

/** Dedicated params only (no generic filter); the total and the page are read in one batch. */
export async function listDeals(ctx: ServiceContext, params: DealListParams) {
  const paging = parsePaging(params, { limit: 25, cap: 100 });
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  for (const name of ['pipeline_id', 'stage_id', 'contact_id', 'owner_user_id'] as const) {
    const value = params[name];
    if (value === undefined || value === '') continue;
    if (!isUuid(value)) throw badRequest(`Invalid ${name}: must be a UUID`);
    values[name] = value.toLowerCase();
  }
  if (params.status !== undefined && (DEAL_STATUSES as readonly string[]).includes(params.status)) values.status = params.status;
  if (params.external_reference !== undefined) values.external_reference = params.external_reference;
  const search = searchParam('search', params.search)?.trim();
  if (search) values.search = search;
  const { total, rows } = await run(ctx.db, values);
  return envelope(rows.map(serializeDealWithContact), total, paging);
}
