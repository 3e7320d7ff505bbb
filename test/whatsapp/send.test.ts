import { describe, expect, it } from 'vitest';
import { adminOk, uuidRe } from '../support/harness';
import { rowsIn } from '../support/db';
import { messagesOf, outboxOf, template, waWorkspace } from './helpers';

const send = (ws: any, id: string, body: Record<string, unknown>) => ws.api('POST', `/v1/templates/${id}/send`, body);
const vars = (...texts: string[]) => texts.map((text) => ({ type: 'text', text }));

describe('POST /v1/templates/{id}/send', () => {
  it('sends through the sandbox: 201 {success, wamid, message_id, conversation_id}, contact created by normalized phone, inbox recorded', async () => {
    const ws = await waWorkspace({ default_country: 'DE' });
    const t = await template(ws);
    const res = await send(ws, t.id, { to: '0151 12345678', body_variables: vars('Ada', 'SPRING20') });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['conversation_id', 'message_id', 'success', 'wamid']);
    expect(res.body.success).toBe(true);
    expect(res.body.wamid).toMatch(/^wamid\./);
    expect(res.body.message_id).toMatch(uuidRe);
    expect(res.body.conversation_id).toMatch(uuidRe);

    const contacts = await ws.api('GET', `/v1/contacts?search=${encodeURIComponent('+4915112345678')}`);
    expect(contacts.body.total).toBe(1);
    const contact = contacts.body.data[0];
    expect(contact.phone).toBe('+4915112345678');

    const [out] = await outboxOf(ws);
    expect(out).toMatchObject({ channel: 'whatsapp', to: '+4915112345678', from: ws.phoneNumberId, text: 'Hi Ada, use code SPRING20' });
    expect(out.body).toMatchObject({
      messaging_product: 'whatsapp',
      to: '4915112345678',
      type: 'template',
      template: {
        name: t.name,
        language: { code: 'en_US' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ada' },
              { type: 'text', text: 'SPRING20' },
            ],
          },
        ],
      },
    });

    const [msg] = await messagesOf(ws);
    expect(msg).toMatchObject({
      id: res.body.message_id,
      conversation_id: res.body.conversation_id,
      contact_id: contact.id,
      direction: 'outbound',
      status: 'sent',
      wamid: res.body.wamid,
      template_id: t.id,
      text: 'Hi Ada, use code SPRING20',
    });
    const [conv] = await rowsIn(ws.id, 'SELECT * FROM conversations WHERE id = ?', res.body.conversation_id);
    expect(conv).toMatchObject({ contact_id: contact.id, channel: 'whatsapp' });

    // The same number again: the same contact and conversation.
    const again = await send(ws, t.id, { to: '+49 151 12345678', body_variables: vars('Ada', 'X') });
    expect(again.status).toBe(201);
    expect(again.body.conversation_id).toBe(res.body.conversation_id);
    expect((await ws.api('GET', '/v1/contacts')).body.total).toBe(1);
  });

  it('named placeholders are filled by param_name; a missing or unknown one is a 400 naming it', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { body: 'Hello {{first_name}}, your order {{order_id}} shipped' });
    const ok = await send(ws, t.id, {
      to: '+14155550100',
      body_variables: [
        { type: 'text', text: '77', param_name: 'order_id' },
        { type: 'text', text: 'Bo', param_name: 'first_name' },
      ],
    });
    expect(ok.status).toBe(201);
    const [out] = await outboxOf(ws);
    expect(out.text).toBe('Hello Bo, your order 77 shipped');
    expect(out.body.template.components[0].parameters).toEqual([
      { type: 'text', text: 'Bo', parameter_name: 'first_name' },
      { type: 'text', text: '77', parameter_name: 'order_id' },
    ]);
    const missing = await send(ws, t.id, { to: '+14155550100', body_variables: [{ type: 'text', text: 'Bo', param_name: 'first_name' }] });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toEqual(['body_variables: missing a value for placeholder {{order_id}}']);
    const unknown = await send(ws, t.id, {
      to: '+14155550100',
      body_variables: [
        { type: 'text', text: 'Bo', param_name: 'first_name' },
        { type: 'text', text: '1', param_name: 'order_id' },
        { type: 'text', text: 'x', param_name: 'coupon' },
      ],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toEqual(['body_variables[2].param_name: the template has no placeholder {{coupon}}']);
    const positionalMissing = await send(ws, (await template(ws)).id, { to: '+14155550100', body_variables: vars('only one') });
    expect(positionalMissing.body.message).toEqual(['body_variables: missing a value for placeholder {{2}}']);
  });

  it('nested objects are strict: unknown properties and malformed entries answer 400 with per-field strings', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { header: { type: 'image' }, buttons: [{ type: 'url', text: 'Track', url: 'https://t.example/{{1}}' }] });
    const media = { type: 'media', media_type: 'image', media_link: 'https://cdn.example/p.png' };
    const cases: [Record<string, unknown>, string][] = [
      [
        {
          body_variables: [
            { type: 'text', text: 'a', colour: 'red' },
            { type: 'text', text: 'b' },
          ],
          header_config: media,
        },
        'property body_variables[0].colour should not exist',
      ],
      [
        { body_variables: [{ type: 'text' }, { type: 'text', text: 'b' }], header_config: media },
        'body_variables[0].text: Invalid input: expected string, received undefined',
      ],
      [{ body_variables: vars('a', 'b'), header_config: { ...media, alt: 'x' } }, 'property header_config.alt should not exist'],
      [
        { body_variables: vars('a', 'b'), header_config: media, button_configs: [{ type: 'url' }] },
        'button_configs[0].parameters: Invalid input: expected array, received undefined',
      ],
      [
        {
          body_variables: vars('a', 'b'),
          header_config: media,
          button_configs: [{ type: 'url', parameters: [{ type: 'text', text: 'x', extra: 1 }] }],
        },
        'property button_configs[0].parameters[0].extra should not exist',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await send(ws, t.id, { to: '+14155550100', ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Array.isArray(res.body.message)).toBe(true);
      expect(res.body.message).toContain(message);
    }
    const ok = await send(ws, t.id, {
      to: '+14155550100',
      body_variables: vars('a', 'b'),
      header_config: media,
      button_configs: [{ type: 'url', parameters: [{ type: 'text', text: 'ORD-1' }] }],
    });
    expect(ok.status).toBe(201);
    const [out] = await outboxOf(ws);
    expect(out.body.template.components).toEqual([
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example/p.png' } }] },
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'ORD-1' }] },
    ]);
  });

  it('media headers need an https link of the template header type', async () => {
    const ws = await waWorkspace();
    const t = await template(ws, { body: 'Your invoice', header: { type: 'document' } });
    const http = await send(ws, t.id, {
      to: '+14155550100',
      header_config: { type: 'media', media_type: 'document', media_link: 'http://cdn.example/a.pdf' },
    });
    expect(http.status).toBe(400);
    expect(http.body.message).toEqual(['header_config.media_link: media_link must be an https URL']);
    const none = await send(ws, t.id, { to: '+14155550100' });
    expect(none.status).toBe(400);
    expect(none.body.message[0]).toMatch(/^header_config: the template has a document header/);
    const wrongType = await send(ws, t.id, {
      to: '+14155550100',
      header_config: { type: 'media', media_type: 'video', media_link: 'https://cdn.example/a.mp4' },
    });
    expect(wrongType.body.message).toEqual(['header_config.media_type: the template header is document, not video']);
    const textHeader = await template(ws, { body: 'x', header: { type: 'text', text: 'Order {{1}}' } });
    const noVars = await send(ws, textHeader.id, { to: '+14155550100' });
    expect(noVars.body.message).toEqual(['header_config.variables: the template header takes 1 variable(s), 0 given']);
    expect((await send(ws, textHeader.id, { to: '+14155550100', header_config: { type: 'text', variables: ['42'] } })).status).toBe(201);
  });

  it('only approved templates send (409 TEMPLATE_NOT_APPROVED); foreign templates are 404; a bad `to` is 400', async () => {
    const [ws, other] = await Promise.all([waWorkspace(), waWorkspace()]);
    const pending = await template(ws, { status: 'pending' });
    const res = await send(ws, pending.id, { to: '+14155550100', body_variables: vars('a', 'b') });
    expect(res.status).toBe(409);
    expect(res.body.error_code).toBe('TEMPLATE_NOT_APPROVED');
    const foreign = await template(other);
    expect((await send(ws, foreign.id, { to: '+14155550100', body_variables: vars('a', 'b') })).status).toBe(404);
    const bad = await send(ws, (await template(ws)).id, { to: 'call me', body_variables: vars('a', 'b') });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(['to must be a valid phone number']);
    expect(await outboxOf(ws)).toEqual([]);
  });

  it('content the provider rejects answers 502 with its message; the message is kept as failed', async () => {
    const ws = await waWorkspace();
    const t = await template(ws);
    const res = await send(ws, t.id, { to: '+15005550001', body_variables: vars('a', 'b') });
    expect(res.status).toBe(502);
    expect(res.body.error_code).toBe('WHATSAPP_PROVIDER_ERROR');
    expect(res.body.message).toMatch(/sandbox rejects this recipient/);
    const rejectedTemplate = await template(ws, { name: `sandbox_reject_${crypto.randomUUID().slice(0, 6)}` });
    expect((await send(ws, rejectedTemplate.id, { to: '+14155550100', body_variables: vars('a', 'b') })).status).toBe(502);
    const stored = await messagesOf(ws);
    expect(stored.map((m: any) => m.status)).toEqual(['failed', 'failed']);
    expect(stored[0].wamid).toBeNull();
    expect(await outboxOf(ws)).toEqual([]);
  });

  it('opted-out, blocked and blacklisted recipients are refused with a clear 400 (transactional templates included)', async () => {
    const ws = await waWorkspace();
    const utility = await template(ws, { category: 'utility', body: 'Your code is {{1}}' });
    const c = (await ws.api('POST', '/v1/contacts', { phone: '+14155550111' })).body;
    expect((await ws.api('PUT', `/v1/contacts/${c.id}/consent/whatsapp`, { state: 'unsubscribed' })).status).toBe(200);
    const unsub = await send(ws, utility.id, { to: '+14155550111', body_variables: vars('123') });
    expect(unsub.status).toBe(400);
    expect(unsub.body.error_code).toBe('RECIPIENT_UNSUBSCRIBED');

    const blocked = (await ws.api('POST', '/v1/contacts', { phone: '+14155550112', block_state: 'workspace' })).body;
    expect(blocked.block_state).toBe('workspace');
    const b = await send(ws, utility.id, { to: '+14155550112', body_variables: vars('123') });
    expect(b.status).toBe(400);
    expect(b.body.error_code).toBe('RECIPIENT_BLOCKED');

    await adminOk('POST', `/workspaces/${ws.id}/blacklist`, { phone: '+14155550113' });
    const bl = await send(ws, utility.id, { to: '+14155550113', body_variables: vars('123') });
    expect(bl.status).toBe(400);
    expect(bl.body.error_code).toBe('PHONE_BLACKLISTED');
    expect(await outboxOf(ws)).toEqual([]);
    expect(await messagesOf(ws)).toEqual([]);
  });

  it('parallel sends to a new number create one contact and one conversation', async () => {
    const ws = await waWorkspace();
    const t = await template(ws);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => send(ws, t.id, { to: '+14155550177', body_variables: vars(`n${i}`, 'x') })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(new Set(results.map((r) => r.body.conversation_id)).size).toBe(1);
    expect((await ws.api('GET', '/v1/contacts')).body.total).toBe(1);
    expect((await messagesOf(ws)).length).toBe(8);
    expect((await outboxOf(ws)).length).toBe(8);
  });
});
