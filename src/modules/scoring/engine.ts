import { CONTACT_CHANGED } from '../../platform/signals';
import { fieldValue, isSignalRule, type Rule } from './rules';

export const DAY_MS = 86_400_000;
/** Past this many half-lives a signal keeps less than a millionth of its points (2^-20): its row is pruned. */
export const SPENT_HALF_LIVES = 20;

export type StoredSignal = { id: string; signal: string; occurred_at: string };
export type Contribution =
  | { signal: string; points: number; occurred_at: string }
  | { field: string; equals: string | number | boolean; points: number };
export type Scored = { score: number; contributions: Contribution[]; spent: string[] };

/** How much of its points a signal keeps at `now`: `0.5 ^ (age_days / half_life_days)`; 1 without decay (a future time counts as now). */
export function decayFactor(occurredAt: string, halfLifeDays: number | null, now: number): number {
  if (halfLifeDays === null) return 1;
  const ageDays = Math.max(0, (now - Date.parse(occurredAt)) / DAY_MS);
  return 0.5 ** (ageDays / halfLifeDays);
}

/**
 * A contact's score at `now`: its signals' points, each decayed, plus the field rules its row matches, rounded to an
 * integer and clamped to 0..100. `spent` lists the signals decayed past counting, for pruning; a signal without a rule
 * counts nothing but is kept (a later rule may weigh it).
 */
export function scoreContact(
  signals: readonly StoredSignal[],
  row: Record<string, unknown> | null,
  rules: readonly Rule[],
  halfLifeDays: number | null,
  now: number,
): Scored {
  const points = new Map<string, number>();
  for (const rule of rules) if (isSignalRule(rule)) points.set(rule.signal, rule.points);
  const contributions: Contribution[] = [];
  const spent: string[] = [];
  for (const s of signals) {
    if (s.signal === CONTACT_CHANGED) {
      spent.push(s.id);
      continue;
    }
    const factor = decayFactor(s.occurred_at, halfLifeDays, now);
    if (factor < 0.5 ** SPENT_HALF_LIVES) {
      spent.push(s.id);
      continue;
    }
    const weight = points.get(s.signal);
    if (weight !== undefined && weight !== 0) contributions.push({ signal: s.signal, points: weight * factor, occurred_at: s.occurred_at });
  }
  if (row) {
    for (const rule of rules) {
      if (!isSignalRule(rule) && rule.points !== 0 && fieldValue(row, rule.field) === rule.equals) {
        contributions.push({ field: rule.field, equals: rule.equals, points: rule.points });
      }
    }
  }
  const raw = contributions.reduce((sum, c) => sum + c.points, 0);
  return { score: Math.min(100, Math.max(0, Math.round(raw))), contributions, spent };
}

/** The `limit` contributions that weigh most either way, each rounded to hundredths of a point. */
export const largestContributions = (contributions: readonly Contribution[], limit: number): Contribution[] =>
  [...contributions]
    .sort((a, b) => Math.abs(b.points) - Math.abs(a.points))
    .slice(0, limit)
    .map((c) => ({ ...c, points: Math.round(c.points * 100) / 100 }));
