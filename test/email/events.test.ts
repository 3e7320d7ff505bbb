import { env } from 'cloudflare:workers';
import { Webhook } from 'svix';
import { describe, expect, it } from 'vitest';
import { sendEmail } from '../../src/modules/emails/send';
import { getWorkspace } from '../../src/modules/workspaces/service';
import { EventSink } from '../../src/platform/outbox';
import { controlDb, workspaceDb } from '../../src/platform/d1/shards';
import { resendEmailProvider, RESEND_API } from '../../src/providers/email/resend';
import { InvalidProviderSignature, ProviderRejected } from '../../src/providers/email/types';
import { call } from '../support/harness';
import { PROTOTYPE_NAMES } from '../quality/fuzz-inputs';
import { expectFromOutbox, outbox as eventOutbox, subscribed, useReceiver } from '../events/support';
import { addSender, emailEvents, emailWorkspace, outbox, reportEvent, send } from './support';

const SECRET = 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3';

describe('email events: the operator route and the provider webhook run one path', () => {
  it('turns delivered/bounced/complained into events with the exact data shapes, optional fields omitted', async () => {
    const { ws } = await emailWorkspace();
    const withMeta = await send(ws, { metadata: { order: { id: 7, tags: ['a'] }, note: null } });
    const plain = await send(ws, { to: 'b@example.com' });
    const third = await send(ws, { to: 'c@example.com' });
    await reportEvent(withMeta.body.id, { type: 'delivered' });
    await reportEvent(plain.body.id, { type: 'bounced' });
    await reportEvent(third.body.id, { type: 'bounced', bounce_type: 'soft' });
    await reportEvent(third.body.id, { type: 'complained' });
    const base = (r: typeof plain) => ({ send_id: r.body.id, idempotency_key: r.body.idempotency_key, to: r.body.to });
    expect(await emailEvents(ws)).toEqual([
      { type: 'email.delivered', data: { ...base(withMeta), metadata: { order: { id: 7, tags: ['a'] }, note: null } } },
      { type: 'email.bounced', data: base(plain) },
      { type: 'email.bounced', data: { ...base(third), bounce_type: 'soft' } },
      { type: 'email.complained', data: base(third) },
    ]);
  });

  it('fires once for duplicate notifications, parallel ones included', async () => {
    const { ws } = await emailWorkspace();
    const sent = await send(ws);
    const answers = await Promise.all(Array.from({ length: 6 }, () => reportEvent(sent.body.id, { type: 'delivered' })));
    expect(answers.filter((a) => a.recorded)).toHaveLength(1);
    await reportEvent(sent.body.id, { type: 'delivered' });
    expect((await emailEvents(ws)).map((e) => e.type)).toEqual(['email.delivered']);
  });

  it('fires engagement only for sends that opted in; clicked always carries url', async () => {
    const { ws } = await emailWorkspace();
    const tracked = await send(ws, { tracking: { opens: true, clicks: true } });
    const untracked = await send(ws, { to: 'u@example.com' });
    await reportEvent(tracked.body.id, { type: 'clicked' });
    await reportEvent(tracked.body.id, { type: 'opened', machine: true });
    await reportEvent(untracked.body.id, { type: 'opened' });
    await reportEvent(untracked.body.id, { type: 'clicked', url: 'https://a.example' });
    const base = { send_id: tracked.body.id, idempotency_key: tracked.body.idempotency_key, to: 'ada@example.com' };
    expect(await emailEvents(ws)).toEqual([
      { type: 'email.clicked', data: { ...base, url: '' } },
      { type: 'email.opened', data: { ...base, machine_open: true } },
    ]);
  });

  it('fires nothing for sends that are not POST /v1/emails sends (bookings, campaigns, ...)', async () => {
    const { ws } = await emailWorkspace();
    const db = (await workspaceDb(env, ws.id))!;
    const ctx = { db, ws: await getWorkspace(controlDb(env), ws.id), events: new EventSink(), env, baseUrl: 'https://api.test' };
    const { record, fresh } = await sendEmail(ctx, {
      to: 'guest@example.com',
      message: { subject: 'Your booking', text: 'See you' },
      source: 'booking',
      tracking: { opens: true },
    });
    expect(fresh).toBe(true);
    expect(record).toMatchObject({ status: 'sent', idempotency_key: null });
    expect((await outbox(ws, 'guest@example.com'))[0].subject).toBe('Your booking');
    for (const type of ['delivered', 'opened', 'bounced']) expect((await reportEvent(record.id, { type, bounce_type: 'hard' })).recorded).toBe(true);
    expect(await emailEvents(ws)).toEqual([]);
    // Facts still apply: the hard bounce suppressed the address.
    expect((await ws.api('GET', '/v1/suppressions?email=guest@example.com')).body.data).toHaveLength(1);
  });

  it('adds suppressions for hard bounces and complaints and feeds the consent verdict; soft bounces do not', async () => {
    const { ws } = await emailWorkspace();
    const people = ['hard@example.com', 'complaint@example.com', 'soft@example.com'];
    const contacts = [];
    for (const email of people) {
      const c = await ws.api('POST', '/v1/contacts', { email });
      await ws.api('PUT', `/v1/contacts/${c.body.id}/consent/email`, { state: 'subscribed' });
      contacts.push(c.body);
    }
    const sends = await Promise.all(people.map((to) => send(ws, { to })));
    await reportEvent(sends[0].body.id, { type: 'bounced', bounce_type: 'hard' });
    await reportEvent(sends[1].body.id, { type: 'complained' });
    await reportEvent(sends[2].body.id, { type: 'bounced', bounce_type: 'soft' });

    const rows = (await ws.api('GET', '/v1/suppressions')).body.data;
    expect(rows.map((r: any) => [r.email, r.reason, r.source]).sort()).toEqual([
      ['complaint@example.com', 'complaint', 'provider'],
      ['hard@example.com', 'bounce', 'provider'],
    ]);
    const consent = await Promise.all(contacts.map((c) => ws.api('GET', `/v1/contacts/${c.id}/consent`)));
    expect(consent.map((r) => [r.body.email.deliverability, r.body.email.suppressed, r.body.email.consent_state])).toEqual([
      ['bounced', true, 'subscribed'],
      ['complained', true, 'subscribed'],
      ['unknown', false, 'subscribed'],
    ]);
    // A later send to a bounced address is suppressed.
    expect((await send(ws, { to: 'hard@example.com' })).body.status).toBe('suppressed');
  });

  it('refuses types and bounce types named like inherited object properties (400), recording nothing', async () => {
    const { ws } = await emailWorkspace();
    const sent = await send(ws);
    const { admin } = await import('../support/harness');
    for (const name of PROTOTYPE_NAMES) {
      for (const body of [{ type: name }, { type: 'bounced', bounce_type: name }]) {
        const res = await admin('POST', `/email-sends/${sent.body.id}/events`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.statusCode).toBe(400);
      }
    }
    expect(await emailEvents(ws)).toEqual([]);
  });

  it('takes no facts for a suppressed send, and 404s an unknown send', async () => {
    const { ws } = await emailWorkspace();
    await ws.api('POST', '/v1/suppressions', { email: 'no@example.com' });
    const suppressed = await send(ws, { to: 'no@example.com' });
    expect((await reportEvent(suppressed.body.id, { type: 'delivered' })).recorded).toBe(false);
    expect(await emailEvents(ws)).toEqual([]);
    const { admin } = await import('../support/harness');
    expect((await admin('POST', `/email-sends/${crypto.randomUUID()}/events`, { type: 'delivered' })).status).toBe(404);
    expect((await admin('POST', `/email-sends/${suppressed.body.id}/events`, { type: 'bounced', bounce_type: 'weird' })).status).toBe(400);
  });
});

