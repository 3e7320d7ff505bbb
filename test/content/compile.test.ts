import fc from 'fast-check';
import { fromHtml } from 'hast-util-from-html';
import { describe, expect, it } from 'vitest';
import { compileContent, isCompiled, MAX_CONTENT_CHARS, type Compiled, type Snippet } from '../../src/modules/content/compile';
import { renderHtmlTokens, renderTextTokens, tokenValues } from '../../src/modules/content/tokens';

const ok = (content: unknown, opts = {}): Compiled => {
  const r = compileContent(content, opts);
  if (!isCompiled(r)) throw new Error(JSON.stringify(r.compile.errors));
  return r;
};
const errorsOf = (content: unknown, opts = {}) => {
  const r = compileContent(content, opts);
  expect(r.compile.ok).toBe(false);
  return r.compile.errors;
};
const snippets: Snippet[] = [
  { id: '0190a7a0-0000-7000-8000-000000000001', name: 'Footer', markdown: 'Sent by **Acme**', html: null },
  {
    id: '0190a7a0-0000-7000-8000-000000000002',
    name: 'legal',
    markdown: null,
    html: '<p>Acme &amp; Co</p><script>alert(1)</script><p onclick="x()">Terms</p>',
  },
];

describe('content compiler: sources', () => {
  it('markdown parses to the block document, and replaying design_json reproduces the HTML', () => {
    const md =
      '# Hello [[first_name : there]]\n\nSome *text* with [a link](https://example.com).\n\n- one\n- two\n\n---\n\n::button[Buy now](https://shop.example/x)\n\n::snippet[footer]';
    const a = ok({ markdown: md }, { snippets });
    expect(a.design_json.blocks.map((b) => b.type)).toEqual(['heading', 'paragraph', 'bullets', 'divider', 'button', 'snippet']);
    expect(a.design_json.blocks[4]).toEqual({ type: 'button', label: 'Buy now', url: 'https://shop.example/x' });
    const b = ok({ design_json: a.design_json }, { snippets });
    expect(b.compiled_html).toBe(a.compiled_html);
    expect(b.plain_text).toBe(a.plain_text);
    const c = ok({ blocks: a.design_json.blocks }, { snippets });
    expect(c.compiled_html).toBe(a.compiled_html);
    expect(a.compiled_html).toContain('Sent by <strong>Acme</strong>');
    expect(a.compiled_html).toContain('[[first_name : there]]');
    expect(a.compile).toEqual({ ok: true, errors: [], warnings: [] });
  });

  it('a directive line inside a paragraph splits it', () => {
    const a = ok({ markdown: 'before\n::button[Go](https://x.test)\nafter' });
    expect(a.design_json.blocks).toEqual([
      { type: 'paragraph', text: 'before' },
      { type: 'button', label: 'Go', url: 'https://x.test' },
      { type: 'paragraph', text: 'after' },
    ]);
  });

  it('directives inside fenced code are code, not directives', () => {
    const a = ok({ markdown: '```\n::button[Go](https://x.test)\n```' });
    expect(a.design_json.blocks.map((b) => b.type)).toEqual(['paragraph']);
    expect(a.compiled_html).toContain('::button[Go](https://x.test)');
  });

  it('raw HTML in markdown is escaped, not passed through', () => {
    const a = ok({ markdown: '<script>alert(1)</script>\n\nHi <img src=x onerror=alert(1)> there' });
    expect(a.compiled_html).not.toMatch(/<script/i);
    expect(a.compiled_html).not.toMatch(/<img src=x/i);
    expect(a.compiled_html).toContain('&lt;script&gt;');
    expect(a.compile.warnings.join()).toContain('raw HTML');
  });

  it('rtl content sets dir on the document and right-aligns', () => {
    const a = ok({ markdown: 'שלום', direction: 'rtl' });
    expect(a.compiled_html).toContain('<html lang="en" dir="rtl">');
    expect(a.compiled_html).toContain('text-align:right');
    expect(a.design_json.direction).toBe('rtl');
  });

  it('email-safe layout: table, inline styles, 600 px body, hidden preheader, unsubscribe token', () => {
    const a = ok({ blocks: [{ type: 'paragraph', text: 'Hi' }] }, { preheader: 'Big news inside' });
    expect(a.compiled_html).toContain('width="600"');
    expect(a.compiled_html).toContain('role="presentation"');
    expect(a.compiled_html).toMatch(/<div style="display:none;[^"]*">Big news inside/);
    expect(a.compiled_html).toContain('href="[[unsubscribe_url]]"');
    expect(a.plain_text).toContain('Unsubscribe: [[unsubscribe_url]]');
    expect(a.compiled_styles).toContain('@media');
  });

  it('every block kind renders', () => {
    const a = ok(
      {
        blocks: [
          { type: 'heading', text: 'Title', level: 2 },
          { type: 'paragraph', text: 'Para **bold**' },
          { type: 'button', label: 'Click', url: 'https://x.test/a' },
          { type: 'bullets', items: ['a', 'b'] },
          { type: 'spacer', height: 24 },
          { type: 'image', src: 'https://x.test/i.png', alt: 'Pic', href: 'https://x.test', width: 300 },
          { type: 'divider' },
          { type: 'snippet', ref: snippets[0].id },
        ],
      },
      { snippets },
    );
    expect(a.compiled_html).toContain('<h2');
    expect(a.compiled_html).toContain('<strong>bold</strong>');
    expect(a.compiled_html).toContain('href="https://x.test/a"');
    expect(a.compiled_html).toContain('<li');
    expect(a.compiled_html).toContain('height:24px');
    expect(a.compiled_html).toContain('alt="Pic"');
    expect(a.compiled_html).toContain('Sent by');
    expect(a.plain_text).toContain('Click: https://x.test/a');
    expect(a.plain_text).toContain('- a\n- b');
  });

  it('an HTML snippet is parsed and shown as its text, never as markup', () => {
    const a = ok({ markdown: '::snippet[LEGAL]' }, { snippets });
    expect(a.compiled_html).toContain('Acme &amp; Co');
    expect(a.compiled_html).not.toMatch(/<script|onclick/i);
  });
});

