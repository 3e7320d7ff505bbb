import type { ServiceContext } from '../../platform/context';
import { runBatch } from '../../platform/d1/db';
import { contactsForScoring, scoreBand, ContactErrors } from '../contacts';
import { type Contribution, largestContributions, scoreContact, type StoredSignal } from './engine';
import { type ConfigRow, configOf, contactScoreRow, readConfig, signalsOf } from './store';

/** Contributions a score answer lists. */
export const CONTRIBUTIONS_SHOWN = 20;

/** Why a contact scores what it does (one round trip): its stored score and the contributions that make it up when it was computed. */
export async function contactScore(ctx: ServiceContext, contactId: string) {
  const { db, ws } = ctx;
  const [rows, configRows, scoredRows, signals] = (await runBatch(db, [
    contactsForScoring(db, ws.id, [contactId]),
    readConfig(db, ws.id),
    contactScoreRow(db, ws.id, contactId),
    signalsOf(db, ws.id, [contactId]),
  ])) as [Record<string, unknown>[], ConfigRow[], { computed_at: string }[], StoredSignal[]];
  const row = rows[0];
  if (!row) throw ContactErrors.referenceNotFound();
  const score = row.lead_score as number | null;
  const config = configOf(configRows[0]);
  const computedAt = scoredRows[0]?.computed_at ?? null;
  let contributions: Contribution[] = [];
  if (ws.leadScoring && config && computedAt) {
    contributions = scoreContact(signals, row, config.rules, config.halfLifeDays, Date.parse(computedAt)).contributions;
  }
  return {
    lead_score: score,
    score_band: scoreBand(score),
    computed_at: computedAt,
    contributions: largestContributions(contributions, CONTRIBUTIONS_SHOWN),
  };
}
