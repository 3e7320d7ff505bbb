/**
 * What parsing markdown will cost, measured in one linear pass before the
 * parser runs. The parser (micromark) is not linear on every input: an
 * emphasis delimiter or a bracket is resolved against everything before it in
 * its paragraph, an unclosed code span or link title scans to the paragraph's
 * end, every line pays for each block quote and list it sits in, a list item
 * or a link definition costs about a hundred plain lines, and every heading
 * underline re-walks the document parsed so far. Each limit bounds one of
 * those terms, so any accepted content compiles in a fraction of a second;
 * each sits far above what a newsletter holds.
 */
export const CONTENT_LIMITS = {
  /** Blocks of the block document, whatever the source. */
  blocks: 1000,
  /** Block quotes and lists inside one another. */
  depth: 16,
  lines: 3000,
  /** Lines counted once for every block quote and list they may sit in. */
  nestedLines: 6000,
  /** List items, link definitions and heading underlines. */
  structures: 500,
  /** Markup characters over every paragraph, heading and list item. */
  markup: 50_000,
  /** Markup characters times length, over every paragraph, heading and list item. */
  markupWeight: 10_000_000,
} as const;

export type MarkdownCost = {
  lines: number;
  nestedLines: number;
  structures: number;
  /** The deepest line: block quote and list markers at its start. */
  depth: number;
  depthLine: number;
  /** Characters that open or close inline markup: `*` `_` `~` `` ` `` `[` `]` `<`. */
  markup: number;
};

const UNDERLINE = /^(?:=+|-+)[ \t]*$/;
const LINE = /\r\n|\r|\n/;

const isBlankFrom = (line: string, i: number) => /^[ \t]*$/.test(line.slice(i));
const spaceOrEnd = (line: string, i: number) => i >= line.length || line[i] === ' ' || line[i] === '\t';

/**
 * For each position of a line, whether the rest of it is a thematic break
 * (three or more of one of `-` `*` `_`, spaces between): a marker there
 * starts no list item. One pass from the right.
 */
function thematicBreaksOf(line: string): boolean[] {
  const breaks = new Array<boolean>(line.length + 1).fill(false);
  let kind = '';
  let count = 0;
  for (let i = line.length - 1; i >= 0; i--) {
    const c = line[i];
    if (c === ' ' || c === '\t') {
      breaks[i] = count >= 3;
      continue;
    }
    if ((c !== '-' && c !== '*' && c !== '_') || (kind && c !== kind)) {
      // Nothing to the left of a different character starts a thematic break.
      return breaks;
    }
    kind = c;
    count++;
    breaks[i] = count >= 3;
  }
  return breaks;
}

/** The container markers (`>`, `-`, `+`, `*`, `1.`, `1)`) at the start of a line, and where its content starts. */
function prefixOf(line: string): { indent: number; markers: number; items: number; rest: number } {
  let i = 0;
  let indent = 0;
  while (i < line.length && (line[i] === ' ' || line[i] === '\t')) indent += line[i++] === '\t' ? 4 - (indent % 4) : 1;
  let markers = 0;
  let items = 0;
  let breaks: boolean[] | null = null;
  const skipSpace = () => {
    while (i < line.length && (line[i] === ' ' || line[i] === '\t')) i++;
  };
  for (;;) {
    const c = line[i];
    if (c === '>') {
      markers++;
      i++;
      skipSpace();
      continue;
    }
    if ((c === '-' || c === '+' || c === '*') && spaceOrEnd(line, i + 1) && !(breaks ??= thematicBreaksOf(line))[i]) {
      markers++;
      items++;
      i++;
      skipSpace();
      continue;
    }
    let j = i;
    while (j < line.length && j - i < 9 && line[j] >= '0' && line[j] <= '9') j++;
    if (j > i && (line[j] === '.' || line[j] === ')') && spaceOrEnd(line, j + 1)) {
      markers++;
      items++;
      i = j + 1;
      skipSpace();
      continue;
    }
    return { indent, markers, items, rest: i };
  }
}

export function markupOf(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // * _ ~ ` [ ] <
    if (c === 42 || c === 95 || c === 126 || c === 96 || c === 91 || c === 93 || c === 60) n++;
  }
  return n;
}

/** One pass over the text; nothing here parses markdown. */
export function measureMarkdown(text: string): MarkdownCost {
  const cost: MarkdownCost = { lines: 0, nestedLines: 0, structures: 0, depth: 0, depthLine: 0, markup: markupOf(text) };
  // Containers a line may be checked against: what the line itself opens or continues, and,
  // without a blank line before it, whatever the lines above left open (lazy continuation).
  let open = 0;
  let previousBlank = true;
  const lines = text.split(LINE);
  // A line ending closes its line: after a final one there is no further line.
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  for (const line of lines) {
    cost.lines++;
    const p = prefixOf(line);
    const blank = p.markers === 0 && isBlankFrom(line, p.rest);
    if (!blank) {
      const own = p.markers + Math.floor(p.indent / 2);
      open = previousBlank ? own : Math.max(open, own);
      if (p.markers > cost.depth) {
        cost.depth = p.markers;
        cost.depthLine = cost.lines;
      }
      cost.structures += p.items;
      const rest = line.slice(p.rest);
      if (rest.startsWith('[') || (!previousBlank && UNDERLINE.test(rest))) cost.structures++;
    }
    cost.nestedLines += open;
    previousBlank = blank;
  }
  return cost;
}

const n = (x: number) => x.toLocaleString('en-US');

export const nestingMessage = (depth: number, line: number) =>
  `block quotes and lists nest at most ${CONTENT_LIMITS.depth} levels; line ${n(line)} nests ${n(depth)}`;

/** Who a message speaks of: one markdown text, or the texts of a block document together. */
export type Subject = { name: string; plural: boolean };
export const BLOCK_TEXTS: Subject = { name: "content's paragraphs, headings and list items", plural: true };
export const WITH_SNIPPETS: Subject = { name: "content's paragraphs, headings and list items and the snippets it references", plural: true };

/** The limits a markdown text (or the texts of a block document, added up) breaks, one message each. */
export function costProblems(subject: Subject, cost: MarkdownCost, markupWeight?: number): string[] {
  const problems: string[] = [];
  if (!subject.plural && cost.depth > CONTENT_LIMITS.depth) problems.push(`${subject.name}: ${nestingMessage(cost.depth, cost.depthLine)}`);
  const over = (value: number, limit: number, what: string) => {
    if (value > limit)
      problems.push(
        `${subject.name} ${subject.plural ? 'have' : 'has'} ${n(value)} ${what}${subject.plural ? ' together' : ''}; at most ${n(limit)}`,
      );
  };
  over(cost.lines, CONTENT_LIMITS.lines, 'lines');
  over(cost.nestedLines, CONTENT_LIMITS.nestedLines, 'lines inside block quotes and lists (a line counts once per level)');
  over(cost.structures, CONTENT_LIMITS.structures, 'list items, link definitions and heading underlines');
  if (markupWeight !== undefined) {
    over(cost.markup, CONTENT_LIMITS.markup, 'markup characters (* _ ~ ` [ ] <)');
    if (markupWeight > CONTENT_LIMITS.markupWeight) {
      problems.push(
        `${subject.name} weigh ${n(markupWeight)} in inline markup (each one's markup characters times its length, added up); at most ${n(CONTENT_LIMITS.markupWeight)}`,
      );
    }
  }
  return problems;
}
