import { exports } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { payerLocale } from '../../src/modules/payment-requests/page';
import { rowsIn } from '../support/db';
import { makeWorkspace } from '../support/harness';
import { mint, openPage, payPath } from './helpers';

/** The page as a browser sending this `Accept-Language` gets it. */
async function pageIn(payUrl: string, acceptLanguage?: string) {
  const res: Response = await (exports as any).default.fetch(
    new Request(`https://api.test${payPath(payUrl)}`, { headers: acceptLanguage ? { 'accept-language': acceptLanguage } : {} }),
  );
  return { status: res.status, html: await res.text() };
}

describe('the pay page says who is paid, marks test mode and dates things in the payer locale', () => {
  it('names the payee: the workspace', async () => {
    const ws = await makeWorkspace({ name: 'Atelier <Nord>' });
    const r = await mint(ws, { title: 'Workshop seat' });
    const { html } = await pageIn(r.pay_url);
    expect(html).toContain('Payment to <strong>Atelier &#60;Nord&#62;</strong>');
    expect(html).toMatch(/<html lang="en">/);
  });

  it('a sandbox link carries a visible Test mode badge even without test_mode; a real provider link without test_mode does not', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws, { test_mode: false });
    expect(r.provider).toBe('sandbox');
    expect((await pageIn(r.pay_url)).html).toContain('<strong class="badge">Test mode</strong>');
    // The same link as a real provider's, paid (a pending one redirects to the provider's checkout).
    await rowsIn(
      ws.id,
      "UPDATE payment_requests SET provider = 'stripe', status = 'paid', paid_at = ?2 WHERE id = ?1 RETURNING id",
      r.id,
      new Date().toISOString(),
    );
    const paid = await pageIn(r.pay_url);
    expect(paid.html).toContain('Paid on');
    expect(paid.html).not.toContain('Test mode');
  });

  it('dates follow Accept-Language (de-DE), in the workspace zone, readable, never raw GMT; no header means en', async () => {
    const ws = await makeWorkspace({ timezone: 'Europe/Berlin' });
    const expires = '2031-03-05T17:30:00.000Z';
    const r = await mint(ws, { expires_at: expires });
    const de = await pageIn(r.pay_url, 'de-DE,de;q=0.9,en;q=0.8');
    expect(de.html).toContain(`<time datetime="${expires}" lang="de-DE">5. März 2031 um 18:30 MEZ</time>`);
    expect(de.html).not.toContain('GMT');
    const en = (await openPage(r.pay_url)).body as string;
    expect(en).toContain(`<time datetime="${expires}">March 5, 2031 at 6:30 PM GMT+1</time>`);
  });

  it('picks the first supported language by weight and falls back to en', () => {
    expect(payerLocale('fr-CH;q=0.5, de-DE;q=0.9')).toBe('de-DE');
    expect(payerLocale('*')).toBe('en');
    expect(payerLocale('not a tag!!, nl')).toBe('nl');
    expect(payerLocale(undefined)).toBe('en');
    expect(payerLocale('')).toBe('en');
  });
});
