import { sql } from 'drizzle-orm';
import { ownRows, rekeyAll, scrubRows, type ContactRecords } from '../contacts';
import { deals } from './schema';

/** Deals follow their contact in a merge; an erasure keeps them for accounting without their note. */
export const dealContactRecords: ContactRecords = {
  exportKinds: { deals: ownRows(deals) },
  rekey: (db, w, from, to) => [rekeyAll(db, deals, w, from, to)],
  erase: (db, w, c) => [scrubRows(db, deals, sql`note = NULL`, w, c)],
};
