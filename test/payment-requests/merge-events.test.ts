import { describe, expect, it } from 'vitest';
import { admin, makeWorkspace } from '../support/harness';
import { expectFromOutbox, outbox, subscribed, useReceiver } from '../events/support';
import { freshPhone, mint } from './helpers';

describe('payment requests are contact-owned', () => {
  it("a contact merge re-keys the absorbed contact's payment requests to the surviving contact", async () => {
    const ws = await makeWorkspace();
    const phone = freshPhone();
    const email = `${crypto.randomUUID().slice(0, 8)}@example.com`;
    const a = (await ws.api('POST', '/v1/contacts', { phone })).body;
    const b = (await ws.api('POST', '/v1/contacts', { email })).body;
    const link = await mint(ws, { contact_id: b.id, phone: undefined });
    const conflict = await ws.api('POST', '/v1/contacts', { phone, email });
    expect(conflict.status).toBe(409);
    const resolved = await admin('POST', `/merge-requests/${conflict.body.merge_request_id}/resolve`, { action: 'merge' });
    expect(resolved.status).toBe(200);
    const survivor = resolved.body.target_contact_id;
    const absorbed = survivor === a.id ? b.id : a.id;
    expect(absorbed).toBe(b.id);
    expect((await ws.api('GET', `/v1/payment-requests/${link.id}`)).body.contact_id).toBe(survivor);
    expect((await ws.api('GET', `/v1/payment-requests?contact_id=${survivor}`)).body.total).toBe(1);
    expect((await ws.api('GET', `/v1/payment-requests?contact_id=${absorbed}`)).body.total).toBe(0);
  });
});

const EVENTS = ['payment_request.created', 'payment_request.paid', 'payment_request.expired', 'payment_request.cancelled'];
const receiver = useReceiver();

describe('payment_request.* events are delivered', () => {
  it('created, cancelled and paid (late completion) reach a subscribed endpoint, signed, exactly as written to the outbox', async () => {
    const { ws, ep } = await subscribed(EVENTS);
    const link = await mint(ws, { title: 'Delivered', amount: 8 });
    await ws.api('POST', `/v1/payment-requests/${link.id}/cancel`, {});
    await admin('POST', `/payment-requests/${link.id}/complete`);
    const delivered = await receiver.received(ep, 3);
    const rows = await outbox(ws.id, 'payment_request.*');
    expect(delivered.map((d) => d.type).sort()).toEqual(['payment_request.cancelled', 'payment_request.created', 'payment_request.paid']);
    for (const d of delivered) expectFromOutbox(d, rows.find((r) => r.id === d.id)!);
    const paid = delivered.find((d) => d.type === 'payment_request.paid')!;
    expect(paid.data).toMatchObject({
      payment_request_id: link.id,
      status: 'paid',
      title: 'Delivered',
      amount: 8,
      cancelled_at: expect.any(String),
      contact_payment_id: expect.any(String),
    });
  });
});
