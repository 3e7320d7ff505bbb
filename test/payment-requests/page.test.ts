import { describe, expect, it } from 'vitest';
import { admin, makeWorkspace } from '../support/harness';
import { backdate, mint, openPage, page, requestEvents } from './helpers';

describe('the hosted page /pay/{token}', () => {
  it('shows a pending sandbox link with title, amount, currency and a Pay button that works without JavaScript', async () => {
    const ws = await makeWorkspace({ currency: 'EUR' });
    const r = await mint(ws, { title: 'Workshop <seat>', amount: 1234.5 });
    const res = await openPage(r.pay_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toContain('Workshop &#60;seat&#62;');
    expect(res.body).toContain('€1,234.50');
    expect(res.body).toContain('EUR');
    expect(res.body).toMatch(/<form method="post"><button type="submit">Pay/);
    expect(res.body).not.toContain('<script');
    expect(res.body).not.toMatch(/https?:\/\/(?!api\.test)/);
    // Opening a pending link changes nothing.
    expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).body.status).toBe('pending');
  });

  it('Pay pays and redirects back to the page, which then shows it paid', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws, { test_mode: true });
    expect((await openPage(r.pay_url)).body).toContain('Test mode');
    const pay = await page('POST', r.pay_url);
    expect(pay.status).toBe(303);
    expect(pay.headers.get('location')).toBe(new URL(r.pay_url).pathname);
    const after = await openPage(r.pay_url);
    expect(after.body).toContain('Paid on');
    expect(after.body).not.toContain('<button');
  });

  it('a pending link past expires_at is expired right there, once, and the page says so', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    await backdate(ws.id, r.id);
    const first = await openPage(r.pay_url);
    expect(first.status).toBe(200);
    expect(first.body).toContain('This payment link has expired.');
    expect(first.body).not.toContain('<button');
    await openPage(r.pay_url);
    expect((await requestEvents(ws.id, r.id)).map((e) => e.type)).toEqual(['payment_request.created', 'payment_request.expired']);
    expect((await ws.api('GET', `/v1/payment-requests/${r.id}`)).body.status).toBe('expired');
  });

  it('a cancelled link shows its state', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    await ws.api('POST', `/v1/payment-requests/${r.id}/cancel`, {});
    const res = await openPage(r.pay_url);
    expect(res.body).toContain('This payment link was cancelled.');
    expect(res.body).not.toContain('<button');
  });

  it('an unknown or altered token is a 404 page, never another link', async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws);
    const token = new URL(r.pay_url).pathname.split('/').pop()!;
    const altered = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    for (const path of [`/pay/${altered}`, '/pay/nope', `/pay/${r.id}`]) {
      const res = await page('GET', `https://api.test${path}`);
      expect(res.status, path).toBe(404);
      expect(res.body).toContain('Payment link not found');
      expect((await page('POST', `https://api.test${path}`)).status).toBe(404);
    }
    expect((await admin('GET', `/workspaces/${ws.id}`)).status).toBe(200);
  });
});
