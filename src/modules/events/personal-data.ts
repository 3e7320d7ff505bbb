import { sql } from 'drizzle-orm';
import { rawRun } from '../../platform/d1/raw-query';
import type { PersonalData } from '../../platform/personal-data';
import { eventOutbox } from '../../platform/schema';

/** Earlier events naming an erased contact keep only its id (the erasure's own `contact.deleted` is written after this). */
export const eventPersonalData: PersonalData = {
  erase: (db, w, c) => [
    rawRun(db, sql`UPDATE ${eventOutbox} SET data = json_object('contact_id', ${c}) WHERE workspace_id = ${w} AND instr(data, ${c}) > 0`),
  ],
};
