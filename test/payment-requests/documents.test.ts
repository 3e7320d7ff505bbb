import { afterEach, describe, expect, it, vi } from 'vitest';
import { admin, makeWorkspace } from '../support/harness';
import { rowsIn } from '../support/db';
import { appWith, freshPhone, mint } from './helpers';

const docs = (ws: { api: (m: string, p: string) => Promise<any> }, contactId: string, query = '') =>
  ws.api('GET', `/v1/contacts/${contactId}/documents${query}`);

const pointer = (id: string, extra: Record<string, unknown> = {}) => ({
  provider: 'stripe',
  id,
  number: `N-${id}`,
  type: 'tax_invoice',
  url: `https://files.example.com/${id}.pdf`,
  ...extra,
});

async function contactWithDocuments() {
  const ws = await makeWorkspace();
  const contact = (await ws.api('POST', '/v1/contacts', { phone: freshPhone() })).body;
  const pay = (body: Record<string, unknown>) => ws.api('POST', '/v1/payments', { type: 'one_time', contact_id: contact.id, ...body });
  // Two payments pointing at the same provider document: one document with both sources.
  const p1 = (await pay({ amount: 100, purchase_date: '2026-03-01T10:00:00Z', metadata: { document: pointer('in_1') } })).body;
  const p2 = (await pay({ amount: 100, purchase_date: '2026-02-01T10:00:00Z', metadata: { document: pointer('in_1', { url: null }) } })).body;
  // A provider label outside the kinds, and unsafe URLs.
  const p3 = (
    await pay({
      amount: 5,
      purchase_date: '2026-01-01T10:00:00Z',
      metadata: { document: pointer('x_9', { type: 'Rechnung', url: 'javascript:alert(1)' }) },
    })
  ).body;
  const p4 = (
    await pay({
      amount: 6,
      purchase_date: '2025-12-01T10:00:00Z',
      metadata: { document: pointer('x_10', { type: 'receipt', url: 'ftp://files.example.com/a' }) },
    })
  ).body;
  // Not documents: a string, an object without id or number.
  await pay({ amount: 7, metadata: { document: 'in_1' } });
  await pay({ amount: 8, metadata: { document: { provider: 'stripe' } } });
  // A refund entry with a credit document (written by the application).
  const refunded = (await ws.api('POST', `/v1/payments/${p3.id}/refund`, { amount: 2 })).body;
  const refundEntry = refunded.entries.find((e: { kind: string }) => e.kind === 'refund');
  await rowsIn(
    ws.id,
    'UPDATE payment_entries SET credit_document = ?2 WHERE id = ?1 RETURNING id',
    refundEntry.id,
    JSON.stringify(pointer('cn_1', { type: 'credit_invoice' })),
  );
  return { ws, contact, p1, p2, p3, p4, refundEntry };
}

describe('GET /v1/contacts/{id}/documents (stored)', () => {
  it('aggregates payment, refund-entry and payment-request pointers, deduplicated by provider document id', async () => {
    const { ws, contact, p1, p2, p3, p4, refundEntry } = await contactWithDocuments();
    const res = await docs(ws, contact.id);
    expect(res.status).toBe(200);
    expect(res.body.live).toEqual({ attempted: false, ok: null, complete: null, error: null });
    const byId = Object.fromEntries(res.body.documents.map((d: any) => [d.documentId, d]));
    expect(Object.keys(byId).sort()).toEqual(['cn_1', 'in_1', 'x_10', 'x_9']);
    expect(byId.in_1).toMatchObject({
      kind: 'tax_invoice',
      rawType: 'tax_invoice',
      isCredit: false,
      provider: 'stripe',
      number: 'N-in_1',
      url: 'https://files.example.com/in_1.pdf',
      date: p1.purchase_date,
      amount: 100,
      currency: 'USD',
      origin: 'stored',
      sources: [
        { type: 'contact_payment', id: p1.id },
        { type: 'contact_payment', id: p2.id },
      ],
    });
    expect(byId.x_9).toMatchObject({ kind: null, rawType: 'Rechnung', url: null, sources: [{ type: 'contact_payment', id: p3.id }] });
    expect(byId.x_10).toMatchObject({ kind: 'receipt', url: null, sources: [{ type: 'contact_payment', id: p4.id }] });
    expect(byId.cn_1).toMatchObject({
      kind: 'credit_invoice',
      isCredit: true,
      amount: -2,
      date: refundEntry.created_at,
      sources: [{ type: 'payment_entry', id: refundEntry.id, paymentId: p3.id }],
    });
    // Date descending, nulls last; keys stable across calls.
    const dates = res.body.documents.map((d: any) => d.date);
    expect(dates).toEqual([...dates].sort().reverse());
    const again = await docs(ws, contact.id, '?live=false');
    expect(again.body).toEqual(res.body);
    expect(new Set(res.body.documents.map((d: any) => d.key)).size).toBe(4);
  });

  it("includes a paid link's receipt once, sourced from both the link and its ledger payment", async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws, { amount: 30 });
    await admin('POST', `/payment-requests/${r.id}/complete`);
    const paid = (await ws.api('GET', `/v1/payment-requests/${r.id}`)).body;
    const res = await docs(ws, r.contact_id);
    expect(res.body.documents).toEqual([
      {
        key: expect.any(String),
        kind: 'receipt',
        rawType: 'receipt',
        isCredit: false,
        provider: 'sandbox',
        documentId: `sbx_rcpt_${r.id}`,
        number: expect.stringMatching(/^SBX-/),
        url: r.pay_url,
        date: expect.any(String),
        amount: 30,
        currency: 'USD',
        origin: 'stored',
        sources: [
          { type: 'contact_payment', id: paid.contact_payment_id },
          { type: 'payment_request', id: r.id },
        ],
      },
    ]);
  });

  it('answers 400 for a live value other than true/false and 404 for unknown or foreign contacts', async () => {
    const { ws, contact } = await contactWithDocuments();
    for (const v of ['yes', '1', 'TRUE', '']) {
      const res = await docs(ws, contact.id, `?live=${v}`);
      expect(res.status, v).toBe(400);
      expect(res.body.message).toBe('Invalid live: must be true or false');
    }
    const unknown = '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c';
    expect((await docs(ws, unknown)).body).toMatchObject({ statusCode: 404, message: `contacts with ID ${unknown} not found` });
    const other = await makeWorkspace();
    expect((await docs(other, contact.id)).body).toMatchObject({ statusCode: 404, message: `contacts with ID ${contact.id} not found` });
  });
});

