import { and, desc, eq, sql, type SQL } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { containsInAny, envelope, parsePaging, searchParam } from '../../platform/list';
import { perFilterSet, prepared } from '../../platform/prepared';
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
type Filter = keyof typeof CONDITIONS;

/** The total and the page (header rows with the contact join, no entries) for one set of filters. */
const listFor = perFilterSet((filters: Filter[]) => {
  const where = filters.length ? and(...filters.map((f) => CONDITIONS[f]())) : undefined;
  const ws = sql.placeholder('ws');
  return {
    count: prepared((db) => countWithContactIdentity(db, payments, payments, ws, where, filters.includes('search'))),
    page: prepared((db) =>
      selectPaymentsWithContact(db, ws, where).orderBy(desc(payments.purchaseDate), desc(payments.id)).limit(sql.placeholder('limit')).offset(sql.placeholder('offset')),
    ),
  };
});

/** Newest purchase first; total and page in one batch. */
export async function listPayments(ctx: ServiceContext, params: PaymentListParams) {
  const paging = parsePaging(params, { limit: 25, cap: 100 });
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  if (params.type !== undefined && (PAYMENT_TYPES as readonly string[]).includes(params.type)) values.type = params.type;
  if (params.status !== undefined && (ARRANGEMENT_STATUSES as readonly string[]).includes(params.status)) values.status = params.status;
  const search = searchParam('search', params.search)?.trim();
  if (search) values.search = search;
  const list = listFor((Object.keys(CONDITIONS) as Filter[]).filter((f) => f in values));
  const [[{ total }], rows] = (await ctx.db.batch([list.count.in(ctx.db, values), list.page.in(ctx.db, values)])) as [{ total: number }[], PaymentWithContactRow[]];
  return envelope(rows.map(serializeListRow), total, paging);
}
