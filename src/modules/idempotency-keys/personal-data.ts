import { sql } from 'drizzle-orm';
import { rawRun } from '../../platform/d1/raw-query';
import type { PersonalData } from '../../platform/personal-data';
import { idempotencyKeys } from './schema';

/** Stored answers naming an erased contact are forgotten: a replay must not bring its data back. */
export const idempotencyKeyPersonalData: PersonalData = {
  erase: (db, w, c) => [rawRun(db, sql`DELETE FROM ${idempotencyKeys} WHERE workspace_id = ${w} AND instr(response_body, ${c}) > 0`)],
};
