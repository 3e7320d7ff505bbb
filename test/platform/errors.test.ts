/// <reference types="vite/client" />
import { describe, expect, it } from 'vitest';
import { ENVELOPE_SURFACE, FRAMEWORK_SURFACE } from '../../src/platform/error-surfaces';
import { defineErrors, ENVELOPE_REQUEST_CODE, type ErrorDoc } from '../../src/platform/errors';
import { documentedOn, errorResponses } from '../../src/platform/openapi';
import { FeatureGateErrors, SharedErrors } from '../../src/platform/shared-errors';

const sources = Object.entries(
  import.meta.glob(['../../src/modules/**/*.ts', '../../src/admin/**/*.ts'], { query: '?raw', import: 'default', eager: true }) as Record<
    string,
    string
  >,
).map(([path, text]) => [path.replace('../../', ''), text] as const);
const isCatalogue = (path: string) => path.endsWith('/errors.ts');
const platformSources = Object.entries(
  import.meta.glob(['../../src/platform/**/*.ts'], { query: '?raw', import: 'default', eager: true }) as Record<string, string>,
).map(([path, text]) => [path.replace('../../', ''), text] as const);

describe('error catalogues', () => {
  it('are where errors are made: no module or operator file builds an error body of its own', () => {
    expect(sources.length).toBeGreaterThan(100);
    const builders = /\b(httpError|codedError|domainError|badRequest)\(|new ApiError\(/;
    for (const [path, text] of sources) {
      if (isCatalogue(path)) continue;
      const found = text.split('\n').findIndex((line) => builders.test(line));
      expect(found, `${path}:${found + 1} builds an error outside a catalogue`).toBe(-1);
    }
  });

  it('are declared only in errors.ts files', () => {
    const declaring = sources.filter(([, text]) => /\bdefineErrors\(/.test(text)).map(([path]) => path);
    expect(declaring.length).toBeGreaterThan(15);
    for (const path of declaring) expect(isCatalogue(path), path).toBe(true);
  });
});

describe('route declarations', () => {
  it('keep their descriptions in lines of at most 200 characters: errors are listed by the catalogue, not in prose', () => {
    const declarations = sources.filter(([path]) => /\/(routes|[\w-]+-routes|page-docs|public)\.ts$/.test(path));
    expect(declarations.length).toBeGreaterThan(20);
    for (const [path, text] of declarations) {
      text.split('\n').forEach((line, i) => {
        if (/^\s*(description: )?['"`]/.test(line)) expect(line.length, `${path}:${i + 1}`).toBeLessThanOrEqual(200);
      });
    }
  });
});

describe('defineErrors', () => {
  const Framework = defineErrors('Framework', {
    plain: { status: 404, message: 'Deal not found' },
    coded: { status: 403, code: 'PLAN_LIMIT_EXCEEDED', kind: 'platform', message: 'Deal limit reached: your plan allows max_deals {cap}' },
    merge: { status: 409, code: 'CONTACT_MERGE_REQUIRED', message: 'Held.', fields: ['merge_request_id'] },
    field: { status: 400, message: 'phone must be a valid phone number', list: true },
    problems: { status: 400, message: '{problems}', list: true },
    retry: { status: 409, code: 'IN_USE', message: 'Busy', headers: { 'Retry-After': '1' } },
    literal: { status: 503, message: 'Open one (PATCH /shards/{{binding}}) for {name}' },
  });
  const Domain = defineErrors('Domain', {
    missing: { status: 404, code: 'product_not_found', message: 'Product not found' },
    limit: {
      status: 403,
      code: 'PLAN_LIMIT_EXCEEDED',
      message: 'Newsletter limit reached: your plan allows max_newsletters {cap}',
      kind: 'platform',
    },
  });

  it('builds the framework shape, key for key in the contract order', () => {
    expect(JSON.stringify(Framework.plain().bodyOn(FRAMEWORK_SURFACE))).toBe('{"statusCode":404,"message":"Deal not found","error":"Not Found"}');
    expect(JSON.stringify(Framework.coded({ cap: 5 }).bodyOn(FRAMEWORK_SURFACE))).toBe(
      '{"statusCode":403,"message":"Deal limit reached: your plan allows max_deals 5","error":"Forbidden","error_code":"PLAN_LIMIT_EXCEEDED"}',
    );
    expect(JSON.stringify(Framework.merge({ merge_request_id: 'm1' }).bodyOn(FRAMEWORK_SURFACE))).toBe(
      '{"statusCode":409,"message":"Held.","error":"Conflict","error_code":"CONTACT_MERGE_REQUIRED","merge_request_id":"m1"}',
    );
  });

  it('answers list messages as arrays: one rendered string, or the problems as given', () => {
    expect(Framework.field().bodyOn(FRAMEWORK_SURFACE).message).toEqual(['phone must be a valid phone number']);
    expect(Framework.problems({ problems: ['a: x', 'b: y'] }).bodyOn(FRAMEWORK_SURFACE).message).toEqual(['a: x', 'b: y']);
    expect(Framework.problems({ problems: 'only one' }).bodyOn(FRAMEWORK_SURFACE).message).toEqual(['only one']);
  });

  it('fills values, keeps `{{name}}` as text, and gives each error its own copy of the headers', () => {
    expect(Framework.literal({ name: 'SHARD_9' }).bodyOn(FRAMEWORK_SURFACE).message).toBe('Open one (PATCH /shards/{binding}) for SHARD_9');
    const first = Framework.retry();
    first.headers['Retry-After'] = '9';
    expect(Framework.retry().headers).toEqual({ 'Retry-After': '1' });
  });

  it('builds the domain envelope, and the framework shape for an entry every router answers so', () => {
    expect(Domain.missing().bodyOn(ENVELOPE_SURFACE)).toEqual({ error: { code: 'product_not_found', message: 'Product not found' } });
    expect(Domain.limit({ cap: 2 }).bodyOn(ENVELOPE_SURFACE)).toMatchObject({
      statusCode: 403,
      error_code: 'PLAN_LIMIT_EXCEEDED',
      message: 'Newsletter limit reached: your plan allows max_newsletters 2',
    });
    expect(FeatureGateErrors.notIncluded({ feature: 'deals' }).bodyOn(ENVELOPE_SURFACE)).toEqual({
      message: 'Your plan does not include the deals feature. Upgrade your plan to use this endpoint.',
      error_code: 'FEATURE_NOT_INCLUDED_IN_PLAN',
    });
  });

  it('refuses a feature-gate entry without a code', () => {
    expect(() => defineErrors('Gate', { nameless: { status: 403, message: 'Gone', kind: 'feature-gate' } })).toThrow(/needs a code/);
  });

  it('documents each entry: the status, its schema by shape, codes and messages in backticks', () => {
    const responses = errorResponses(documentedOn(ENVELOPE_SURFACE, [Framework.plain, Domain.missing, Framework.coded, Framework.retry])) as Record<
      number,
      { description: string; content: Record<string, { schema: unknown }> }
    >;
    expect(Object.keys(responses).map(Number)).toEqual([400, 401, 403, 404, 409, 413, 415, 429]);
    expect(responses[404].description).toBe('Framework shape: `Deal not found`. Domain envelope: `product_not_found`: `Product not found`.');
    expect(responses[403].description).toBe(
      'Plan without API access, or the plan lacks the feature (`FEATURE_NOT_INCLUDED_IN_PLAN`); or `PLAN_LIMIT_EXCEEDED`: `Deal limit reached: your plan allows max_deals <cap>`',
    );
    expect(responses[409].description).toBe('`IN_USE`: `Busy` (see `Retry-After`)');
    expect(responses[400].description).toBe('Validation failure, unknown body property, non-UUID path id or malformed query');
  });
});

describe('the one catalogue', () => {
  const catalogues = Object.entries(
    import.meta.glob(['../../src/modules/**/errors.ts', '../../src/admin/errors.ts', '../../src/platform/shared-errors.ts'], {
      query: '?raw',
      import: 'default',
      eager: true,
    }) as Record<string, string>,
  ).map(([path, text]) => [path.replace('../../', ''), text] as const);

  it('declares each code once, with one status: a code the contract answers with several messages names them as variants', () => {
    expect(catalogues.length).toBeGreaterThan(15);
    const where = new Map<string, string[]>([[ENVELOPE_REQUEST_CODE, ['src/platform/errors.ts']]]);
    for (const [path, text] of catalogues)
      for (const [, code] of text.matchAll(/\bcode: '([^']+)'/g)) where.set(code, [...(where.get(code) ?? []), path]);
    const twice = [...where].filter(([, paths]) => paths.length > 1);
    expect(twice, twice.map(([code, paths]) => `${code}: ${paths.join(', ')}`).join('; ')).toEqual([]);
  });

  it('leaves the shape to the surface: no catalogue names one', () => {
    for (const [path, text] of catalogues) expect(/defineErrors\('(framework|domain|feature-gate)'/.test(text), path).toBe(false);
  });

  it('keeps in SharedErrors only what every router shares: no record of a module', () => {
    const entries = Object.values(SharedErrors) as unknown as (ErrorDoc | Record<string, ErrorDoc>)[];
    for (const entry of entries.flatMap((e): ErrorDoc[] => ('declaredAs' in e ? [e as ErrorDoc] : Object.values(e))))
      expect(entry.kind, entry.declaredAs).not.toBe('own');
  });
});

describe('what a route documents', () => {
  const lists = /errors: \[([^\]]*)\]|export const \w+_ERRORS = \[([^\]]*)\]/g;
  const reference = /\b[A-Z]\w*Errors(?:\.\w+){1,2}\b/g;

  it('is thrown somewhere: every entry a route lists is made outside the lists that document it', () => {
    const everything = [...sources, ...platformSources];
    const made = new Set(everything.flatMap(([, text]) => text.replace(lists, '').match(reference) ?? []));
    const documented = everything.flatMap(([path, text]) =>
      [...text.matchAll(lists)].flatMap((m) => ((m[1] ?? m[2]).match(reference) ?? []).map((name) => `${path}: ${name}`)),
    );
    expect(documented.length).toBeGreaterThan(150);
    expect(documented.filter((line) => !made.has(line.split(': ')[1]))).toEqual([]);
  });
});
