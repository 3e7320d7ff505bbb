import { sql } from 'drizzle-orm';
import { rekeyAll, scrubRows, type PersonalData } from '../../platform/personal-data';
import { paymentRequests } from './schema';

/** Pay-links follow their contact in a merge; the export leaves out the link's token; an erasure keeps them for accounting without their document. */
export const paymentRequestPersonalData: PersonalData = {
  exportKinds: {
    payment_requests: {
      rows: (
        w,
        c,
      ) => sql`SELECT id, workspace_id, contact_id, deal_id, provider, status, amount_cents, currency, title, vat_mode, vat_rate, test_mode, pay_url, contact_payment_id,
          provider_session_id, provider_payment_ref, document, expires_at, paid_at, cancelled_at, created_at, updated_at
        FROM ${paymentRequests} WHERE workspace_id = ${w} AND contact_id = ${c}`,
      json: ['document'],
    },
  },
  rekey: (db, w, from, to) => [rekeyAll(db, paymentRequests, w, from, to)],
  erase: (db, w, c) => [scrubRows(db, paymentRequests, sql`document = NULL`, w, c)],
};