describe('content compiler: errors versus warnings', () => {
  it.each([
    [{}, 'exactly one'],
    [{ markdown: 'a', blocks: [] }, 'markdown and blocks'],
    [{ markdown: 'a', direction: 'up' }, 'direction'],
    [{ markdown: 5 }, 'markdown'],
    [{ markdown: '   ' }, 'markdown'],
    [{ blocks: 'x' }, 'blocks'],
    [{ blocks: [{ type: 'video' }] }, 'content.blocks.0'],
    [{ blocks: [{ type: 'spacer', height: 2 }] }, 'content.blocks.0.height'],
    [{ blocks: [{ type: 'heading', text: 'x', level: 4 }] }, 'level'],
    [{ blocks: [{ type: 'paragraph', text: 'x', extra: 1 }] }, 'content.blocks.0'],
    [{ blocks: [{ type: 'button', label: 'x', url: 'javascript:alert(1)' }] }, 'url must be an http(s) URL'],
    [{ blocks: [] }, 'no blocks'],
    [{ design_json: { blocks: 'x' } }, 'design_json'],
    [{ design_json: 'x' }, 'design_json'],
    [{ markdown: 'x', foo: 1 }, 'unknown field'],
    [{ markdown: '::button[Go](https://x.test/a(b))' }, 'parenthesis'],
    [{ markdown: '::snippet[]' }, 'snippet directive'],
    [null, 'content must be an object'],
    [{ markdown: 'x'.repeat(MAX_CONTENT_CHARS + 1) }, '512,000'],
  ])('case %# -> invalid_content', (content, fragment) => {
    const errors = errorsOf(content);
    expect(errors[0].code).toBe('invalid_content');
    expect(errors.map((e) => e.message).join(' ')).toContain(fragment);
  });

  it('an unknown snippet is unknown_snippet and lists the available names', () => {
    const errors = errorsOf({ markdown: '::snippet[nope]' }, { snippets });
    expect(errors).toEqual([{ code: 'unknown_snippet', message: 'Unknown snippet "nope"; available snippets: Footer, legal' }]);
    expect(errorsOf({ blocks: [{ type: 'snippet', ref: '0190a7a0-0000-7000-8000-00000000ffff' }] }, { snippets })[0].code).toBe('unknown_snippet');
  });

  it('unknown tokens and modifiers, images without alt and non-https links are warnings', () => {
    const a = ok({
      blocks: [
        { type: 'paragraph', text: 'Hi [[favourite_color]] [[first_name | shout]] [[first_name | truncate(x)]] [plain](http://x.test)' },
        { type: 'image', src: 'https://x.test/i.png' },
        { type: 'button', label: 'Go', url: 'http://x.test' },
      ],
    });
    const w = a.compile.warnings.join('\n');
    expect(w).toContain('unknown personalization token "favourite_color"');
    expect(w).toContain('unknown modifier "shout"');
    expect(w).toContain('truncate needs a positive length');
    expect(w).toContain('no alt text');
    expect(w).toContain('http://x.test is not https');
  });
});

