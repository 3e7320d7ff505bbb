import { sql } from 'drizzle-orm';
import { rawRun } from '../../platform/d1/raw-query';
import type { PersonalData } from '../../platform/personal-data';
import { sandboxOutbox } from './schema';

/** Sandbox messages sent to an erased person's addresses go with it. */
export const sandboxOutboxPersonalData: PersonalData = {
  erase: (db, w, _c, addresses) => [
    rawRun(db, sql`DELETE FROM ${sandboxOutbox} WHERE workspace_id = ${w} AND ("to" IN (${addresses.emails}) OR "to" IN (${addresses.phones}))`),
  ],
};
