import { describe, expect, it } from 'vitest';
import { compileContent, isCompiled, type Compiled } from '../../src/modules/content/compile';
import { CONTENT_LIMITS } from '../../src/modules/content/cost';

/**
 * The compiler's cost and depth limits: each accepted at its value and refused
 * one past it with its message, pathological markdown refused before the
 * parser runs (today's parser takes seconds to minutes on it), and the worst
 * accepted inputs compiling within a bound no machine misses.
 */
const compiled = (content: unknown): Compiled => {
  const r = compileContent(content);
  if (!isCompiled(r)) throw new Error(JSON.stringify(r.compile.errors).slice(0, 500));
  return r;
};
const messages = (content: unknown) => {
  const r = compileContent(content);
  expect(r.compile.ok).toBe(false);
  for (const e of r.compile.errors) expect(e.code).toBe('invalid_content');
  return r.compile.errors.map((e) => e.message);
};
/** Replaying what a record stores is accepted and renders the same HTML. */
const replays = (c: Compiled) => expect(compiled({ design_json: c.design_json }).compiled_html).toBe(c.compiled_html);
const paragraphs = (n: number, text = 'p') => Array.from({ length: n }, () => ({ type: 'paragraph', text }));
const indentedList = (levels: number) => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- a`).join('\n');

describe('nesting: block quotes and lists at most 16 levels', () => {
  it.each(['> ', '- ', '1. '])('"%s" markers: 16 accepted, 17 refused with the limit named', (marker) => {
    replays(compiled({ markdown: `${marker.repeat(16)}a` }));
    expect(messages({ markdown: `${marker.repeat(17)}a` })).toEqual([
      'content.markdown: block quotes and lists nest at most 16 levels; line 1 nests 17',
    ]);
  });

  it('5,000 nested markers answer the limit instead of overflowing the stack', () => {
    for (const marker of ['> ', '- ', '> - ']) {
      expect(messages({ markdown: `${marker.repeat(5000)}a` })[0]).toMatch(
        /^content\.markdown: block quotes and lists nest at most 16 levels; line 1 nests (5,000|10,000)$/,
      );
    }
  });

  it('lists nested by indentation alone are measured on the parsed tree', () => {
    replays(compiled({ markdown: indentedList(16) }));
    expect(messages({ markdown: indentedList(17) })).toEqual(['content.markdown: block quotes and lists nest at most 16 levels; line 17 nests 17']);
  });

  it('every text of a block document is held to the same limit, whatever the source', () => {
    expect(messages({ markdown: `# ${'- '.repeat(17)}a` })).toEqual([
      'block 1 (heading): block quotes and lists nest at most 16 levels; line 1 nests 17',
    ]);
    expect(messages({ blocks: [{ type: 'paragraph', text: `${'> '.repeat(17)}a` }] })).toEqual([
      'block 1 (paragraph): block quotes and lists nest at most 16 levels; line 1 nests 17',
    ]);
    expect(messages({ blocks: [{ type: 'bullets', items: ['a', indentedList(17)] }] })).toEqual([
      'block 1 (bullets) item 2: block quotes and lists nest at most 16 levels; line 17 nests 17',
    ]);
    expect(messages({ design_json: { blocks: [{ type: 'paragraph', text: `${'> '.repeat(5000)}a` }] } })[0]).toBe(
      'block 1 (paragraph): block quotes and lists nest at most 16 levels; line 1 nests 5,000',
    );
    replays(compiled({ blocks: [{ type: 'paragraph', text: indentedList(16) }] }));
  });
});

