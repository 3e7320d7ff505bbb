import { sql } from 'drizzle-orm';
import { deleteRows, rekeyAll, rekeyKeyed, type PersonalData } from '../../platform/personal-data';
import { newsletterDeliveries, newsletterSubscriptions } from './schema';

/** Subscriptions and deliveries of a contact: moved in a merge, exported without unsubscribe tokens, gone on erasure. */
export const newsletterPersonalData: PersonalData = {
  exportKinds: {
    newsletter_subscriptions: {
      rows: (w, c) => sql`SELECT id, workspace_id, newsletter_id, contact_id, status, source, subscribed_at, unsubscribed_at, created_at, updated_at
        FROM ${newsletterSubscriptions} WHERE workspace_id = ${w} AND contact_id = ${c}`,
    },
  },
  rekey: (db, w, from, to) => [...rekeyKeyed(db, newsletterSubscriptions, w, from, to), rekeyAll(db, newsletterDeliveries, w, from, to)],
  erase: (db, w, c) => [deleteRows(db, newsletterSubscriptions, w, c), deleteRows(db, newsletterDeliveries, w, c)],
};
