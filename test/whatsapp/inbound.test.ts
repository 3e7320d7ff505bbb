import { describe, expect, it } from 'vitest';
import { adminOk, call } from '../support/harness';
import { PROTOTYPE_NAMES } from '../quality/fuzz-inputs';
import { rowsIn } from '../support/db';
import { outbox } from '../events/support';
import { deliver, messagesOf, notification, sign, template, textMessage, VERIFY_TOKEN, waWorkspace } from './helpers';

const received = (ws: { id: string }) => outbox(ws.id, 'message.received');

describe('GET /providers/whatsapp/webhook (verification handshake)', () => {
  it('echoes hub.challenge for the right verify token, else 403', async () => {
    const ok = await call('GET', `/providers/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`);
    expect(ok.status).toBe(200);
    expect(ok.body).toBe(1158201444);
    const wrong = await call('GET', '/providers/whatsapp/webhook?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1');
    expect(wrong.status).toBe(403);
    expect((await call('GET', '/providers/whatsapp/webhook?hub.challenge=1')).status).toBe(403);
  });
});

describe('POST /providers/whatsapp/webhook', () => {
  it('missing, wrong or tampered signatures answer 401 and record nothing', async () => {
    const ws = await waWorkspace();
    const payload = JSON.stringify(notification(ws.phoneNumberId, textMessage('4915112345678', 'wamid.SIG1')));
    const signature = sign(payload);
    expect((await deliver(payload, null)).status).toBe(401);
    expect((await deliver(payload, sign(payload, 'another-secret'))).status).toBe(401);
    expect((await deliver(payload, 'sha256=zz')).status).toBe(401);
    expect((await deliver(payload.replace('Hello there', 'Hello thEre'), signature)).status).toBe(401);
    expect(await messagesOf(ws)).toEqual([]);
    expect(await received(ws)).toEqual([]);
    expect((await ws.api('GET', '/v1/contacts')).body.total).toBe(0);
    expect((await deliver(payload, signature)).status).toBe(200);
  });

  it('stores an inbound message in the contact conversation (contact created from wa_id) and fires message.received with the documented shape', async () => {
    const ws = await waWorkspace();
    const res = await deliver(notification(ws.phoneNumberId, textMessage('4915112345678', 'wamid.IN1', 'Do you ship to Oslo?', 'Wanda Sender')));
    expect(res.status).toBe(200);
    const contacts = (await ws.api('GET', '/v1/contacts')).body.data;
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({ phone: '+4915112345678', name: 'Wanda Sender' });
    const [msg] = await messagesOf(ws);
    expect(msg).toMatchObject({
      direction: 'inbound',
      status: 'received',
      wamid: 'wamid.IN1',
      type: 'text',
      text: 'Do you ship to Oslo?',
      contact_id: contacts[0].id,
      provider_timestamp: '2026-01-01T00:00:00.000Z',
    });
    const [conv] = await rowsIn(ws.id, 'SELECT * FROM conversations WHERE workspace_id = ?', ws.id);
    expect(msg.conversation_id).toBe(conv.id);
    const events = await received(ws);
    expect(events).toHaveLength(1);
    expect(events[0].data).toEqual({
      message_id: msg.id,
      conversation_id: conv.id,
      contact_id: contacts[0].id,
      channel: 'whatsapp_api',
      type: 'text',
      text: 'Do you ship to Oslo?',
      wa_message_id: 'wamid.IN1',
      timestamp: '2026-01-01T00:00:00.000Z',
    });
  });

  it('an inbound reply lands in the conversation of an earlier template send', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { body: 'Hello', category: 'utility' });
    const sent = await ws.api('POST', `/v1/templates/${t.id}/send`, { to: '+14155550100' });
    await deliver(notification(ws.phoneNumberId, textMessage('14155550100', 'wamid.REPLY')));
    const msgs = await messagesOf(ws);
    expect(msgs.map((m: any) => [m.direction, m.conversation_id])).toEqual([
      ['outbound', sent.body.conversation_id],
      ['inbound', sent.body.conversation_id],
    ]);
    expect((await received(ws))[0].data.conversation_id).toBe(sent.body.conversation_id);
  });

  it('media messages carry metadata only, never URLs or media ids', async () => {
    const ws = await waWorkspace();
    await deliver(
      notification(ws.phoneNumberId, {
        contacts: [{ profile: { name: 'M' }, wa_id: '14155550101' }],
        messages: [
          {
            from: '14155550101',
            id: 'wamid.DOC',
            timestamp: '1767225600',
            type: 'document',
            document: {
              caption: 'Invoice',
              filename: 'inv.pdf',
              mime_type: 'application/pdf',
              sha256: 'abc',
              id: 'MEDIA-ID-123',
              url: 'https://lookaside.fbsbx.com/secret',
            },
          },
        ],
      }),
    );
    const [event] = await received(ws);
    expect(event.data).toMatchObject({
      type: 'document',
      text: 'Invoice',
      media: { mime_type: 'application/pdf', filename: 'inv.pdf', bytes: null },
    });
    expect(JSON.stringify(event.data)).not.toMatch(/MEDIA-ID-123|lookaside|https:/);
  });

  it('fires message.received exactly once per provider message id: redeliveries and racing deliveries', async () => {
    const ws = await waWorkspace();
    const payload = notification(ws.phoneNumberId, textMessage('14155550102', 'wamid.ONCE'));
    expect((await deliver(payload)).status).toBe(200);
    expect((await deliver(payload)).status).toBe(200);
    const raced = notification(ws.phoneNumberId, textMessage('14155550103', 'wamid.RACE'));
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(raced)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const events = await received(ws);
    expect(events.map((e) => e.data.wa_message_id).sort()).toEqual(['wamid.ONCE', 'wamid.RACE']);
    expect((await messagesOf(ws)).map((m: any) => m.wamid).sort()).toEqual(['wamid.ONCE', 'wamid.RACE']);
    expect((await ws.api('GET', '/v1/contacts')).body.total).toBe(2);
  });

  it('is silent for reactions, blocked senders, coexistence echoes and history imports', async () => {
    const ws = await waWorkspace();
    await deliver(
      notification(ws.phoneNumberId, {
        contacts: [{ wa_id: '14155550104' }],
        messages: [
          { from: '14155550104', id: 'wamid.REACT', timestamp: '1767225600', type: 'reaction', reaction: { message_id: 'wamid.X', emoji: '👍' } },
        ],
      }),
    );
    await ws.api('POST', '/v1/contacts', { phone: '+14155550105', block_state: 'workspace' });
    await deliver(notification(ws.phoneNumberId, textMessage('14155550105', 'wamid.BLOCKED')));
    await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+14155550106' });
    await deliver(notification(ws.phoneNumberId, textMessage('14155550106', 'wamid.BLACKLISTED')));
    await deliver(
      notification(
        ws.phoneNumberId,
        {
          message_echoes: [{ from: '15550001111', to: '14155550107', id: 'wamid.ECHO', type: 'text', text: { body: 'sent from the phone app' } }],
          ...textMessage('14155550107', 'wamid.ECHO'),
        },
        'smb_message_echoes',
      ),
    );
    await deliver(notification(ws.phoneNumberId, { history: [{ threads: [] }], ...textMessage('14155550108', 'wamid.HISTORY') }, 'history'));
    expect(await received(ws)).toEqual([]);
    const stored = await messagesOf(ws);
    expect(stored.map((m: any) => m.wamid).sort()).toEqual(['wamid.BLACKLISTED', 'wamid.BLOCKED']);
  });

  it('status updates move the stored outbound message forward, never back', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { body: 'Hello', category: 'utility' });
    const sent = await ws.api('POST', `/v1/templates/${t.id}/send`, { to: '+14155550109' });
    const status = (s: string, extra: Record<string, unknown> = {}) =>
      deliver(
        notification(ws.phoneNumberId, {
          statuses: [{ id: sent.body.wamid, status: s, timestamp: '1767225601', recipient_id: '14155550109', ...extra }],
        }),
      );
    const current = async () => (await messagesOf(ws))[0].status;
    expect((await status('delivered')).status).toBe(200);
    expect(await current()).toBe('delivered');
    await status('sent');
    expect(await current()).toBe('delivered');
    await status('read');
    expect(await current()).toBe('read');
    await status('failed', { errors: [{ code: 131047, title: 'Re-engagement message' }] });
    expect(await current()).toBe('read');
    expect(await received(ws)).toEqual([]);
  });

  it('field, message type and status values named like inherited object properties answer 200 and never move a message', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { body: 'Hello', category: 'utility' });
    const sent = await ws.api('POST', `/v1/templates/${t.id}/send`, { to: '+14155550111' });
    for (const [i, name] of PROTOTYPE_NAMES.entries()) {
      const inbound = {
        contacts: [{ wa_id: '14155550112' }],
        messages: [{ from: '14155550112', id: `wamid.PROTO${i}`, timestamp: '1767225600', type: name, [name]: { caption: 'x' } }],
      };
      for (const payload of [
        notification(ws.phoneNumberId, textMessage('14155550112', `wamid.FIELD${i}`), name),
        notification(ws.phoneNumberId, inbound),
        notification(ws.phoneNumberId, { statuses: [{ id: sent.body.wamid, status: name, timestamp: '1767225601' }] }),
        { object: name, entry: [{ id: name, changes: [{ field: 'messages', value: { metadata: { phone_number_id: name }, messages: [] } }] }] },
      ]) {
        const res = await deliver(payload);
        expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
        expect(res.body.received).toBe(true);
      }
    }
    const stored = await messagesOf(ws);
    expect(stored.find((m: any) => m.direction === 'outbound').status).toBe(sent.body.status ?? 'sent');
    expect(
      stored
        .filter((m: any) => m.direction === 'inbound')
        .map((m: any) => m.type)
        .sort(),
    ).toEqual([...PROTOTYPE_NAMES].sort());
  });

  it('unknown numbers and unreadable parts are skipped with 200; a signed non-JSON body is 400', async () => {
    const res = await deliver(notification('no-such-number', textMessage('14155550110', 'wamid.NOBODY')));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ received: true, messages: 0, ignored: 1 });
    expect((await deliver({ entry: 'nope' })).status).toBe(200);
    expect(
      (await deliver({ entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: 'x' }, messages: [{ nope: 1 }] } }] }] }))
        .status,
    ).toBe(200);
    expect((await deliver('not json')).status).toBe(400);
  });
});