describe('GET /v1/contacts/{id}/documents?live=true', () => {
  afterEach(() => vi.restoreAllMocks());

  it("merges the sandbox provider's deterministic listing: merged receipts, a live-only statement with its raw label, nulls last", async () => {
    const ws = await makeWorkspace();
    const r = await mint(ws, { amount: 30 });
    await admin('POST', `/payment-requests/${r.id}/complete`);
    const res = await docs(ws, r.contact_id, '?live=true');
    expect(res.status).toBe(200);
    expect(res.body.live).toEqual({ attempted: true, ok: true, complete: true, error: null });
    expect(res.body.documents).toHaveLength(2);
    const [receipt, statement] = res.body.documents;
    expect(receipt).toMatchObject({
      documentId: `sbx_rcpt_${r.id}`,
      origin: 'merged',
      sources: [
        { type: 'contact_payment', id: expect.any(String) },
        { type: 'payment_request', id: r.id },
        { type: 'provider', provider: 'sandbox' },
      ],
    });
    expect(statement).toMatchObject({
      documentId: `sbx_stmt_${r.contact_id}`,
      kind: null,
      rawType: 'account_statement',
      origin: 'live',
      date: null,
      sources: [{ type: 'provider', provider: 'sandbox' }],
    });
    // The merged document keeps its key.
    const stored = (await docs(ws, r.contact_id)).body.documents[0];
    expect(receipt.key).toBe(stored.key);
  });

  it('a workspace without hosted payments has no provider: an empty live listing', async () => {
    const ws = await makeWorkspace({ features: ['payments'] });
    const contact = (await ws.api('POST', '/v1/contacts', { phone: freshPhone() })).body;
    const res = await docs(ws, contact.id, '?live=true');
    expect(res.body).toEqual({ documents: [], live: { attempted: true, ok: true, complete: true, error: null } });
  });

  it('a failing provider degrades to the stored listing with live.error provider_error', async () => {
    const { ws, contact } = await contactWithDocuments();
    vi.spyOn(globalThis, 'fetch').mockImplementation(
      async () => new Response(JSON.stringify({ error: { type: 'api_error', message: 'boom' } }), { status: 500 }),
    );
    const call = appWith({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' });
    const res = await call('GET', `/v1/contacts/${contact.id}/documents?live=true`, { key: ws.key, ip: ws.ip });
    expect(res.status).toBe(200);
    expect(res.body.live).toEqual({ attempted: true, ok: false, complete: false, error: 'provider_error' });
    expect(res.body.documents).toHaveLength(4);
  });

  it('a provider slower than 2.5 s degrades to the stored listing with live.error timeout', async () => {
    const { ws, contact } = await contactWithDocuments();
    vi.spyOn(globalThis, 'fetch').mockImplementation(
      (_input, init) => new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')))),
    );
    const call = appWith({ PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_x' });
    // The provider never answers: only the route's own time limit can end this request.
    const res = await call('GET', `/v1/contacts/${contact.id}/documents?live=true`, { key: ws.key, ip: ws.ip });
    expect(res.body.live).toEqual({ attempted: true, ok: false, complete: false, error: 'timeout' });
    expect(res.body.documents).toHaveLength(4);
  });
});
