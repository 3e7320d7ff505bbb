import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyValues } from '../../src/modules/whatsapp/compose';
import { fill, placeholderProblem, placeholdersOf } from '../../src/modules/whatsapp/placeholders';
import { personalize, variableProblems } from '../../src/modules/whatsapp/variables';

const word = fc.stringMatching(/^[A-Za-z ,.!]{0,12}$/);
const value = fc.stringMatching(/^[A-Za-z0-9 ]{1,12}$/);

describe('placeholders (property-based)', () => {
  it('positional values fill exactly the placeholders; a short list names each missing one, a long one each extra', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.array(value, { maxLength: 10 }),
        fc.array(word, { minLength: 9, maxLength: 9 }),
        (n, values, glue) => {
          const body = glue
            .slice(0, n + 1)
            .map((g, i) => (i < n ? `${g}{{${i + 1}}}` : g))
            .join('');
          expect(placeholderProblem('body', body)).toBeNull();
          const names = placeholdersOf(body);
          expect(names).toEqual(Array.from({ length: n }, (_, i) => String(i + 1)));
          const problems: string[] = [];
          const filled = bodyValues(
            names,
            values.map((text) => ({ text })),
            problems,
          );
          if (values.length === n) {
            expect(problems).toEqual([]);
            expect(fill(body, filled)).not.toMatch(/\{\{\d+\}\}/);
          } else if (values.length < n) {
            expect(problems).toEqual(names.slice(values.length).map((name) => `body_variables: missing a value for placeholder {{${name}}}`));
          } else {
            expect(problems).toHaveLength(values.length - n);
          }
        },
      ),
    );
  });

  it('named values land on their placeholder whatever the order they are sent in', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,8}$/), { minLength: 1, maxLength: 6 }),
        fc.infiniteStream(value),
        (names, texts) => {
          const body = names.map((n) => `<{{${n}}}>`).join(' ');
          const vars = names.map((n) => ({ param_name: n, text: `${n}=${texts.next().value}` })).reverse();
          const problems: string[] = [];
          const filled = bodyValues(placeholdersOf(body), vars, problems);
          expect(problems).toEqual([]);
          for (const n of names) expect(fill(body, filled)).toContain(`<${filled[n]}>`);
          expect(Object.keys(filled).every((n) => filled[n].startsWith(`${n}=`))).toBe(true);
        },
      ),
    );
  });

  it('campaign variables: contact fields with fallbacks; empty results are reported, never sent', () => {
    const contact = {
      id: 'c',
      phone: '+1',
      block_state: 'none',
      whatsapp_consent_state: 'subscribed',
      custom_fields: '{"plan":"pro","n":3}',
      name: null,
      first_name: 'Ada',
      last_name: null,
      email: null,
      company_name: null,
      job_title: null,
      city: null,
      country: null,
      language: null,
    };
    expect(variableProblems({ '1': '{{contact.first_name}}', '2': 'x' }, ['1', '2'])).toEqual([]);
    expect(variableProblems({ '1': '{{contact.secret}}' }, ['1'])[0]).toMatch(/unknown contact field "secret"/);
    const out = personalize(
      {
        a: 'Hi {{contact.first_name}}',
        b: '{{contact.last_name|friend}}',
        c: '{{ contact.custom_fields.plan }}/{{contact.custom_fields.n}}',
        d: '{{contact.city}}',
      },
      contact as never,
    );
    expect(out.values).toEqual({ a: 'Hi Ada', b: 'friend', c: 'pro/3', d: '' });
    expect(out.empty).toEqual(['d']);
  });

  it('campaign variables: placeholder and custom field names like inherited object properties are plain names', () => {
    const contact = {
      id: 'c',
      phone: '+1',
      block_state: 'none',
      whatsapp_consent_state: 'subscribed',
      custom_fields: '{"constructor":"kept"}',
      name: null,
      first_name: 'Ada',
      last_name: null,
      email: null,
      company_name: null,
      job_title: null,
      city: null,
      country: null,
      language: null,
    };
    const variables = JSON.parse(
      '{"__proto__":"{{contact.custom_fields.__proto__|none}}","constructor":"{{contact.custom_fields.constructor}}","prototype":"{{contact.custom_fields.toString|none}}"}',
    );
    expect(variableProblems(variables, ['__proto__', 'constructor', 'prototype'])).toEqual([]);
    const out = personalize(variables, contact as never);
    expect(Object.keys(out.values)).toEqual(['__proto__', 'constructor', 'prototype']);
    expect(out.values).toEqual(JSON.parse('{"__proto__":"none","constructor":"kept","prototype":"none"}'));
    expect(fill('{{__proto__}} {{constructor}} {{prototype}}', out.values)).toBe('none kept none');
  });
});
