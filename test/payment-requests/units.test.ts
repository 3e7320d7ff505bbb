import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mintToken, payUrlFor, tokenWorkspace } from '../../src/modules/payment-requests/pay-link';
import { openUrl } from '../../src/modules/payment-requests/documents';
import { formEncode } from '../../src/providers/payments/stripe';

describe('pay-link tokens', () => {
  it('name their workspace, are 54 url-safe characters and never repeat', () => {
    fc.assert(
      fc.property(fc.uuid(), (ws) => {
        const a = mintToken(ws);
        const b = mintToken(ws);
        expect(a).toMatch(/^[A-Za-z0-9_-]{54}$/);
        expect(tokenWorkspace(a)).toBe(ws.toLowerCase());
        expect(a).not.toBe(b);
        expect(payUrlFor('https://x.example/', a)).toBe(`https://x.example/pay/${a}`);
      }),
    );
  });

  it('anything that is not a token names no workspace', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 80 }).filter((s) => s.length !== 54),
        (s) => {
          expect(tokenWorkspace(s)).toBeNull();
        },
      ),
    );
    expect(tokenWorkspace('!'.repeat(54))).toBeNull();
  });
});

describe('Stripe form encoding', () => {
  it('flattens nested objects and arrays into bracketed keys that decode back to the values', () => {
    const key = fc.stringMatching(/^[a-z_]{1,8}$/);
    fc.assert(
      fc.property(fc.dictionary(key, fc.dictionary(key, fc.oneof(fc.string(), fc.integer()), { maxKeys: 3 }), { maxKeys: 3 }), (obj) => {
        const decoded = new URLSearchParams(formEncode(obj));
        for (const [k, inner] of Object.entries(obj)) for (const [k2, v] of Object.entries(inner)) expect(decoded.get(`${k}[${k2}]`)).toBe(String(v));
      }),
    );
    expect(formEncode({ a: [{ b: 1 }], c: null, d: undefined })).toBe('a%5B0%5D%5Bb%5D=1');
  });
});

describe('document urls', () => {
  it('keeps only open http(s) urls', () => {
    expect(openUrl('https://files.example.com/a.pdf')).toBe('https://files.example.com/a.pdf');
    expect(openUrl('http://files.example.com/a')).toBe('http://files.example.com/a');
    for (const bad of ['javascript:alert(1)', 'ftp://x.example/a', 'data:text/html,hi', 'https://user:pw@x.example/a', 'not a url', '', 42, null])
      expect(openUrl(bad)).toBeNull();
  });
});
