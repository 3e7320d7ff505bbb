import { env } from 'cloudflare:workers';
import { sql, type SQL } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { dbFor } from '../../src/platform/d1/db';
import { ApiError } from '../../src/platform/errors';
import { FRAMEWORK_SURFACE } from '../../src/platform/error-surfaces';
import { compileFilter, FilterBuilder, filterWith, INLINE_MAX, type FilterCatalog } from '../../src/platform/filter';
import { uuidv7 } from '../../src/platform/ids';
import { parseFilterParam, parsePaging, parseSort } from '../../src/platform/list';
import { fromCents, hasAtMostTwoDecimals, round2, toCents } from '../../src/platform/money';
import { toE164 } from '../../src/platform/phone';
import { isValidTimeZone } from '../../src/platform/timezones';

const messageOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, message: err.bodyOn(FRAMEWORK_SURFACE).message };
    throw err;
  }
  throw new Error('expected a 4xx');
};

describe('money', () => {
  it('rounds half up at the second decimal on the decimal text', () => {
    expect(toCents(1.005)).toBe(101);
    expect(toCents(2.675)).toBe(268);
    expect(toCents(10)).toBe(1000);
    expect(toCents(0.125)).toBe(13);
    expect(toCents(-1.005)).toBe(-101);
    expect(toCents(9999999999)).toBe(999999999900);
    expect(round2(33.333)).toBe(33.33);
    expect(fromCents(3334)).toBe(33.34);
    expect(hasAtMostTwoDecimals(17.25)).toBe(true);
    expect(hasAtMostTwoDecimals(17.255)).toBe(false);
  });
});

describe('ids', () => {
  it('makes time-ordered UUIDv7s', () => {
    const a = uuidv7(1_700_000_000_000);
    const b = uuidv7(1_700_000_000_001);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a < b).toBe(true);
    // The first 48 bits are the milliseconds, big-endian.
    expect(uuidv7(0x0123_4567_89ab).slice(0, 15)).toBe('01234567-89ab-7');
    expect(uuidv7(1_700_000_000_000).slice(0, 13)).toBe('018bcfe5-6800');
    expect(new Set(Array.from({ length: 1000 }, () => uuidv7())).size).toBe(1000);
  });
});

