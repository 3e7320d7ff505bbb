import { desc, eq, sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { containsInAny, envelope, parsePaging, searchParam } from '../../platform/list';
import { preparedList } from '../../platform/prepared';
import { countWithContactIdentity } from '../contacts/identity-join';
import { contacts } from '../contacts/schema';
import { selectPaymentsWithContact, serializeListRow, type PaymentWithContactRow } from './read';
import { ARRANGEMENT_STATUSES, PAYMENT_TYPES, payments } from './schema';

export type PaymentListParams = Partial<Record<'type' | 'status' | 'search' | 'limit' | 'offset', string>>;

/** Each filter's condition, its value a placeholder of the filter's name. */
const CONDITIONS = {
  type: () => eq(payments.type, sql.placeholder('type')),
  status: () => eq(payments.arrangementStatus, sql.placeholder('status')),
  search: () => containsInAny(sql.placeholder('search'), [payments.title, contacts.name, contacts.phone, contacts.email]),
} satisfies Record<string, () => SQL>;

/** Header rows with the contact join (no entries). */
const run = preparedList<keyof typeof CONDITIONS, PaymentWithContactRow>(CONDITIONS, (filters, where) => ({
  count: (db) => countWithContactIdentity(db, payments, payments, sql.placeholder('ws'), where, filters.includes('search')),
  page: (db) =>
    selectPaymentsWithContact(db, sql.placeholder('ws'), where).orderBy(desc(payments.purchaseDate), desc(payments.id)).limit(sql.placeholder('limit')).offset(sql.placeholder('offset')),
}));

/** Newest purchase first; total and page in one batch. */
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