describe('personalization at send time', () => {
  const contact = {
    first_name: 'ada',
    last_name: null,
    email: 'ada@x.test',
    custom_fields: JSON.stringify({ plan: 'gold <b>', since: '2024-03-05' }),
  };
  it('resolves fields, fallbacks, modifiers and custom fields, HTML-escaped in HTML', () => {
    const a = ok({
      markdown:
        'Hi [[first_name | capitalize]] [[last_name : friend]] [[custom_fields.plan | upper]] [[custom_fields.since | date(DD/MM/YYYY)]] [[first_name | truncate(2)]]',
    });
    const values = tokenValues(contact, { unsubscribe_url: 'https://u.test/x?a=1&b=2' });
    const html = renderHtmlTokens(a.compiled_html, values);
    expect(html).toContain('Hi Ada friend GOLD &lt;B&gt; 05/03/2024 ad…');
    expect(html).toContain('href="https://u.test/x?a=1&amp;b=2"');
    expect(html).not.toContain('[[');
    const text = renderTextTokens(a.plain_text, values);
    expect(text).toContain('Hi Ada friend GOLD <B> 05/03/2024');
    expect(renderTextTokens('Hello [[first_name : you]]\r\n', tokenValues({}), true)).toBe('Hello you ');
  });

  it('reads custom field names like inherited object properties as plain keys (a missing one renders its fallback)', () => {
    const values = tokenValues({ custom_fields: '{"constructor":"kept"}' });
    expect(
      renderTextTokens(
        '[[custom_fields.constructor]] [[custom_fields.toString : none]] [[custom_fields.__proto__ : none]] [[custom_fields.valueOf : none]]',
        values,
      ),
    ).toBe('kept none none none');
  });
});

