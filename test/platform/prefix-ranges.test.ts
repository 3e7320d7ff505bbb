import { describe, expect, it } from 'vitest';
import { prefixRanges } from '../../src/platform/prefix-ranges';

describe('prefix ranges (starts_with on an indexed column)', () => {
  it('spells ASCII letters in both cases up to the third, other characters as written', () => {
    expect(prefixRanges('1a')).toEqual([
      ['1A', '1B'],
      ['1a', '1b'],
    ]);
    expect(prefixRanges('Ü')).toEqual([['Ü', 'Ý']]);
    const four = prefixRanges('hool')!;
    expect(four).toHaveLength(8);
    expect(four.map(([from]) => from)).toContain('HoO');
    expect(four.every(([from, to]) => from.length === 3 && to.length === 3)).toBe(true);
    expect(prefixRanges('a-b-c-d')!.map(([from]) => from)).toContain('A-b-C-');
  });

  it('bounds each range just past its prefix, skipping surrogates; none for an empty or unbounded prefix', () => {
    expect(prefixRanges('z')).toEqual([
      ['Z', '['],
      ['z', '{'],
    ]);
    expect(prefixRanges('\uD7FF')).toEqual([['\uD7FF', '\uE000']]);
    expect(prefixRanges('')).toBeNull();
    expect(prefixRanges('a\u{10FFFF}')).toBeNull();
  });
});