describe('POST /providers/email/resend', () => {
  const signed = signedFor;

  it('verifies the Svix signature and feeds the same path as the operator route', async () => {
    const { ws } = await emailWorkspace();
    const sent = await send(ws, { metadata: { k: 1 } });
    const messageId = sent.body.provider_message_id;
    const delivered = signed({
      type: 'email.delivered',
      created_at: new Date().toISOString(),
      data: { email_id: messageId, to: ['ada@example.com'], tags: [{ name: 'workspace_id', value: ws.id }] },
    });
    const res = await call('POST', '/providers/email/resend', { rawBody: delivered.body, headers: delivered.headers });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: 1, recorded: 1 });
    // Without our tags the message id alone finds the send.
    const bounced = signed({
      type: 'email.bounced',
      data: { email_id: messageId, bounce: { type: 'Permanent', subType: 'General', message: 'Mailbox does not exist' } },
    });
    expect((await call('POST', '/providers/email/resend', { rawBody: bounced.body, headers: bounced.headers })).body).toEqual({
      received: 1,
      recorded: 1,
    });
    // The same notification again, and types we do not map, record nothing.
    expect((await call('POST', '/providers/email/resend', { rawBody: bounced.body, headers: bounced.headers })).body).toEqual({
      received: 1,
      recorded: 0,
    });
    const sentType = signed({ type: 'email.sent', data: { email_id: messageId } });
    expect((await call('POST', '/providers/email/resend', { rawBody: sentType.body, headers: sentType.headers })).body).toEqual({
      received: 0,
      recorded: 0,
    });

    const base = { send_id: sent.body.id, idempotency_key: sent.body.idempotency_key, to: 'ada@example.com', metadata: { k: 1 } };
    expect(await emailEvents(ws)).toEqual([
      { type: 'email.delivered', data: base },
      { type: 'email.bounced', data: { ...base, reason: 'Mailbox does not exist', bounce_type: 'hard' } },
    ]);
    expect((await ws.api('GET', '/v1/suppressions?email=ada@example.com')).body.data[0]).toMatchObject({ reason: 'bounce', source: 'provider' });
  });

  it('skips types and bounce types named like inherited object properties: 200, nothing recorded', async () => {
    const { ws } = await emailWorkspace();
    const sent = await send(ws);
    const data = { email_id: sent.body.provider_message_id, tags: [{ name: 'workspace_id', value: ws.id }] };
    for (const name of PROTOTYPE_NAMES) {
      for (const type of [name, `email.${name}`]) {
        const d = signed({ type, data });
        const res = await call('POST', '/providers/email/resend', { rawBody: d.body, headers: d.headers });
        expect(res.status, type).toBe(200);
        expect(res.body).toEqual({ received: 0, recorded: 0 });
      }
      const bounced = signed({ type: 'email.bounced', data: { ...data, bounce: { type: name } } });
      expect((await call('POST', '/providers/email/resend', { rawBody: bounced.body, headers: bounced.headers })).status).toBe(200);
    }
    expect((await emailEvents(ws)).map((e) => e.type)).toEqual(['email.bounced']);
    expect((await emailEvents(ws))[0].data.bounce_type).toBeUndefined();
    expect((await ws.api('GET', '/v1/suppressions')).body.data).toEqual([]);
  });

  it('answers 401 to a bad or missing signature and 404 to an unknown provider', async () => {
    const forged = signed({ type: 'email.delivered', data: { email_id: 'x' } }, `whsec_${btoa('another-secret-of-24-byte')}`);
    expect((await call('POST', '/providers/email/resend', { rawBody: forged.body, headers: forged.headers })).status).toBe(401);
    const good = signed({ type: 'email.delivered', data: { email_id: 'x' } });
    expect((await call('POST', '/providers/email/resend', { rawBody: good.body.replace('x', 'y'), headers: good.headers })).status).toBe(401);
    expect((await call('POST', '/providers/email/resend', { rawBody: good.body })).status).toBe(401);
    const stale = { ...good.headers, 'svix-timestamp': String(Math.floor(Date.now() / 1000) - 3600) };
    expect((await call('POST', '/providers/email/resend', { rawBody: good.body, headers: stale })).status).toBe(401);
    expect((await call('POST', '/providers/email/nope', { rawBody: good.body, headers: good.headers })).status).toBe(404);
  });
});