// Fuzz: random markdown and block documents never throw, never emit a script
// tag or an on* attribute, and every text node's words reach the output.
const word = fc.stringMatching(/^[A-Za-z0-9]{1,12}$/);
const nasty = fc.constantFrom(
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '" onmouseover="x',
  'javascript:alert(1)',
  '<a href="javascript:x">y</a>',
  '<svg onload=1>',
  '[[',
  ']]',
  '::button[',
  '::snippet[x]',
  '`',
  '*',
  '_',
  '#',
  '>',
  '- ',
  '1. ',
  '\n',
  '\n\n',
  '(',
  ')',
  '![a](',
  '<',
  '&',
);
const mdText = fc.array(fc.oneof(word, nasty, fc.string({ maxLength: 20 })), { maxLength: 40 }).map((xs) => xs.join(' '));
const block = fc.oneof(
  fc.record({ type: fc.constant('heading' as const), text: mdText.filter((s) => s.length > 0), level: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ type: fc.constant('paragraph' as const), text: mdText.filter((s) => s.length > 0) }),
  fc.record({ type: fc.constant('button' as const), label: mdText.filter((s) => s.length > 0).map((s) => s.slice(0, 200)), url: fc.webUrl() }),
  fc.record({
    type: fc.constant('bullets' as const),
    items: fc.array(
      mdText.filter((s) => s.length > 0),
      { minLength: 1, maxLength: 5 },
    ),
  }),
  fc.record({ type: fc.constant('spacer' as const), height: fc.integer({ min: 4, max: 128 }) }),
  fc.record(
    {
      type: fc.constant('image' as const),
      src: fc.webUrl(),
      alt: fc.option(
        mdText.map((s) => s.slice(0, 500)),
        { nil: undefined },
      ),
    },
    { requiredKeys: ['type', 'src'] },
  ),
  fc.constant({ type: 'divider' as const }),
);

/** Parsed like a browser would (hast): no script element, no on* attribute, no javascript: link. */
const safe = (html: string) => {
  const walk = (node: { type: string; tagName?: string; properties?: Record<string, unknown>; children?: unknown[] }) => {
    if (node.type === 'element') {
      expect(node.tagName).not.toBe('script');
      for (const [k, v] of Object.entries(node.properties ?? {})) {
        expect(k.toLowerCase().startsWith('on')).toBe(false);
        if (k === 'href' || k === 'src') expect(String(v)).not.toMatch(/^\s*javascript:/i);
      }
    }
    for (const c of node.children ?? []) walk(c as never);
  };
  walk(fromHtml(html) as never);
};

describe('content compiler: fuzz', () => {
  it('random markdown never throws and never produces script or on* attributes', () => {
    fc.assert(
      fc.property(mdText, fc.constantFrom('ltr', 'rtl'), (markdown, direction) => {
        const r = compileContent({ markdown, direction }, { snippets });
        if (!isCompiled(r)) {
          expect(r.compile.errors.length).toBeGreaterThan(0);
          return;
        }
        safe(r.compiled_html);
        const again = compileContent({ design_json: r.design_json }, { snippets });
        expect(isCompiled(again) && again.compiled_html).toBe(r.compiled_html);
      }),
      { numRuns: 300 },
    );
  });

  it('random block documents never throw, stay safe, and keep every word of every text node', () => {
    fc.assert(
      fc.property(fc.array(block, { minLength: 1, maxLength: 8 }), fc.array(word, { minLength: 1, maxLength: 5 }), (blocks, words) => {
        const all = [...blocks, { type: 'paragraph' as const, text: words.join(' ') }];
        const r = compileContent({ blocks: all });
        if (!isCompiled(r)) throw new Error(JSON.stringify(r.compile.errors));
        safe(r.compiled_html);
        for (const w of words) {
          expect(r.plain_text).toContain(w);
          expect(r.compiled_html).toContain(w);
        }
        for (const b of blocks) {
          // Items are inline markdown: a link or image destination is an address, not text (a non-http image is left out).
          if (b.type === 'bullets')
            for (const item of b.items)
              for (const w of item.replace(/\]\([^)]*\)/g, ']').match(/\b[A-Za-z0-9]{3,}\b/g) ?? []) expect(r.plain_text).toContain(w);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('random tokens render without throwing and escape whatever the contact holds', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), fc.string({ maxLength: 40 }), (inner, value) => {
        const r = ok({ blocks: [{ type: 'paragraph', text: `x [[${inner}]] [[first_name]]` }] });
        const html = renderHtmlTokens(r.compiled_html, tokenValues({ first_name: value }));
        safe(html);
      }),
      { numRuns: 200 },
    );
  });
});