describe('blocks and size: one limit for every source, checked on what a record stores', () => {
  it('1,000 blocks are accepted from each source, 1,001 refused with one message', () => {
    for (const many of [{ markdown: 'p\n\n'.repeat(1001) }, { blocks: paragraphs(1001) }, { design_json: { blocks: paragraphs(1001) } }]) {
      expect(messages(many)).toEqual(['content has 1,001 blocks; at most 1,000']);
    }
    for (const content of [{ markdown: 'p\n\n'.repeat(1000) }, { blocks: paragraphs(1000) }, { design_json: { blocks: paragraphs(1000) } }])
      replays(compiled(content));
    // Counted before any block is read: 100,000 blocks answer as fast as 1,001.
    expect(messages({ blocks: Array.from({ length: 100_000 }, () => 0) })).toEqual(['content has 100,000 blocks; at most 1,000']);
  });

  it('the block document is held to 512,000 characters as it is sent back', () => {
    const blocksOf = (last: number) => [...paragraphs(5, 'a'.repeat(100_000)), { type: 'paragraph', text: 'a'.repeat(last) }];
    const room = 512_000 - JSON.stringify({ blocks: blocksOf(0) }).length;
    // `{"design_json":` and `,"direction":"ltr"}` wrap the blocks in 34 more characters.
    replays(compiled({ blocks: blocksOf(room - 34) }));
    expect(JSON.stringify({ blocks: blocksOf(room) }).length).toBe(512_000);
    expect(messages({ blocks: blocksOf(room) })).toEqual(["content's block document (design_json) is over 512,000 characters"]);
  });

  it('markdown compiles only to blocks the block schema accepts', () => {
    expect(messages({ markdown: `# ${'x'.repeat(1001)}` })).toEqual([
      'content.markdown: block 1 (heading).text: Too big: expected string to have <=1000 characters',
    ]);
    expect(messages({ markdown: '- a\n'.repeat(201) })).toEqual([
      'content.markdown: block 1 (bullets).items: Too big: expected array to have <=200 items',
    ]);
    replays(compiled({ markdown: `# ${'x'.repeat(1000)}\n\n${'- a\n'.repeat(200)}` }));
  });
});

describe('markdown structure', () => {
  it('lines: 3,000 accepted, 3,001 refused (markdown, and the texts of a block document together)', () => {
    replays(compiled({ markdown: 'a\n'.repeat(3000) }));
    expect(messages({ markdown: 'a\n'.repeat(3001) })).toEqual(['content.markdown has 3,001 lines; at most 3,000']);
    replays(compiled({ blocks: paragraphs(1000, 'a\nb\nc') }));
    expect(messages({ blocks: [...paragraphs(999, 'a\nb\nc'), { type: 'paragraph', text: 'a\nb\nc\nd' }] })).toEqual([
      "content's paragraphs, headings and list items have 3,001 lines together; at most 3,000",
    ]);
  });

  it('lines inside block quotes and lists, once per level: 6,000 accepted, 6,001 refused', () => {
    replays(compiled({ markdown: '> > > a\n'.repeat(2000) }));
    expect(messages({ markdown: `${'> > > a\n'.repeat(1999)}> > > > a` })).toEqual([
      'content.markdown has 6,001 lines inside block quotes and lists (a line counts once per level); at most 6,000',
    ]);
    // Lazy lines stay inside the containers the line above opened.
    expect(messages({ markdown: `${'- '.repeat(16)}a\n${'b\n'.repeat(375)}` })[0]).toMatch(
      /^content\.markdown has 6,0\d\d lines inside block quotes and lists/,
    );
  });

  it('list items, link definitions and heading underlines together: 500 accepted, 501 refused', () => {
    const markdown = `${'- a\n'.repeat(200)}\n${'[x]: https://x.test\n'.repeat(200)}\n${'t\n---\n'.repeat(100)}`;
    replays(compiled({ markdown }));
    expect(messages({ markdown: `${markdown}\n[y]: https://y.test` })).toEqual([
      'content.markdown has 501 list items, link definitions and heading underlines; at most 500',
    ]);
  });
});

