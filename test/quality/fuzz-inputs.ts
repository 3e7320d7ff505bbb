import fc from 'fast-check';
import { placeholders, takesBody, type RouteCase } from '../support/routes';

/** One adversarial request against a route: what the client sends, byte for byte. */
export type FuzzRequest = { path: string; headers: Record<string, string>; body?: string };

const DEPTH = 5000;
const HUGE = 100_000;

/** Names every JavaScript object inherits: a look-up of one in a table of known names must miss. */
export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  'prototype',
];

const names = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => `name ${i}`));
const wideObject = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
const deepObject = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** Raw JSON text of a field value: every kind of wrong the wire can carry. */
const valueText: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(
    'null',
    'true',
    'false',
    '[]',
    '{}',
    '0',
    '-0',
    '-1',
    '1.5',
    '1e308',
    '-1e308',
    '1e309',
    '-1e309',
    '4.9e-324',
    '9007199254740993',
    '2147483648',
    '"NaN"',
    '"Infinity"',
    '"-0"',
    '"1e308"',
    '""',
    '" "',
    '"\\ud800"',
    '"\\udfff tail"',
    '"\\u0000"',
    '"a\\u0000b"',
    JSON.stringify('\u202eevil\u202c'),
    JSON.stringify('😀𝔘𐍈'),
    JSON.stringify('مرحبا'),
    JSON.stringify('\ufeff'),
    '["\\ud83d"]',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '[{"url":"https://example.com/hooks"}]',
    '"javascript:alert(1)"',
    '"file:///etc/passwd"',
    '"https://127.0.0.1/"',
    '"http://[::1]/"',
    '"http://0x7f.1/"',
    '"https://user:pass@example.com/"',
    '"https://exa mple.com/"',
    '"https://example.com:99999/"',
    '"https://xn--/"',
    '"00000000-0000-0000-0000-000000000000"',
    '"ffffffff-ffff-ffff-ffff-ffffffffffff"',
    '1e400',
    '-1e400',
    '[1e400]',
    '{"a":1e999}',
    '{"__proto__":"x"}',
    '{"constructor":1,"toString":"x","valueOf":null,"hasOwnProperty":[]}',
    ...PROTOTYPE_NAMES.map((n) => JSON.stringify(n)),
  ),
  // Inputs at and past the accepted maxima: name lists (200 names), free-form objects (depth, keys).
  fc.constantFrom(
    names(13),
    names(200),
    names(201),
    deepObject(5),
    deepObject(6),
    deepObject(3000),
    wideObject(100),
    wideObject(101),
    wideObject(5000),
  ),
  fc.constantFrom(
    JSON.stringify('a'.repeat(HUGE)),
    JSON.stringify('é'.repeat(HUGE)),
    JSON.stringify(`https://example.com/${'a'.repeat(HUGE)}`),
    '['.repeat(DEPTH) + ']'.repeat(DEPTH),
    `${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}`,
  ),
);

/**
 * Content the parser pays for super-linearly or that nests deep: runs of
 * emphasis delimiters, brackets, backticks and `<`, block quotes and lists
 * nested by marker and by indentation, many lines, list items and heading
 * underlines; at, just past and far past the content limits (docs/content.md).
 */
