import type { ServiceContext } from '../../platform/context';
import { readAll } from '../../platform/d1/operation';
import { ContactErrors, contactsForScoring, scoreBand } from '../contacts';
import { type Contribution, largestContributions, scoreContact } from './engine';
import { configOf, contactScoreRow, readConfig, signalsOf } from './store';

/** Contributions a score answer lists. */
export const CONTRIBUTIONS_SHOWN = 20;

/** Why a contact scores what it does (one round trip): its stored score and the contributions that make it up when it was computed. */
export async function contactScore(ctx: ServiceContext, contactId: string) {
  const { db, ws } = ctx;
  const read = await readAll(db, {
    contacts: contactsForScoring(db, ws.id, [contactId]),
    config: readConfig(db, ws.id),
    scored: contactScoreRow(db, ws.id, contactId),
    signals: signalsOf(db, ws.id, [contactId]),
  });
  const [row] = read.contacts;
  if (!row) throw ContactErrors.referenceNotFound();
  const score = row.lead_score;
  const config = configOf(read.config[0]);
  const computedAt = read.scored[0]?.computed_at ?? null;
  let contributions: Contribution[] = [];
  if (ws.leadScoring && config && computedAt) {
    contributions = scoreContact(read.signals, row, config.rules, config.halfLifeDays, Date.parse(computedAt)).contributions;
  }
  return {
    lead_score: score,
    score_band: scoreBand(score),
    computed_at: computedAt,
    contributions: largestContributions(contributions, CONTRIBUTIONS_SHOWN),
  };
}