describe('inline markup', () => {
  it('markup characters over all texts: 50,000 accepted, 50,001 refused', () => {
    const texts = paragraphs(1000, '**'.repeat(25));
    replays(compiled({ blocks: texts }));
    expect(messages({ blocks: [...texts.slice(1), { type: 'paragraph', text: `${'**'.repeat(25)}_` }] })).toEqual([
      "content's paragraphs, headings and list items have 50,001 markup characters (* _ ~ ` [ ] <) together; at most 50,000",
    ]);
  });

  it('markup weight (markup characters times length, per text, added up): 10,000,000 accepted, past it refused', () => {
    // 2,236 markup characters in 4,472 characters weigh 9,999,392; one more `*a` weighs 10,008,338.
    replays(compiled({ markdown: '*a'.repeat(2236) }));
    expect(messages({ markdown: '*a'.repeat(2237) })).toEqual([
      "content's paragraphs, headings and list items weigh 10,008,338 in inline markup (each one's markup characters times its length, added up); at most 10,000,000",
    ]);
    expect(messages({ blocks: [{ type: 'paragraph', text: '*a'.repeat(2237) }] })).toEqual(messages({ markdown: '*a'.repeat(2237) }));
  });
});

describe('cost', () => {
  /** Markdown whose compile took today's parser from seconds to minutes: each is refused before the parse. */
  const pathological = [
    '*a'.repeat(32_000),
    '_a'.repeat(32_000),
    '**a'.repeat(25_000),
    '*_'.repeat(32_000),
    '*a_ '.repeat(16_000),
    '[ (]('.repeat(13_000),
    '[a](b ('.repeat(9_000),
    '<!--a\n'.repeat(10_000),
    `${'- '.repeat(25_000)}a`,
    'a\n=\n'.repeat(20_000),
    '- a\n'.repeat(20_000),
    `${'[a]: b\n'.repeat(10_000)}x`,
    'a\n\n'.repeat(25_000),
    Array.from({ length: 400 }, (_, i) => `${'  '.repeat(i)}- a`).join('\n'),
  ];

  // How long each takes is the bench's to measure (docs/bench.md), never a test's: a busy machine is slow, not wrong.
  it('pathological markdown is refused before it is parsed', () => {
    for (const markdown of pathological) {
      const r = compileContent({ markdown });
      expect(r.compile.ok, markdown.slice(0, 40)).toBe(false);
    }
  });

  /**
   * Accepted at the limits (the first four at the markup weight limit): each costs the production
   * build of the parser at most about 0.2 s on a laptop; the tests run its development build, a few times slower.
   */
  const worstAccepted: [string, unknown][] = [
    ['mismatched delimiters', { markdown: '*a_ '.repeat(1118) }],
    ['alternating delimiters', { markdown: '*_'.repeat(1581) }],
    ['nested strong and emphasis', { markdown: `${'*a **a '.repeat(344)}b${' a** a*'.repeat(344)}` }],
    ['unclosed link titles', { markdown: '[a](b ('.repeat(845) }],
    [
      'markup spread over 3,000 list items',
      { blocks: Array.from({ length: 15 }, () => ({ type: 'bullets', items: Array.from({ length: 200 }, () => '*a'.repeat(16)) })) },
    ],
    ['1,000 paragraphs of markup', { blocks: paragraphs(1000, '*a'.repeat(50)) }],
    ['16-deep quotes on every line', { markdown: '> '.repeat(16).concat('a\n').repeat(375) }],
    ['500 heading underlines', { markdown: `${'b\n'.repeat(1990)}\n${'a\n---\n'.repeat(500)}` }],
    ['deep quotes and a heavy paragraph', { markdown: `${'> '.repeat(16).concat('a\n').repeat(300)}\n${'*a_ '.repeat(1100)}` }],
  ];

  it.each(worstAccepted)('the worst accepted input compiles: %s', (_, content) => {
    expect(compiled(content)).toBeTruthy();
  });

  it('the limits are the documented ones', () => {
    expect(CONTENT_LIMITS).toEqual({
      blocks: 1000,
      depth: 16,
      lines: 3000,
      nestedLines: 6000,
      structures: 500,
      markup: 50_000,
      markupWeight: 10_000_000,
    });
  });
});
