import { sql, type SQL } from 'drizzle-orm';
import { guardOf, uniqueOn } from '../../platform/d1/constraints';
import { guarded } from '../../platform/d1/db';
import { orders, type OrderRow } from './schema';

/** A write guarded on the revision that was read: a change made in between fails the batch on `orders.updated_at` and the caller re-reads. */
export const revisionGuard = (o: OrderRow, now: string, extra?: SQL) => ({
  revision: sql`${orders.revision} + 1`,
  updatedAt: guarded(extra ? sql`${orders.revision} = ${o.revision} AND ${extra}` : sql`${orders.revision} = ${o.revision}`, sql`${now}`),
});
/** The order's row once a write guarded by `revisionGuard` has committed `changes` at `now`. */
export const orderAfterGuardedWrite = (o: OrderRow, changes: Partial<OrderRow>, now: string): OrderRow => ({
  ...o,
  ...changes,
  revision: o.revision + 1,
  updatedAt: now,
});
/** A write lost a race: the order changed since it was read, or a parallel write took its `external_reference` or the payment it links. */
export const orderRacesLostOn = [
  guardOf(orders.updatedAt),
  uniqueOn(orders.workspaceId, orders.externalReference),
  uniqueOn(orders.workspaceId, orders.paymentReference),
];
