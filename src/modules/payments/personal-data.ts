import { sql } from 'drizzle-orm';
import { ownRows, rekeyAll, scrubRows, type PersonalData } from '../../platform/personal-data';
import { paymentEntries, payments } from './schema';

/** Payments and their ledger follow their contact in a merge; an erasure keeps amounts and dates for accounting, without notes, metadata or documents. */
export const paymentPersonalData: PersonalData = {
  exportKinds: {
    payments: ownRows(payments, 'created_at', ['metadata']),
    payment_entries: ownRows(paymentEntries, 'created_at', ['credit_document']),
  },
  rekey: (db, w, from, to) => [rekeyAll(db, payments, w, from, to), rekeyAll(db, paymentEntries, w, from, to)],
  erase: (db, w, c) => [
    scrubRows(db, payments, sql`note = NULL, metadata = NULL`, w, c),
    scrubRows(db, paymentEntries, sql`note = NULL, credit_document = NULL`, w, c),
  ],
};
