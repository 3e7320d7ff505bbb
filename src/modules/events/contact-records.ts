import { sql } from 'drizzle-orm';
import { rawRun } from '../../platform/d1/raw-query';
import { type ContactRecords } from '../contacts';
import { eventOutbox } from './schema';

/** Earlier events naming an erased contact keep only its id (the erasure's own `contact.deleted` is written after this). */
export const eventContactRecords: ContactRecords = {
  erase: (db, w, c) => [rawRun(db, sql`UPDATE ${eventOutbox} SET data = json_object('contact_id', ${c}) WHERE workspace_id = ${w} AND instr(data, ${c}) > 0`)],
};
