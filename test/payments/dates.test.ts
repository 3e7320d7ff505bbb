import { describe, expect, it } from 'vitest';
import { cycleDueAt, dateOnly, installmentDueDates, localDate, localParts, parseIsoInZone } from '../../src/platform/calendar';
import { splitCents } from '../../src/modules/payments/record-payment';
import { makeWorkspace } from '../support/harness';
import { createPayment } from './helpers';

describe('payment calendar arithmetic', () => {
  it('steps every interval from the anchor, month ends clamped, across DST', () => {
    const anchor = '2026-01-31T09:00:00.000Z';
    expect([1, 2, 3, 4].map((n) => cycleDueAt(anchor, 'monthly', n, 'UTC'))).toEqual([
      '2026-01-31T09:00:00.000Z',
      '2026-02-28T09:00:00.000Z',
      '2026-03-31T09:00:00.000Z',
      '2026-04-30T09:00:00.000Z',
    ]);
    expect(cycleDueAt(anchor, 'quarterly', 2, 'UTC')).toBe('2026-04-30T09:00:00.000Z');
    expect(cycleDueAt('2024-02-29T00:00:00.000Z', 'yearly', 2, 'UTC')).toBe('2025-02-28T00:00:00.000Z');
    expect(cycleDueAt(anchor, 'weekly', 3, 'UTC')).toBe('2026-02-14T09:00:00.000Z');
    // 00:00 in Berlin stays 00:00 local across the March change (UTC+1 -> UTC+2).
    expect(cycleDueAt('2026-02-28T23:00:00.000Z', 'monthly', 2, 'Europe/Berlin')).toBe('2026-03-31T22:00:00.000Z');
    expect(installmentDueDates('2026-01-30T15:30:00.000Z', 3, 'Asia/Tokyo')).toEqual(['2026-01-31', '2026-02-28', '2026-03-31']);
  });

  it('parses date-only values in the zone and refuses what is not a date', () => {
    expect(parseIsoInZone('2026-06-01', 'Asia/Kolkata')).toBe('2026-05-31T18:30:00.000Z');
    expect(parseIsoInZone('2026-06-01', 'America/Sao_Paulo', true)).toBe('2026-06-02T02:59:59.999Z');
    for (const bad of ['2026-13-01', '2026-02-29', '01/02/2026', '2026-01-01T25:00:00Z', '']) expect(parseIsoInZone(bad, 'UTC'), bad).toBeNull();
  });

  it('splits cents with the remainder on the first parts', () => {
    expect(splitCents(10000, 3)).toEqual([3334, 3333, 3333]);
    expect(splitCents(5, 3)).toEqual([2, 2, 1]);
    expect(splitCents(0, 2)).toEqual([0, 0]);
  });

  it("keeps the recognition a one-time charge's refunds reverse when it is marked pending", async () => {
    const ws = await makeWorkspace();
    const p = await createPayment(ws, { amount: 10 });
    await ws.api('POST', `/v1/payments/${p.id}/refund`, { amount: 4 });
    const res = await ws.api('POST', `/v1/payments/${p.id}/entries/${p.entries[0].id}/mark`, { status: 'pending' });
    expect(res.status).toBe(201);
    expect(res.body.entries[0]).toMatchObject({ status: 'pending', recognized_amount: 10 });
    expect(res.body.arrangement_status).toBe('active');
    const again = await ws.api('POST', `/v1/payments/${p.id}/entries/${p.entries[0].id}/mark`, { status: 'completed' });
    expect(again.body.entries[0]).toMatchObject({ status: 'completed', recognized_amount: 10 });
    expect((await ws.api('POST', `/v1/payments/${p.id}/refund`, {})).body.entries[2].amount).toBe(-6);
  });
});

describe('localDate', () => {
  it('is remembered per second and always equals the reading in the zone, across local midnights', () => {
    // Berlin's summer midnight, New York's, and Monrovia's of 1970 (-00:44:30, an offset with seconds).
    const cases: [string, string][] = [
      ['2026-06-01T22:00:00.000Z', 'Europe/Berlin'],
      ['2026-11-25T05:00:00.000Z', 'America/New_York'],
      ['1970-01-01T00:44:30.000Z', 'Africa/Monrovia'],
    ];
    for (const [midnight, zone] of cases) {
      const at = Date.parse(midnight);
      const dates = new Set<string>();
      for (let ms = at - 3000; ms <= at + 3000; ms += 250) {
        const iso = new Date(ms).toISOString();
        const direct = dateOnly(localParts(ms, zone));
        expect(localDate(iso, zone), `${iso} in ${zone}`).toBe(direct);
        expect(localDate(iso, zone), `${iso} in ${zone}, remembered`).toBe(direct);
        dates.add(direct);
      }
      expect(dates.size).toBe(2);
    }
  });
});
