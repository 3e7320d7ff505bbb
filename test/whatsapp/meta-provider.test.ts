import { describe, expect, it } from 'vitest';
import { metaWhatsApp } from '../../src/providers/whatsapp/meta';
import { WhatsAppProviderError, type TemplateMessage } from '../../src/providers/whatsapp/types';

type Seen = { url: string; method: string; headers: Record<string, string>; body: any };

/** A fake Graph API: records each request and answers like graph.facebook.com does. */
function fakeGraph(answer: (seen: Seen) => { status: number; body: unknown }) {
  const seen: Seen[] = [];
  const fetchImpl = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const s = { url: request.url, method: request.method, headers: Object.fromEntries(request.headers), body: await request.json() };
    seen.push(s);
    const a = answer(s);
    return new Response(JSON.stringify(a.body), { status: a.status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { seen, fetchImpl };
}

const message: TemplateMessage = {
  to: '+4915112345678',
  template: { name: 'order_update', language: 'de' },
  body: [
    { text: 'Ada', parameter_name: 'first_name' },
    { text: 'A-77', parameter_name: 'order_id' },
  ],
  header: { type: 'media', media_type: 'document', link: 'https://cdn.example/invoice.pdf' },
  buttons: [
    { sub_type: 'url', index: 0, parameters: [{ type: 'text', text: 'A-77' }] },
    { sub_type: 'quick_reply', index: 1, parameters: [{ type: 'payload', payload: 'STOP' }] },
  ],
  renderedText: 'Hallo Ada, Bestellung A-77',
};

describe('Meta WhatsApp Cloud API adapter', () => {
  it('POSTs /{version}/{phone_number_id}/messages with the bearer token and the exact template payload', async () => {
    const graph = fakeGraph(() => ({
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: '4915112345678', wa_id: '4915112345678' }],
        messages: [{ id: 'wamid.HBgLNDkxNTExMjM0NTY3OBUCABEYEjQ1' }],
      },
    }));
    const provider = metaWhatsApp({ accessToken: 'EAAG-test-token', phoneNumberId: '106540352242922', version: 'v21.0', fetch: graph.fetchImpl });
    expect(await provider.sendTemplate(message)).toEqual({ wamid: 'wamid.HBgLNDkxNTExMjM0NTY3OBUCABEYEjQ1' });
    expect(graph.seen).toHaveLength(1);
    const [req] = graph.seen;
    expect(req.url).toBe('https://graph.facebook.com/v21.0/106540352242922/messages');
    expect(req.method).toBe('POST');
    expect(req.headers.authorization).toBe('Bearer EAAG-test-token');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.body).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '4915112345678',
      type: 'template',
      template: {
        name: 'order_update',
        language: { code: 'de' },
        components: [
          { type: 'header', parameters: [{ type: 'document', document: { link: 'https://cdn.example/invoice.pdf' } }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Ada', parameter_name: 'first_name' },
              { type: 'text', text: 'A-77', parameter_name: 'order_id' },
            ],
          },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'A-77' }] },
          { type: 'button', sub_type: 'quick_reply', index: '1', parameters: [{ type: 'payload', payload: 'STOP' }] },
        ],
      },
    });
  });

  it('a template without parameters sends no components; a text header sends its variables', async () => {
    const graph = fakeGraph(() => ({ status: 200, body: { messages: [{ id: 'wamid.A' }] } }));
    const provider = metaWhatsApp({ accessToken: 't', phoneNumberId: '1', fetch: graph.fetchImpl });
    await provider.sendTemplate({
      to: '+14155550100',
      template: { name: 'hello_world', language: 'en_US' },
      body: [],
      buttons: [],
      renderedText: 'Hello World',
    });
    expect(graph.seen[0].body.template).toEqual({ name: 'hello_world', language: { code: 'en_US' } });
    await provider.sendTemplate({
      to: '+14155550100',
      template: { name: 'h', language: 'en' },
      body: [{ text: 'x' }],
      header: { type: 'text', parameters: ['42'] },
      buttons: [],
      renderedText: '',
    });
    expect(graph.seen[1].body.template.components).toEqual([
      { type: 'header', parameters: [{ type: 'text', text: '42' }] },
      { type: 'body', parameters: [{ type: 'text', text: 'x' }] },
    ]);
    expect(graph.seen[1].url).toBe('https://graph.facebook.com/v21.0/1/messages');
  });

  it('Graph errors become provider errors carrying Meta message, details and code', async () => {
    const graph = fakeGraph(() => ({
      status: 400,
      body: {
        error: {
          message: '(#132000) Number of parameters does not match the expected number of params',
          type: 'OAuthException',
          code: 132000,
          error_data: {
            messaging_product: 'whatsapp',
            details: 'body: number of localizable_params (1) does not match the expected number of params (2)',
          },
          fbtrace_id: 'AbC',
        },
      },
    }));
    const provider = metaWhatsApp({ accessToken: 't', phoneNumberId: '1', fetch: graph.fetchImpl });
    const err = await provider.sendTemplate(message).catch((e) => e);
    expect(err).toBeInstanceOf(WhatsAppProviderError);
    expect(err.code).toBe(132000);
    expect(err.message).toBe(
      '(#132000) Number of parameters does not match the expected number of params (body: number of localizable_params (1) does not match the expected number of params (2))',
    );

    const auth = metaWhatsApp({
      accessToken: 'expired',
      phoneNumberId: '1',
      fetch: fakeGraph(() => ({ status: 401, body: { error: { message: 'Error validating access token', code: 190 } } })).fetchImpl,
    });
    await expect(auth.sendTemplate(message)).rejects.toMatchObject({ code: 190, message: 'Error validating access token' });

    const down = metaWhatsApp({
      accessToken: 't',
      phoneNumberId: '1',
      fetch: (async () => {
        throw new Error('connect ECONNREFUSED');
      }) as typeof fetch,
    });
    await expect(down.sendTemplate(message)).rejects.toBeInstanceOf(WhatsAppProviderError);
  });

  it("a campaign chunk is one request per message (the Cloud API has no batch send): outcomes in order, a refusal is that message's error", async () => {
    const graph = fakeGraph((seen) =>
      seen.body.to === '15005550001'
        ? { status: 400, body: { error: { message: '(#131026) Message undeliverable', code: 131026 } } }
        : { status: 200, body: { messages: [{ id: `wamid.${seen.body.to}` }] } },
    );
    const provider = metaWhatsApp({ accessToken: 't', phoneNumberId: '1', fetch: graph.fetchImpl });
    const to = (n: string) => ({ ...message, to: `+${n}` });
    expect(await provider.sendTemplates([to('14155550100'), to('15005550001'), to('14155550101')])).toEqual([
      { wamid: 'wamid.14155550100' },
      { error: '(#131026) Message undeliverable' },
      { wamid: 'wamid.14155550101' },
    ]);
    expect(graph.seen).toHaveLength(3);
  });
});
