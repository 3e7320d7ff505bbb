import { sql } from 'drizzle-orm';
import { rawRun } from '../../platform/d1/raw-query';
import { deleteRows, ownRows, type PersonalData, rekeyKeyed } from '../../platform/personal-data';
import { contactScores, scoreSignals } from './schema';

/**
 * A contact's signals follow it into a merge, pending again so that the surviving contact is scored with them;
 * its scoring times go with an erasure; the signals are part of its export.
 */
export const scoringPersonalData: PersonalData = {
  exportKinds: { score_signals: ownRows(scoreSignals, 'occurred_at') },
  rekey: (db, w, from, to) => [
    rawRun(db, sql`UPDATE ${scoreSignals} SET contact_id = ${to}, pending = 1 WHERE workspace_id = ${w} AND contact_id = ${from}`),
    ...rekeyKeyed(db, contactScores, w, from, to),
  ],
  erase: (db, w, c) => [deleteRows(db, scoreSignals, w, c), deleteRows(db, contactScores, w, c)],
};
