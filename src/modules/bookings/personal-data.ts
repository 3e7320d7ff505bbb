import { sql } from 'drizzle-orm';
import { ownRows, rekeyAll, scrubRows, type PersonalData } from '../../platform/personal-data';
import { bookings } from './schema';

/** Bookings follow their contact in a merge; an erasure keeps times and hosts without the invitee's name, addresses or notes. */
export const bookingPersonalData: PersonalData = {
  exportKinds: { bookings: ownRows(bookings, 'created_at', ['host_user_ids']) },
  rekey: (db, w, from, to) => [rekeyAll(db, bookings, w, from, to)],
  erase: (db, w, c) => [
    scrubRows(db, bookings, sql`invitee_name = '', invitee_email = '', invitee_phone = NULL, notes = NULL, cancellation_reason = NULL`, w, c),
  ],
};
