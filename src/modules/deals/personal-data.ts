import { sql } from 'drizzle-orm';
import { ownRows, rekeyAll, scrubRows, type PersonalData } from '../../platform/personal-data';
import { deals } from './schema';

/** Deals follow their contact in a merge; an erasure keeps them for accounting without their note. */
export const dealPersonalData: PersonalData = {
  exportKinds: { deals: ownRows(deals) },
  rekey: (db, w, from, to) => [rekeyAll(db, deals, w, from, to)],
  erase: (db, w, c) => [scrubRows(db, deals, sql`note = NULL`, w, c)],
};
