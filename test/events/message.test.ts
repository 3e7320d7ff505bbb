import { describe, expect, it } from 'vitest';
import { deliver, notification, textMessage } from '../whatsapp/helpers';
import { expectFromOutbox, outbox, subscribed, useReceiver } from './support';

const receiver = useReceiver();

describe('message.received', () => {
  it('an inbound WhatsApp message is delivered once, signed, with the documented data shape', async () => {
    const phoneNumberId = `pn-${crypto.randomUUID()}`;
    const { ws, ep } = await subscribed(['message.received'], { whatsapp_phone_number_id: phoneNumberId });
    const payload = notification(phoneNumberId, textMessage('14155550901', 'wamid.E2E', 'Is it in stock?'));
    expect((await deliver(payload)).status).toBe(200);
    expect((await deliver(payload)).status).toBe(200);
    const [got] = await receiver.received(ep, 1);
    const rows = await outbox(ws.id, 'message.*');
    expect(rows).toHaveLength(1);
    expectFromOutbox(got, rows[0]);
    expect(got.type).toBe('message.received');
    expect(got.data).toEqual({
      message_id: expect.any(String),
      conversation_id: expect.any(String),
      contact_id: expect.any(String),
      channel: 'whatsapp_api',
      type: 'text',
      text: 'Is it in stock?',
      wa_message_id: 'wamid.E2E',
      timestamp: '2026-01-01T00:00:00.000Z',
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.sentTo(ep)).toHaveLength(1);
  });
});
