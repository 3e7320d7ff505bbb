import type { ServiceContext } from '../../platform/context';
import type { RowGuard } from '../../platform/d1/row-guard';
import { fromCents } from '../../platform/money';
import { recordPaymentStatements, validateCreate, type PaymentCreateInput } from '../payments';
import type { OrderRow } from './schema';

/** The payment a paid order records: one-time, completed, the full total, `external_reference` `order:<id>`. */
export function orderPaymentStatements(ctx: ServiceContext, o: Pick<OrderRow, 'id' | 'contactId' | 'currency' | 'totalCents'>, guard?: RowGuard) {
  const input: PaymentCreateInput = {
    type: 'one_time',
    amount: fromCents(o.totalCents),
    currency: o.currency,
    status: 'completed',
    external_reference: `order:${o.id}`,
    contact_id: o.contactId,
  };
  return recordPaymentStatements(ctx, { input, plan: validateCreate(ctx, input), product: null, contactId: o.contactId }, guard);
}
