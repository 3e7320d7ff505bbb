import { describe, expect, it } from 'vitest';
import { prefixRanges } from '../../src/platform/d1/prefix-ranges';

describe('prefix ranges (starts_with on an indexed column)', () => {
  it('spells ASCII letters in both cases up to the second, other characters as written', () => {
    expect(prefixRanges('1a')).toEqual([
      ['1A', '1B'],
      ['1a', '1b'],
    ]);
    expect(prefixRanges('Ü')).toEqual([['Ü', 'Ý']]);
    const three = prefixRanges('hoo')!;
    expect(three.map(([from]) => from)).toEqual(['HO', 'Ho', 'hO', 'ho']);
    expect(three).toContainEqual(['hO', 'hP']);
    expect(prefixRanges('a-b-c')!.map(([from]) => from)).toEqual(['A-B-', 'A-b-', 'a-B-', 'a-b-']);
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
