import { desc } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { envelope, parsePaging, searchParam } from '../../platform/list';
import { preparedList } from '../../platform/prepared';
import { countWithContactIdentity, titleOrContactSearch } from '../contacts/identity-join';
import { selectPaymentsWithContact, serializeListRow, type PaymentWithContactRow } from './read';
import { ARRANGEMENT_STATUSES, PAYMENT_TYPES, payments } from './schema';

export type PaymentListParams = Partial<Record<'type' | 'status' | 'search' | 'limit' | 'offset', string>>;

/** Header rows (no entries) with their contact's identity; `search` also reads the contact's fields. */
const run = preparedList<'type' | 'status' | 'search', PaymentWithContactRow>(
  {
    type: payments.type,
    status: payments.arrangementStatus,
    search: titleOrContactSearch(payments.title),
  },
  (present, where, ws) => ({
    count: (db) => countWithContactIdentity(db, payments, payments, ws, where, present.includes('search')),
    page: (db) => selectPaymentsWithContact(db, ws, where).orderBy(desc(payments.purchaseDate), desc(payments.id)),
  }),
);

/** Newest purchase first; total and page in one statement (`preparedList`). */
export async function listPayments(ctx: ServiceContext, params: PaymentListParams) {
  const paging = parsePaging(params, { limit: 25, cap: 100 });
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  if (params.type !== undefined && (PAYMENT_TYPES as readonly string[]).includes(params.type)) values.type = params.type;
  if (params.status !== undefined && (ARRANGEMENT_STATUSES as readonly string[]).includes(params.status)) values.status = params.status;
  const search = searchParam('search', params.search)?.trim();
  if (search) values.search = search;
  const { total, rows } = await run(ctx.db, values);
  return envelope(rows.map(serializeListRow), total, paging);
}