describe('the Resend adapter against a fake Resend', () => {
  const message = {
    from: '"Acme \\"Shop\\"" <hello@mail.acme.example>',
    to: 'ada@example.com',
    replyTo: 'support@acme.example',
    subject: 'Hi',
    html: '<p>Hi</p>',
    text: 'Hi',
    headers: { 'List-Unsubscribe': '<https://acme.example/u>' },
    workspaceId: crypto.randomUUID(),
    sendId: crypto.randomUUID(),
  };
  const ctx = (apiKey = 're_test_key') => ({ env: { ...env, RESEND_API_KEY: apiKey }, db: null as never, workspaceId: message.workspaceId });

  it('POSTs /emails with the bearer key, our idempotency key in Idempotency-Key and the documented body', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const fake = (async (url: string, init: RequestInit) => {
      seen.push({ url, init });
      return Response.json({ id: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' });
    }) as unknown as typeof fetch;
    const out = await resendEmailProvider(fake).send(ctx(), message, 'ws:key-1');
    expect(out).toEqual({ messageId: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' });
    expect(seen[0].url).toBe(`${RESEND_API}/emails`);
    const headers = new Headers(seen[0].init.headers);
    expect(headers.get('authorization')).toBe('Bearer re_test_key');
    expect(headers.get('idempotency-key')).toBe('ws:key-1');
    expect(JSON.parse(seen[0].init.body as string)).toEqual({
      from: '"Acme \\"Shop\\"" <hello@mail.acme.example>',
      to: ['ada@example.com'],
      subject: 'Hi',
      html: '<p>Hi</p>',
      text: 'Hi',
      reply_to: 'support@acme.example',
      headers: { 'List-Unsubscribe': '<https://acme.example/u>' },
      tags: [
        { name: 'workspace_id', value: message.workspaceId },
        { name: 'send_id', value: message.sendId },
      ],
    });
  });

  it('maps refusals, rate limits, outages and unreachability to ProviderRejected', async () => {
    const answers = [
      Response.json({ statusCode: 422, name: 'validation_error', message: 'Invalid `to` field.' }, { status: 422 }),
      Response.json(
        { statusCode: 409, name: 'invalid_idempotent_request', message: 'Same idempotency key used with a different request payload.' },
        { status: 409 },
      ),
      Response.json({ statusCode: 429, name: 'rate_limit_exceeded', message: 'Too many requests' }, { status: 429 }),
      new Response('<html>bad gateway</html>', { status: 502 }),
    ];
    for (const answer of answers) {
      const err = await resendEmailProvider((async () => answer) as unknown as typeof fetch)
        .send(ctx(), message, 'k')
        .catch((e) => e);
      expect(err).toBeInstanceOf(ProviderRejected);
      expect(err.message).toContain(String(answer.status));
    }
    const down = await resendEmailProvider((async () => {
      throw new TypeError('network down');
    }) as unknown as typeof fetch)
      .send(ctx(), message, 'k')
      .catch((e) => e);
    expect(down).toBeInstanceOf(ProviderRejected);
    const unconfigured = await resendEmailProvider()
      .send(ctx(''), message, 'k')
      .catch((e) => e);
    expect(unconfigured).toBeInstanceOf(ProviderRejected);
  });

  it('bulk sends POST /emails/batch in permissive mode with one derived key, and map per-message refusals back in order', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const fake = (async (url: string, init: RequestInit) => {
      seen.push({ url, init });
      return Response.json({ data: [{ id: 'm-0' }, { id: 'm-2' }], errors: [{ index: 1, message: 'Invalid `to` field.' }] });
    }) as unknown as typeof fetch;
    const three = [0, 1, 2].map((i) => ({ message: { ...message, to: `r${i}@example.com`, sendId: `s${i}` }, idempotencyKey: `ws:send:s${i}` }));
    const out = await resendEmailProvider(fake).sendBatch(ctx(), three);
    expect(out).toEqual([{ messageId: 'm-0' }, { rejected: 'Resend refused the message: Invalid `to` field.' }, { messageId: 'm-2' }]);
    expect(seen[0].url).toBe(`${RESEND_API}/emails/batch`);
    const headers = new Headers(seen[0].init.headers);
    expect(headers.get('x-batch-validation')).toBe('permissive');
    expect(headers.get('idempotency-key')).toMatch(/^batch:[0-9a-f]{64}$/);
    const body = JSON.parse(seen[0].init.body as string);
    expect(body.map((m: { to: string[] }) => m.to)).toEqual([['r0@example.com'], ['r1@example.com'], ['r2@example.com']]);
    expect(body[2].tags).toEqual([
      { name: 'workspace_id', value: message.workspaceId },
      { name: 'send_id', value: 's2' },
    ]);
    await resendEmailProvider(fake).sendBatch(ctx(), three);
    expect(new Headers(seen[1].init.headers).get('idempotency-key')).toBe(headers.get('idempotency-key'));
    const refusedAll = (async () =>
      Response.json({ name: 'validation_error', message: 'Too many emails' }, { status: 422 })) as unknown as typeof fetch;
    const err = await resendEmailProvider(refusedAll)
      .sendBatch(ctx(), three)
      .catch((e) => e);
    expect(err).toBeInstanceOf(ProviderRejected);
    expect(err.message).toContain('422');
  });

  it('parses opened and clicked webhooks', async () => {
    const provider = resendEmailProvider();
    const click = signedFor({
      type: 'email.clicked',
      data: { email_id: 'm1', click: { link: 'https://a.example/x', ipAddress: '1.2.3.4' }, tags: { workspace_id: 'w1' } },
    });
    expect(await provider.parseWebhook({ ...env, RESEND_WEBHOOK_SECRET: SECRET }, new Headers(click.headers), click.body)).toEqual([
      { providerMessageId: 'm1', workspaceId: 'w1', type: 'clicked', url: 'https://a.example/x' },
    ]);
    const open = signedFor({ type: 'email.opened', data: { email_id: 'm2' } });
    expect(await provider.parseWebhook({ ...env, RESEND_WEBHOOK_SECRET: SECRET }, new Headers(open.headers), open.body)).toEqual([
      { providerMessageId: 'm2', workspaceId: undefined, type: 'opened', machine: false },
    ]);
    await expect(provider.parseWebhook({ ...env, RESEND_WEBHOOK_SECRET: undefined }, new Headers(open.headers), open.body)).rejects.toBeInstanceOf(
      InvalidProviderSignature,
    );
  });
});

/** A Resend webhook delivery signed by the `svix` package itself. */
function signedFor(payload: unknown, secret = SECRET) {
  const body = JSON.stringify(payload);
  const id = `msg_${crypto.randomUUID()}`;
  const at = new Date();
  return {
    body,
    headers: {
      'svix-id': id,
      'svix-timestamp': String(Math.floor(at.getTime() / 1000)),
      'svix-signature': new Webhook(secret).sign(id, at, body),
      'content-type': 'application/json',
    },
  };
}

describe('email events reach webhook endpoints', () => {
  const receiver = useReceiver();
  it('delivers email.delivered to a default endpoint, signed, with the outbox data', async () => {
    const { ws, ep } = await subscribed(undefined, { rate_limits: { per_key_per_minute: 1_000_000 } });
    await addSender(ws, { is_default: true });
    const sent = await send(ws, { metadata: { order: 9 } });
    await reportEvent(sent.body.id, { type: 'delivered' });
    const [delivered] = await receiver.received(ep, 1);
    const [row] = await eventOutbox(ws.id, 'email.*');
    expectFromOutbox(delivered, row);
    expect(delivered).toMatchObject({
      type: 'email.delivered',
      data: { send_id: sent.body.id, idempotency_key: sent.body.idempotency_key, to: 'ada@example.com', metadata: { order: 9 } },
    });
  });
});
