import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemCount, lineTotalCents, orderTotals } from '../../src/modules/orders/money';
import { makeWorkspace } from '../support/harness';
import { freshPhone } from './helpers';

/*
 * The reference: every input generated as an exact integer ratio, computed in
 * BigInt with explicit half-up rounding. quantity = q / 1000, unit price =
 * p cents, discount = d / 100 percent.
 */
const half = (n: bigint, d: bigint) => (n * 2n + d) / (2n * d); // floor(n/d + 1/2) for n, d >= 0
const refLine = (q: number, p: number, d: number | null) => Number(half(BigInt(q) * BigInt(p) * (10000n - BigInt(d ?? 0)), 1000n * 10000n));
const refCount = (qs: number[]) =>
  Number(
    half(
      qs.reduce((a, q) => a + BigInt(q), 0n),
      1000n,
    ),
  );

const line = fc.record({
  q: fc.integer({ min: 1, max: 5_000_000 }),
  p: fc.integer({ min: 0, max: 10_000_000 }),
  d: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
});
const cart = fc.record({
  lines: fc.array(line, { maxLength: 30 }),
  discount: fc.integer({ min: 0, max: 50_000_000 }),
  shipping: fc.integer({ min: 0, max: 1_000_000 }),
  tax: fc.integer({ min: 0, max: 1_000_000 }),
});

type Cart = { lines: { q: number; p: number; d: number | null }[]; discount: number; shipping: number; tax: number };

function reference(c: Cart) {
  const lines = c.lines.map((l) => refLine(l.q, l.p, l.d));
  const subtotal = lines.reduce((a, b) => a + b, 0);
  return { lines, subtotal, total: Math.max(0, subtotal - c.discount + c.shipping + c.tax), itemCount: refCount(c.lines.map((l) => l.q)) };
}

describe('order money math', () => {
  it('matches the exact reference over random carts (half-up at the cent, decimal quantities)', () => {
    fc.assert(
      fc.property(cart, (c) => {
        const ref = reference(c);
        const lines = c.lines.map((l) => lineTotalCents(l.q / 1000, l.p, l.d === null ? null : l.d / 100));
        expect(lines).toEqual(ref.lines);
        expect(orderTotals(lines, c.discount, c.shipping, c.tax)).toEqual({ subtotalCents: ref.subtotal, totalCents: ref.total });
        expect(itemCount(c.lines.map((l) => l.q / 1000))).toBe(ref.itemCount);
      }),
      { numRuns: 2000 },
    );
  });

  it('rounds the binary-float traps half-up', () => {
    expect(lineTotalCents(1, 1, 50)).toBe(1); // 0.5 cent -> 1
    expect(lineTotalCents(0.5, 1, null)).toBe(1);
    expect(lineTotalCents(1.005, 100, null)).toBe(101); // 1.005 is not 1.00499...
    expect(lineTotalCents(3, 33, 33.3333)).toBe(66); // 99 * 0.666667 = 66.000033
    expect(lineTotalCents(0.1, 15, null)).toBe(2); // 1.5 cents
    expect(lineTotalCents(1e-7, 100, null)).toBe(0);
    expect(itemCount([0.5, 1, 1])).toBe(3);
    expect(itemCount([0.49])).toBe(0);
    expect(itemCount([])).toBe(0);
  });

  it('the API answers the reference totals for random carts', async () => {
    const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 } });
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          lines: fc.array(
            fc.record({
              q: fc.integer({ min: 1, max: 20_000 }),
              p: fc.integer({ min: 0, max: 1_000_000 }),
              d: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
            }),
            { minLength: 1, maxLength: 12 },
          ),
          discount: fc.integer({ min: 0, max: 5_000_000 }),
          shipping: fc.integer({ min: 0, max: 100_000 }),
          tax: fc.integer({ min: 0, max: 100_000 }),
        }),
        async (c) => {
          const ref = reference(c);
          const res = await ws.api('POST', '/v1/orders', {
            phone: freshPhone(),
            items: c.lines.map((l, i) => ({
              title: `L${i}`,
              quantity: l.q / 1000,
              unit_price: l.p / 100,
              ...(l.d === null ? {} : { discount_percent: l.d / 100 }),
            })),
            discount_total: c.discount / 100,
            shipping_total: c.shipping / 100,
            tax_total: c.tax / 100,
          });
          expect(res.status, JSON.stringify(res.body)).toBe(201);
          expect(res.body.items.map((i: any) => Math.round(i.line_total * 100))).toEqual(ref.lines);
          expect(Math.round(res.body.subtotal * 100)).toBe(ref.subtotal);
          expect(Math.round(res.body.total * 100)).toBe(ref.total);
          expect(res.body.item_count).toBe(ref.itemCount);
          expect(res.body.first_item_name).toBe('L0');
        },
      ),
      { numRuns: 40 },
    );
  });
});
