import { sql } from 'drizzle-orm';
import { rawRun } from '../../platform/d1/raw-query';
import type { PersonalData } from '../../platform/personal-data';
import { emailSuppressions } from './schema';

/** An erased person's addresses leave the workspace's suppression list (the platform list keeps what the provider reported). */
export const suppressionPersonalData: PersonalData = {
  erase: (db, w, _c, addresses) => [rawRun(db, sql`DELETE FROM ${emailSuppressions} WHERE workspace_id = ${w} AND email IN (${addresses.emails})`)],
};