describe('phone and time zones', () => {
  it('normalizes to E.164 with the default country for local numbers', () => {
    expect(toE164('(415) 555-2671', 'US')).toBe('+14155552671');
    expect(toE164('030 1234567', 'DE')).toBe('+49301234567');
    expect(toE164('+44 20 7946 0958', 'US')).toBe('+442079460958');
    expect(toE164('12', 'US')).toBeNull();
    expect(toE164('hello', 'US')).toBeNull();
  });

  it('accepts IANA zones only', () => {
    expect(isValidTimeZone('Europe/Berlin')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
  });
});

describe('list conventions', () => {
  it('parses paging with defaults, clamping and the exact 400 messages', () => {
    expect(parsePaging({}, { limit: 50, cap: 500 })).toEqual({ limit: 50, offset: 0 });
    expect(parsePaging({ limit: '', offset: '' }, { limit: 50, cap: 500 })).toEqual({ limit: 50, offset: 0 });
    expect(parsePaging({ limit: '0', offset: '10' }, { limit: 50, cap: 500 })).toEqual({ limit: 0, offset: 10 });
    expect(parsePaging({ limit: '9000' }, { limit: 50, cap: 500 })).toEqual({ limit: 500, offset: 0 });
    expect(messageOf(() => parsePaging({ limit: '-1' }, { limit: 50, cap: 500 }))).toEqual({
      status: 400,
      message: 'Invalid limit: must be a non-negative integer',
    });
    expect(messageOf(() => parsePaging({ limit: '1.5' }, { limit: 50, cap: 500 })).status).toBe(400);
    expect(messageOf(() => parsePaging({ offset: 'abc' }, { limit: 50, cap: 500 }))).toEqual({
      status: 400,
      message: 'Invalid offset: must be a non-negative integer',
    });
  });

  it('reads paging integers only as written plainly: no space, sign, leading zero, exponent, hex or digit past the 15th', () => {
    const paging = { limit: 50, cap: 500 };
    expect(parsePaging({ limit: '0', offset: '999999999999999' }, paging)).toEqual({ limit: 0, offset: 999_999_999_999_999 });
    for (const raw of [' 5', '5 ', '\t5', '+5', '05', '00', '0x10', '1e1', '5.0', '1_000', '\u0665', '9223372036854775808', '1000000000000000']) {
      expect(
        messageOf(() => parsePaging({ limit: raw }, paging)),
        JSON.stringify(raw),
      ).toEqual({
        status: 400,
        message: 'Invalid limit: must be a non-negative integer',
      });
      expect(messageOf(() => parsePaging({ offset: raw }, paging)).status, JSON.stringify(raw)).toBe(400);
    }
  });

  it('parses the filter param with the two exact messages and drops workspace_id', () => {
    expect(parseFilterParam(undefined)).toEqual({});
    expect(parseFilterParam('{"city":"Berlin","workspace_id":"x"}')).toEqual({ city: 'Berlin' });
    expect(messageOf(() => parseFilterParam('{oops'))).toEqual({ status: 400, message: 'Invalid filter: must be valid JSON' });
    for (const raw of ['[1]', '"x"', '3', 'null']) {
      expect(messageOf(() => parseFilterParam(raw))).toEqual({ status: 400, message: 'Invalid filter: must be a JSON object' });
    }
  });

  it('parses sort with a - prefix and rejects unknown fields', () => {
    expect(parseSort(undefined, ['created_at', 'name'])).toEqual({ field: 'created_at', descending: true });
    expect(parseSort('name', ['created_at', 'name'])).toEqual({ field: 'name', descending: false });
    expect(messageOf(() => parseSort('-password', ['created_at'])).status).toBe(400);
  });
});

describe('filter compiler', () => {
  const db = dbFor(env.SHARD_0);
  const catalog: FilterCatalog = {
    fields: {
      name: { kind: 'text', expr: sql.raw('t.name') },
      score: { kind: 'number', expr: sql.raw('t.score') },
      stage: { kind: 'enum', expr: sql.raw('t.stage'), values: ['lead', 'customer'] },
      vip: { kind: 'boolean', expr: sql.raw('t.vip') },
      ref: { kind: 'uuid', expr: sql.raw('t.ref') },
      created_at: { kind: 'timestamp', expr: sql.raw('t.created_at') },
    },
    customField: (path) => sql`json_extract(t.custom, ${path})`,
  };

  const PROBE_ROWS = [
    "('Ann Lee', 80, 'customer', 1, '0190a1b2-0000-7000-8000-000000000001', '2026-01-05T10:00:00.000Z', '{\"plan\":\"gold\",\"seats\":5}')",
    "('Bob 100%_off', 20, 'lead', 0, NULL, '2026-02-01T09:00:00.000Z', '{}')",
    "(NULL, NULL, 'lead', 0, NULL, '2026-03-01T00:00:00.000Z', NULL)",
  ];

  async function run(filter: Record<string, unknown>, rows = PROBE_ROWS): Promise<string[]> {
    await env.SHARD_0.exec(
      'CREATE TABLE IF NOT EXISTS filter_probe (name TEXT, score REAL, stage TEXT, vip INTEGER, ref TEXT, created_at TEXT, custom TEXT)',
    );
    await env.SHARD_0.exec('DELETE FROM filter_probe');
    await env.SHARD_0.batch(rows.map((row) => env.SHARD_0.prepare(`INSERT INTO filter_probe VALUES ${row}`)));
    const names = async (where: SQL | undefined, values: unknown[]) =>
      (
        await db.all<{ name: string | null }>(
          sql`${filterWith(values)} SELECT t.name FROM filter_probe t, fp ${where ? sql`WHERE ${where}` : sql``} ORDER BY t.created_at`,
        )
      ).map((r) => r.name ?? '(null)');
    // Both ways of binding values select the same rows.
    const packed = new FilterBuilder(catalog);
    const inline = new FilterBuilder(catalog, undefined, true);
    const [viaFp, viaParams] = [await names(packed.top(filter), packed.values), await names(inline.top(filter), [])];
    expect(viaParams).toEqual(viaFp);
    const { where, values } = compileFilter(filter, catalog);
    expect(await names(where, values)).toEqual(viaFp);
    return viaFp;
  }

  it('supports exact match, any-of, $gt and the $where operators', async () => {
    expect(await run({ stage: 'lead' })).toEqual(['Bob 100%_off', '(null)']);
    expect(await run({ stage: ['lead', 'customer'] })).toHaveLength(3);
    expect(await run({ score: { $gt: '50' } })).toEqual(['Ann Lee']);
    expect(await run({ vip: 'true' })).toEqual(['Ann Lee']);
    expect(await run({ created_at: '2026-01-05' })).toEqual(['Ann Lee']);
    expect(
      await run({
        $where: {
          or: [
            { field: 'name', op: 'contains', value: '%_' },
            { field: 'score', op: 'gte', value: 80 },
          ],
        },
      }),
    ).toEqual(['Ann Lee', 'Bob 100%_off']);
    expect(await run({ $where: { not: { field: 'name', op: 'is_null' } } })).toEqual(['Ann Lee', 'Bob 100%_off']);
    expect(await run({ $where: { field: 'name', op: 'starts_with', value: 'ann' } })).toEqual(['Ann Lee']);
    expect(await run({ $where: { field: 'name', op: 'ends_with', value: 'OFF' } })).toEqual(['Bob 100%_off']);
    expect(await run({ $where: { field: 'name', op: 'not_contains', value: 'ann' } })).toEqual(['Bob 100%_off', '(null)']);
    expect(await run({ $where: { field: 'stage', op: 'not_in', value: ['customer'] } })).toEqual(['Bob 100%_off', '(null)']);
    expect(await run({ $where: { field: 'created_at', op: 'lt', value: '2026-02-01T09:00:00Z' } })).toEqual(['Ann Lee']);
    expect(await run({ $where: { field: 'custom_fields.plan', op: 'eq', value: 'gold' } })).toEqual(['Ann Lee']);
    expect(await run({ $where: { field: 'custom_fields.seats', op: 'gt', value: 3 } })).toEqual(['Ann Lee']);
  });

  it('matches substring operators literally: ASCII letters in either case, other characters as written', async () => {
    const rows = [
      "('Åsa Öberg', 1, 'lead', 0, NULL, '2026-01-01T00:00:00.000Z', '{\"plan\":\"Gold-50%\"}')",
      "('C:\\dir_1', 2, 'lead', 0, NULL, '2026-01-02T00:00:00.000Z', '{\"plan\":7}')",
      "('Cab', 3, 'lead', 0, NULL, '2026-01-03T00:00:00.000Z', NULL)",
    ];
    const matching = (op: string, value: string, field = 'name') => run({ $where: { field, op, value } }, rows);
    // `%`, `_` and `\` are never wildcards or escapes.
    expect(await matching('starts_with', '%')).toEqual([]);
    expect(await matching('starts_with', '_')).toEqual([]);
    expect(await matching('contains', 'd_r')).toEqual([]);
    expect(await matching('contains', '\\dir_')).toEqual(['C:\\dir_1']);
    expect(await matching('ends_with', '_1')).toEqual(['C:\\dir_1']);
    expect(await matching('starts_with', 'c')).toEqual(['C:\\dir_1', 'Cab']);
    expect(await matching('ends_with', 'AB')).toEqual(['Cab']);
    expect(await matching('ends_with', 'xCab')).toEqual([]);
    expect(await matching('contains', 'BERG')).toEqual(['Åsa Öberg']);
    expect(await matching('starts_with', 'Åsa')).toEqual(['Åsa Öberg']);
    expect(await matching('starts_with', 'åsa')).toEqual([]);
    expect(await matching('not_contains', 'ö')).toEqual(['Åsa Öberg', 'C:\\dir_1', 'Cab']);
    expect(await matching('not_contains', 'Ö')).toEqual(['C:\\dir_1', 'Cab']);
    // Custom values: text and numbers alike.
    expect(await matching('ends_with', '-50%', 'custom_fields.plan')).toEqual(['Åsa Öberg']);
    expect(await matching('starts_with', '7', 'custom_fields.plan')).toEqual(['C:\\dir_1']);
  });

  it('binds one parameter however large the tree; a small tree binds its values for the planner', async () => {
    const conditions = Array.from({ length: 99 }, (_, i) => ({ field: 'score', op: 'neq', value: i + 1000 }));
    expect(await run({ $where: { and: conditions } })).toHaveLength(3);
    const { values } = compileFilter({ $where: { and: conditions } }, catalog);
    expect(values).toHaveLength(99);
    const tree = (n: number) => ({ $where: { and: conditions.slice(0, n) } });
    expect(compileFilter(tree(INLINE_MAX), catalog).values).toEqual([]);
    expect(compileFilter(tree(INLINE_MAX + 1), catalog).values).toHaveLength(INLINE_MAX + 1);
  });

  it('type-checks values with the exact 400 messages', () => {
    const msg = (filter: Record<string, unknown>) => messageOf(() => compileFilter(filter, catalog)).message;
    expect(msg({ created_at: 'yesterday' })).toBe('Invalid filter value for "created_at": "yesterday" is not a date');
    expect(msg({ ref: 'abc' })).toBe('Invalid filter value for "ref": "abc" is not a UUID');
    expect(msg({ stage: 'vip' })).toBe('Invalid filter value for "stage": must be one of lead, customer');
    expect(msg({ score: 'ten' })).toBe('Invalid filter value for "score": "ten" is not a number');
    expect(msg({ vip: 'yes' })).toBe('Invalid filter value for "vip": "yes" is not a boolean');
    expect(msg({ $where: { field: 'score', op: 'contains', value: '1' } })).toMatch(/^Invalid filter: .*text fields only/);
    expect(msg({ nope: 1 })).toMatch(/^Invalid filter: unknown field/);
    expect(msg({ score: { $lt: 1 } })).toMatch(/^Invalid filter: /);
    expect(msg({ $where: { field: 'name', op: 'like', value: 'x' } })).toMatch(/^Invalid filter: unknown operator/);
    expect(msg({ $where: { field: 'stage', op: 'in', value: Array(201).fill('lead') } })).toMatch(/at most 200 items/);
    const tooMany = { $where: { and: Array.from({ length: 100 }, () => ({ field: 'score', op: 'eq', value: 1 })) } };
    expect(msg(tooMany)).toMatch(/at most 100 nodes/);
  });
});

describe('filter compiler limits', () => {
  it('keeps deep nesting a clear 400', () => {
    let node: Record<string, unknown> = { field: 'a', op: 'is_null' };
    for (let i = 0; i < 40; i++) node = { not: node };
    expect(messageOf(() => compileFilter({ $where: node }, { fields: { a: { kind: 'text', expr: sql.raw('a') } } })).message).toMatch(
      /nested too deeply/,
    );
  });
});