const RUNS = ['*a', '_a', '**a', '*_', '*a_ ', '~a', '[a', '![a', '`a', '<a', '[a](b (', '*a\n'];
const indentedList = (levels: number) => Array.from({ length: levels }, (_, i) => `${'  '.repeat(i)}- a`).join('\n');
const costlyMarkdown: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.constantFrom(...RUNS), fc.constantFrom(16, 1000, 2237, 16_000)).map(([unit, n]) => unit.repeat(n)),
  fc.tuple(fc.constantFrom('> ', '- ', '1. ', '> - '), fc.constantFrom(16, 17, 5000)).map(([marker, depth]) => `${marker.repeat(depth)}a`),
  fc.constantFrom(16, 17, 400).map(indentedList),
  fc.constantFrom('a\n'.repeat(3001), 'p\n\n'.repeat(1001), 'a\n=\n'.repeat(600), '- a\n'.repeat(600), '[a]: b\n'.repeat(600)),
);
const dividers = (n: number) => JSON.stringify(Array.from({ length: n }, () => ({ type: 'divider' })));
/** Block arrays (JSON text): costly texts in paragraphs and list items, block counts at and past the limit, nesting where a string belongs. */
const costlyBlocks: fc.Arbitrary<string> = fc.oneof(
  costlyMarkdown.map((text) => JSON.stringify([{ type: 'paragraph', text }])),
  costlyMarkdown.map((text) =>
    JSON.stringify([
      { type: 'heading', text: text.slice(0, 1000) },
      { type: 'bullets', items: [text.slice(0, 10_000), 'b'] },
    ]),
  ),
  fc.constantFrom(
    dividers(1000),
    dividers(1001),
    `[{"type":"paragraph","text":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}]`,
    `[${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}]`,
    `[{"type":"bullets","items":[${deepObject(3000)}]}]`,
  ),
);
/** A value (JSON text) for a documented content property, by its name. */
const contentValue = (name: string): fc.Arbitrary<string> =>
  name === 'markdown'
    ? costlyMarkdown.map((md) => JSON.stringify(md))
    : name === 'blocks'
      ? costlyBlocks
      : costlyBlocks.map((blocks) => `{"blocks":${blocks}}`);

/** The valid body with the property at `path` (`['content', 'markdown']`) set to `leaf`, nested as the path says. */
function withNested(valid: [string, string][], path: string[], leaf: string): string {
  const [top, ...inner] = path;
  const value = inner.reduceRight((text, key) => `{${JSON.stringify(key)}:${text}}`, leaf);
  return objectText([...valid.filter(([k]) => k !== top), [top, value]]);
}

/** Keys to add or replace: the route's documented properties, inherited names, read-only fields, anything. */
const fieldName = (documented: string[]) =>
  fc.oneof(
    ...(documented.length ? [fc.constantFrom(...documented)] : []),
    fc.constantFrom(...PROTOTYPE_NAMES, 'id', 'workspace_id', 'created_at', ''),
    fc.string({ unit: 'binary', maxLength: 20 }),
  );

/** Builds object text by hand so `__proto__` stays an own key and duplicates stay duplicated. */
const objectText = (entries: [string, string][]) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

/**
 * The row's valid body with one thing changed: a field dropped, retyped,
 * replaced or duplicated, or another key added (often a documented property,
 * so bounded inputs such as `custom_fields` or `tags` meet their edge values),
 * or documented content (`markdown`, `blocks`, `design_json` at any depth)
 * set to costly or deeply nested content.
 */
function mutatedSeed(seed: Record<string, unknown>, documented: string[], content: string[][]): fc.Arbitrary<string> {
  const valid = Object.entries(seed).map(([k, v]) => [k, JSON.stringify(v)] as [string, string]);
  const fields = valid.map(([k]) => k);
  const options: fc.Arbitrary<string>[] = [fc.tuple(fieldName(documented), valueText).map(([k, v]) => objectText([...valid, [k, v]]))];
  if (content.length)
    options.push(fc.constantFrom(...content).chain((path) => contentValue(path[path.length - 1]).map((leaf) => withNested(valid, path, leaf))));
  if (fields.length) {
    options.push(
      fc.constantFrom(...fields).map((f) => objectText(valid.filter(([k]) => k !== f))),
      fc.tuple(fc.constantFrom(...fields), valueText).map(([f, v]) => objectText(valid.map(([k, old]) => [k, k === f ? v : old]))),
      fc.tuple(fc.constantFrom(...fields), valueText).map(([f, v]) => objectText([...valid, [f, v]])),
    );
  }
  return fc.oneof(...options);
}

