import { describe, expect, it } from 'vitest';
import { DAY_MS, decayFactor, largestContributions, scoreContact } from '../../src/modules/scoring/engine';
import type { Rule } from '../../src/modules/scoring/rules';

/** The engine takes its clock as an argument: each case sets "now" by hand, no wall time involved. */
const NOW = Date.parse('2030-06-01T00:00:00Z');
const daysAgo = (days: number) => new Date(NOW - days * DAY_MS).toISOString();
const signal = (name: string, days: number, id = crypto.randomUUID()) => ({ id, signal: name, occurred_at: daysAgo(days) });

describe('decay', () => {
  it('halves a signal every half-life and keeps it whole without one', () => {
    expect(decayFactor(daysAgo(0), 30, NOW)).toBe(1);
    expect(decayFactor(daysAgo(30), 30, NOW)).toBeCloseTo(0.5, 12);
    expect(decayFactor(daysAgo(60), 30, NOW)).toBeCloseTo(0.25, 12);
    expect(decayFactor(daysAgo(15), 30, NOW)).toBeCloseTo(Math.SQRT1_2, 12);
    expect(decayFactor(daysAgo(400), null, NOW)).toBe(1);
    // A time ahead of the clock counts as now, never as more than its points.
    expect(decayFactor(daysAgo(-3), 30, NOW)).toBe(1);
  });

  it('sums decayed points, rounds and clamps to 0..100', () => {
    const rules: Rule[] = [
      { signal: 'email.clicked', points: 10 },
      { signal: 'deal.lost', points: -30 },
    ];
    // 10 + 5 (one half-life) + 2.5 (two) = 17.5 -> 18
    const clicks = [signal('email.clicked', 0), signal('email.clicked', 7), signal('email.clicked', 14)];
    expect(scoreContact(clicks, null, rules, 7, NOW).score).toBe(18);
    expect(scoreContact([...clicks, signal('deal.lost', 0)], null, rules, 7, NOW).score).toBe(0);
    const many = Array.from({ length: 20 }, () => signal('email.clicked', 0));
    expect(scoreContact(many, null, rules, 7, NOW).score).toBe(100);
  });

  it('marks signals decayed past counting as spent, and keeps signals no rule weighs', () => {
    const old = signal('email.clicked', 7 * 21, 'old');
    const unweighed = signal('form.submitted', 0, 'unweighed');
    const out = scoreContact([old, unweighed, signal('email.clicked', 0)], null, [{ signal: 'email.clicked', points: 10 }], 7, NOW);
    expect(out.spent).toEqual(['old']);
    expect(out.score).toBe(10);
    expect(out.contributions).toEqual([{ signal: 'email.clicked', points: 10, occurred_at: daysAgo(0) }]);
  });
});

describe('field rules', () => {
  const rules: Rule[] = [
    { field: 'lifecycle_stage', equals: 'customer', points: 30 },
    { field: 'custom_fields.plan', equals: 'enterprise', points: 25 },
    { field: 'custom_fields.seats', equals: 50, points: 5 },
    { field: 'custom_fields.trial', equals: true, points: -10 },
  ];

  it('add their points when the contact holds the value exactly', () => {
    const row = { lifecycle_stage: 'customer', custom_fields: JSON.stringify({ plan: 'enterprise', seats: 50, trial: false }) };
    const out = scoreContact([], row, rules, 30, NOW);
    expect(out.score).toBe(60);
    expect(out.contributions.map((c) => ('field' in c ? c.field : c.signal))).toEqual([
      'lifecycle_stage',
      'custom_fields.plan',
      'custom_fields.seats',
    ]);
  });

  it('do not match another type, another case or a missing key', () => {
    const row = { lifecycle_stage: 'Customer', custom_fields: JSON.stringify({ seats: '50', trial: true }) };
    const out = scoreContact([], row, rules, 30, NOW);
    expect(out.score).toBe(0);
    expect(out.contributions).toEqual([{ field: 'custom_fields.trial', equals: true, points: -10 }]);
  });
});

describe('contributions', () => {
  it('lists the largest by absolute points, in hundredths', () => {
    const list = largestContributions(
      [
        { signal: 'a', points: 1.23456, occurred_at: 'x' },
        { signal: 'b', points: -40, occurred_at: 'x' },
        { field: 'c', equals: 'v', points: 12 },
      ],
      2,
    );
    expect(list).toEqual([
      { signal: 'b', points: -40, occurred_at: 'x' },
      { field: 'c', equals: 'v', points: 12 },
    ]);
    expect(largestContributions([{ signal: 'a', points: 1.23456, occurred_at: 'x' }], 20)[0].points).toBe(1.23);
  });
});
