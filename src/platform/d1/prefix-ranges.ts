/** ASCII letters spelled in both cases at most this many times: 2^2 = 4 ranges at most (each is a subquery the statement plans). */
const FOLDED_LETTERS = 2;

const LAST_CODE_POINT = 0x10ffff;

/** The smallest text greater than every text starting with `prefix` (null: none can be written). */
function after(prefix: string): string | null {
  const chars = [...prefix];
  const last = chars.pop()!.codePointAt(0)!;
  if (last === LAST_CODE_POINT) return null;
  // Surrogate code points cannot be written as text: the next one that can is U+E000.
  const next = last + 1 >= 0xd800 && last + 1 <= 0xdfff ? 0xe000 : last + 1;
  return chars.join('') + String.fromCodePoint(next);
}

/**
 * `[from, to)` ranges of binary-ordered text that together hold every text
 * starting with `prefix` as SQLite's LIKE reads it (ASCII letters in either
 * case, every other character as written), for walking an index on the column.
 * The ranges cover the case spellings of the prefix up to its second ASCII
 * letter, so they may hold more than the prefix selects: LIKE still decides.
 * Null for an empty prefix (every text starts with it).
 */
export function prefixRanges(prefix: string): [string, string][] | null {
  if (prefix === '') return null;
  let spellings = [''];
  let letters = 0;
  for (const ch of prefix) {
    if (/[A-Za-z]/.test(ch)) {
      if (letters === FOLDED_LETTERS) break;
      letters += 1;
      spellings = spellings.flatMap((s) => [s + ch.toUpperCase(), s + ch.toLowerCase()]);
    } else {
      spellings = spellings.map((s) => s + ch);
    }
  }
  const ranges: [string, string][] = [];
  for (const from of spellings) {
    const to = after(from);
    if (to === null) return null;
    ranges.push([from, to]);
  }
  return ranges;
}
