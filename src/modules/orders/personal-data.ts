import { sql } from 'drizzle-orm';
import { ownRows, rekeyAll, scrubRows, type PersonalData } from '../../platform/personal-data';
import { orderItems, orderRefunds, orders } from './schema';

/** Orders, their lines and refunds follow their contact in a merge; an erasure keeps them for accounting without notes, metadata or refund reasons. */
export const orderPersonalData: PersonalData = {
  exportKinds: {
    orders: ownRows(orders, 'created_at', ['coupon_codes', 'metadata']),
    order_items: ownRows(orderItems),
    order_refunds: ownRows(orderRefunds),
  },
  rekey: (db, w, from, to) => [orders, orderItems, orderRefunds].map((table) => rekeyAll(db, table, w, from, to)),
  erase: (db, w, c) => [scrubRows(db, orders, sql`note = NULL, metadata = NULL`, w, c), scrubRows(db, orderRefunds, sql`reason = NULL`, w, c)],
};