/** Whole bodies that are not the object the route expects, or not JSON at all. */
const wrongBody: fc.Arbitrary<string> = fc.oneof(
  valueText,
  fc.dictionary(fieldName([]), fc.jsonValue(), { maxKeys: 5 }).map((o) => JSON.stringify(o)),
  fc.constantFrom(
    '{',
    '{"url":',
    "{'url':'https://example.com'}",
    '{"url":"https://example.com",}',
    'undefined',
    'NaN',
    '\u0000',
    '{"a":1}{"b":2}',
    '\ufeff{}',
    '{"url":"https://example.com"} trailing',
    'url=https%3A%2F%2Fexample.com',
    '<xml/>',
    '{"__proto__":{"isAdmin":true}}',
    '{"constructor":{"prototype":{"isAdmin":true}}}',
    '{"\\u0000":1}',
    '{"\\ud800":1}',
    'x'.repeat(1_000_001),
  ),
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/vnd.api+json',
      'APPLICATION/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/xml',
      '*/*',
      ';;',
      '',
    ),
  },
);

/** A path segment or query part as a client could put it on the wire (including broken percent-encoding). */
const urlPart = (arb: fc.Arbitrary<string>) =>
  arb.map((s) => {
    try {
      return encodeURIComponent(s);
    } catch {
      return '%ED%A0%80'; // a lone surrogate has no UTF-8 form; send its would-be bytes
    }
  });

const rawUrlGarbage = fc.constantFrom(
  '%',
  '%zz',
  '%E0%A4%A',
  '%00',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%2F',
  '..%2F..%2Fadmin',
  '%25%32%35',
  '+',
  ';',
  '%0A',
);

const pathId = fc.oneof(
  fc.uuid(),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.uuid().map((u) => `${u}x`),
  fc.constantFrom('00000000-0000-0000-0000-000000000000', 'x'.repeat(600), `${'0'.repeat(600)}`, 'null', 'undefined', '0', '-1', "1' OR '1'='1"),
  urlPart(fc.string({ unit: 'binary', minLength: 1, maxLength: 600 })),
  rawUrlGarbage,
);

const queryKey = fc.oneof(
  fc.constantFrom('limit', 'offset', 'filter', 'sort', 'search', 'status', 'contact_id', '__proto__', 'constructor', 'id'),
  urlPart(fc.string({ maxLength: 12 })),
);
const queryValue = fc.oneof(
  fc.constantFrom(
    '-1',
    '0',
    '1e308',
    '-0',
    'NaN',
    '0x10',
    '1.5',
    '',
    '500',
    '501',
    '99999999999999999999',
    '{',
    '[]',
    '{"a":',
    '{"$where":{"or":[]}}',
    'true',
  ),
  urlPart(fc.string({ unit: 'binary', maxLength: 50 })),
  urlPart(fc.jsonValue().map((v) => JSON.stringify(v))),
  rawUrlGarbage,
  fc.constant('a'.repeat(HUGE)),
);
/** Filters and sorts naming inherited properties, as fields, operators and custom field keys. */
const prototypeQuery = fc
  .constantFrom(...PROTOTYPE_NAMES)
  .chain((name) =>
    fc.constantFrom(
      `?filter=${encodeURIComponent(JSON.stringify({ [name]: 'x' }))}`,
      `?filter=${encodeURIComponent(JSON.stringify({ [name]: ['x'] }))}`,
      `?filter=${encodeURIComponent(JSON.stringify({ $where: { field: name, op: 'eq', value: 'x' } }))}`,
      `?filter=${encodeURIComponent(JSON.stringify({ [`$${name}`]: {} }))}`,
      `?filter=${encodeURIComponent(JSON.stringify({ [`custom_fields.${name}`]: 1 }))}`,
      `?sort=${encodeURIComponent(name)}`,
      `?sort=-${encodeURIComponent(name)}`,
      `?search=${encodeURIComponent(name)}`,
    ),
  );

