import { and, desc, eq, sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { preparedList, testedOnRows } from '../../platform/d1/prepared';
import { envelope, parsePaging } from '../../platform/list';
import { SharedErrors } from '../../platform/shared-errors';
import { isUuid } from '../../platform/validation';
import { serializePaymentRequest } from './read';
import { PAYMENT_REQUEST_STATUSES, paymentRequests, type PaymentRequestRow } from './schema';

export type PaymentRequestListParams = Partial<Record<'status' | 'contact_id' | 'deal_id' | 'limit' | 'offset', string>>;

function uuidParam(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (!isUuid(raw)) throw SharedErrors.invalidUuidParam({ name });
  return raw.toLowerCase();
}

const runList = preparedList<'status' | 'contact_id' | 'deal_id', PaymentRequestRow>(
  // `status` leads `payment_requests_due`, the expiry sweep's index over the shard.
  { status: testedOnRows(paymentRequests.status), contact_id: paymentRequests.contactId, deal_id: paymentRequests.dealId },
  (_, filtered, ws) => {
    const where = and(eq(paymentRequests.workspaceId, ws), filtered);
    return {
      count: (db) => db.select({ total: sql<number>`count(*)` }).from(paymentRequests).where(where),
      page: (db) => db.select().from(paymentRequests).where(where).orderBy(desc(paymentRequests.createdAt), desc(paymentRequests.id)),
    };
  },
);

/** `GET /v1/payment-requests`: newest first; total and page in one statement (`preparedList`). */
export async function listPaymentRequests(ctx: ServiceContext, params: PaymentRequestListParams) {
  const paging = parsePaging(params, { limit: 25, cap: 100 });
  const values: Record<string, unknown> = { ws: ctx.ws.id, limit: paging.limit, offset: paging.offset };
  if (params.status !== undefined && params.status !== '') {
    if (!(PAYMENT_REQUEST_STATUSES as readonly string[]).includes(params.status)) {
      throw SharedErrors.notOneOf({ name: 'status', values: PAYMENT_REQUEST_STATUSES.join(', ') });
    }
    values.status = params.status;
  }
  const contactId = uuidParam('contact_id', params.contact_id);
  const dealId = uuidParam('deal_id', params.deal_id);
  if (contactId) values.contact_id = contactId;
  if (dealId) values.deal_id = dealId;
  const { total, rows } = await runList(ctx.db, values);
  return envelope(rows.map(serializePaymentRequest), total, paging);
}
