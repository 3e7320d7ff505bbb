import { sql } from 'drizzle-orm';
import { rawRun } from '../../platform/d1/raw-query';
import type { PersonalData } from '../../platform/personal-data';
import { emailSends } from './schema';

/** Sends are found by address, not by contact: exported by every address the contact had, kept without address, subject or metadata on erasure. */
export const emailPersonalData: PersonalData = {
  exportKinds: {
    emails: {
      rows: (w, _c, addresses) => sql`SELECT * FROM ${emailSends} WHERE workspace_id = ${w} AND "to" IN (${addresses.emails})`,
      json: ['metadata'],
    },
  },
  erase: (db, w, _c, addresses) => [
    rawRun(
      db,
      sql`UPDATE ${emailSends} SET "to" = '', subject = '', metadata = NULL, clicked_url = NULL WHERE workspace_id = ${w} AND "to" IN (${addresses.emails})`,
    ),
  ],
};