/** Repeated keys on purpose: `?limit=1&limit=x`. */
const query = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: prototypeQuery },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.tuple(queryKey, queryValue), { minLength: 1, maxLength: 6 })
      .chain((pairs) => fc.constantFrom(pairs, [...pairs, ...pairs]))
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
  },
);

/**
 * Adversarial requests for one route; the route row's `body`, its documented
 * body properties and the paths of its documented content seed the mutations.
 */
export function requestsFor(route: RouteCase, documented: string[] = [], content: string[][] = []): fc.Arbitrary<FuzzRequest> {
  const names = placeholders(route.path);
  const ids = fc.tuple(...names.map((n) => (route.params?.[n] !== undefined ? fc.oneof(fc.constant(route.params[n]), pathId) : pathId)));
  const body: fc.Arbitrary<string | undefined> = takesBody(route)
    ? fc.oneof(
        { weight: 5, arbitrary: mutatedSeed(route.body ?? {}, documented, content) },
        { weight: 4, arbitrary: wrongBody },
        { weight: 1, arbitrary: fc.constantFrom(JSON.stringify(route.body ?? {}), '') },
      )
    : route.method === 'DELETE'
      ? fc.option(wrongBody, { nil: undefined, freq: 4 })
      : fc.constant(undefined);
  return fc.record({ ids, query, body, type: contentType }).map(({ ids: values, query: q, body: b, type }): FuzzRequest => {
    let i = 0;
    const path = route.path.replace(/\{[^}]+\}/g, () => values[i++]) + q;
    const headers: Record<string, string> = b === undefined || type === '' ? {} : { 'content-type': type };
    return { path, body: b, headers };
  });
}

/**
 * Values at and past the edges the API draws for any property: numbers beyond
 * a double, free-form objects past their depth and key bounds, name lists at
 * and past 200, inherited names as keys and as values.
 */
export const EDGE_VALUES = [
  '1e400',
  '-1e400',
  '[{"a":1e400}]',
  deepObject(5),
  deepObject(6),
  deepObject(3000),
  wideObject(100),
  wideObject(5000),
  names(13),
  names(200),
  names(201),
  '{"__proto__":"x","constructor":1,"toString":"y"}',
  '"constructor"',
  '"__proto__"',
];

/** Content at and past each content limit, by the documented property it goes in (JSON text). */
export const CONTENT_EDGES: Record<string, string[]> = {
  markdown: [
    `${'> '.repeat(17)}a`,
    `${'- '.repeat(5000)}a`,
    indentedList(17),
    '*a'.repeat(16_000),
    '*_'.repeat(1581),
    'p\n\n'.repeat(1001),
    'a\n'.repeat(3001),
  ].map((md) => JSON.stringify(md)),
  blocks: [
    dividers(1001),
    JSON.stringify([{ type: 'paragraph', text: `${'> '.repeat(5000)}a` }]),
    JSON.stringify([{ type: 'paragraph', text: '*a'.repeat(2237) }]),
  ],
  design_json: [`{"blocks":${dividers(1001)}}`, `{"blocks":${JSON.stringify([{ type: 'bullets', items: [`${'- '.repeat(17)}a`] }])}}`],
};

/**
 * The row's valid body with one documented property set to each edge value,
 * and each documented content property (at its path) to each content edge,
 * sent to `path`.
 */
export function edgeRequests(route: RouteCase, documented: string[], path: string, content: string[][] = []): FuzzRequest[] {
  const valid = Object.entries(route.body ?? {}).map(([k, v]) => [k, JSON.stringify(v)] as [string, string]);
  const request = (body: string): FuzzRequest => ({ path, headers: { 'content-type': 'application/json' }, body });
  return [
    ...documented.flatMap((property) =>
      EDGE_VALUES.map((value) => request(objectText([...valid.filter(([k]) => k !== property), [property, value]]))),
    ),
    ...content.flatMap((at) => (CONTENT_EDGES[at[at.length - 1]] ?? []).map((leaf) => request(withNested(valid, at, leaf)))),
  ];
}
