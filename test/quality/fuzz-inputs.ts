import fc from 'fast-check';
import { placeholders, takesBody, type RouteCase } from '../support/routes';

/** One adversarial request against a route: what the client sends, byte for byte. */
export type FuzzRequest = { path: string; headers: Record<string, string>; body?: string };

const DEPTH = 5000;
const HUGE = 100_000;

/** Raw JSON text of a field value: every kind of wrong the wire can carry. */
const valueText: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)),
  fc.constantFrom(
    'null', 'true', 'false', '[]', '{}', '0', '-0', '-1', '1.5', '1e308', '-1e308', '1e309', '-1e309', '4.9e-324',
    '9007199254740993', '2147483648', '"NaN"', '"Infinity"', '"-0"', '"1e308"', '""', '" "',
    '"\\ud800"', '"\\udfff tail"', '"\\u0000"', '"a\\u0000b"', JSON.stringify('\u202eevil\u202c'), JSON.stringify('😀𝔘𐍈'),
    JSON.stringify('مرحبا'), JSON.stringify('\ufeff'), '["\\ud83d"]', '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}', '[{"url":"https://example.com/hooks"}]',
    '"javascript:alert(1)"', '"file:///etc/passwd"', '"https://127.0.0.1/"', '"http://[::1]/"', '"http://0x7f.1/"',
    '"https://user:pass@example.com/"', '"https://exa mple.com/"', '"https://example.com:99999/"', '"https://xn--/"',
    '"00000000-0000-0000-0000-000000000000"', '"ffffffff-ffff-ffff-ffff-ffffffffffff"',
  ),
  fc.constantFrom(
    JSON.stringify('a'.repeat(HUGE)),
    JSON.stringify('é'.repeat(HUGE)),
    JSON.stringify(`https://example.com/${'a'.repeat(HUGE)}`),
    '['.repeat(DEPTH) + ']'.repeat(DEPTH),
    '{"a":'.repeat(DEPTH) + '1' + '}'.repeat(DEPTH),
  ),
);

const fieldName = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'id', 'workspace_id', 'created_at', ''),
  fc.string({ unit: 'binary', maxLength: 20 }),
);

/** Builds object text by hand so `__proto__` stays an own key and duplicates stay duplicated. */
const objectText = (entries: [string, string][]) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

/** The row's valid body with exactly one thing wrong: a field dropped, retyped, replaced, duplicated or an extra key. */
function mutatedSeed(seed: Record<string, unknown>): fc.Arbitrary<string> {
  const valid = Object.entries(seed).map(([k, v]) => [k, JSON.stringify(v)] as [string, string]);
  const fields = valid.map(([k]) => k);
  const options: fc.Arbitrary<string>[] = [
    fc.tuple(fieldName, valueText).map(([k, v]) => objectText([...valid, [k, v]])),
  ];
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
  fc.dictionary(fieldName, fc.jsonValue(), { maxKeys: 5 }).map((o) => JSON.stringify(o)),
  fc.constantFrom(
    '{', '{"url":', "{'url':'https://example.com'}", '{"url":"https://example.com",}', 'undefined', 'NaN', '\u0000',
    '{"a":1}{"b":2}', '\ufeff{}', '{"url":"https://example.com"} trailing', 'url=https%3A%2F%2Fexample.com', '<xml/>',
    '{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"isAdmin":true}}}', '{"\\u0000":1}', '{"\\ud800":1}',
    'x'.repeat(1_000_001),
  ),
);

const contentType = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/vnd.api+json', 'APPLICATION/JSON',
      'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', '*/*', ';;',
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

const rawUrlGarbage = fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '%ED%A0%80', '%F0%9F%98%80', '%2F', '..%2F..%2Fadmin', '%25%32%35', '+', ';', '%0A');

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
  fc.constantFrom('-1', '0', '1e308', '-0', 'NaN', '0x10', '1.5', '', '500', '501', '99999999999999999999', '{', '[]', '{"a":', '{"$where":{"or":[]}}', 'true'),
  urlPart(fc.string({ unit: 'binary', maxLength: 50 })),
  urlPart(fc.jsonValue().map((v) => JSON.stringify(v))),
  rawUrlGarbage,
  fc.constant('a'.repeat(HUGE)),
);
/** Repeated keys on purpose: `?limit=1&limit=x`. */
const query = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.tuple(queryKey, queryValue), { minLength: 1, maxLength: 6 })
      .chain((pairs) => fc.constantFrom(pairs, [...pairs, ...pairs]))
      .map((pairs) => `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
  },
);

/** Adversarial requests for one route; the route row's `body` seeds the mutations. */
export function requestsFor(route: RouteCase): fc.Arbitrary<FuzzRequest> {
  const names = placeholders(route.path);
  const ids = fc.tuple(...names.map((n) => (route.params?.[n] !== undefined ? fc.oneof(fc.constant(route.params[n]), pathId) : pathId)));
  const body: fc.Arbitrary<string | undefined> = takesBody(route)
    ? fc.oneof(
        { weight: 5, arbitrary: mutatedSeed(route.body ?? {}) },
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
