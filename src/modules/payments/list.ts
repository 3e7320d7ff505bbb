import { and, desc, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { envelope, parsePaging, searchParam } from '../../platform/list';
import { preparedList } from '../../platform/d1/prepared';
import { titleOrContactSearch } from '../contacts';
import { selectPaymentsWithContact, serializeListRow, type PaymentWithContactRow } from './read';
import { ARRANGEMENT_STATUSES, PAYMENT_TYPES, payments } from './schema';

export type PaymentListParams = Partial<Record<'type' | 'status' | 'search' | 'limit' | 'offset', string>>;

const search = titleOrContactSearch(payments, payments.workspaceId);

/** Header rows (no entries) with their contact's identity; `search` reads the payments' search index. */
const run = preparedList<'type' | 'status' | 'search' | 'search_short', PaymentWithContactRow>(
  { type: payments.type, status: payments.arrangementStatus, ...search.filters },
  (present, where, ws) => {
    const matching = and(search.inWorkspace(present, ws), where);
    return {
      count: (db) => db.select({ total: sql<number>`count(*)` }).from(payments).where(matching),
      page: (db) => selectPaymentsWithContact(db, matching).orderBy(desc(payments.purchaseDate), desc(payments.id)),
    };
  },
);

/** Newest purchase first; total and page in one statement (`preparedList`). */
export async function listPayments(ctx: ServiceContext, params: PaymentListParams) {
  const paging = parsePaging(params, { limit: 25, cap: 100 });
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  if (params.type !== undefined && (PAYMENT_TYPES as readonly string[]).includes(params.type)) values.type = params.type;
  if (params.status !== undefined && (ARRANGEMENT_STATUSES as readonly string[]).includes(params.status)) values.status = params.status;
  const term = searchParam('search', params.search)?.trim();
  if (term) Object.assign(values, search.values(term));
  const { total, rows } = await run(ctx.db, values);
  return envelope(rows.map(serializeListRow), total, paging);
}
