import { describe, expect, it } from 'vitest';
import { rowsIn } from '../support/db';
import { adminOk } from '../support/harness';
import { inOneRateWindow } from '../support/rate-windows';
import { rowCounts } from '../quality/row-counts';
import { addSender, emailWorkspace, outbox, send, sendBody } from './support';

describe('POST /v1/emails: body validation', () => {
  it('answers 422 invalid_recipient for a bad `to`', async () => {
    const { ws } = await emailWorkspace();
    for (const to of ['not-an-email', '', '   ', 'a@', '@b.example', 'a b@example.com', `${'x'.repeat(315)}@a.example`]) {
      const res = await send(ws, { to });
      expect(res.status, to).toBe(422);
      expect(res.body).toEqual({ error: { code: 'invalid_recipient', message: expect.any(String) } });
    }
    expect(await outbox(ws)).toEqual([]);
  });

  it('trims and lower-cases the recipient', async () => {
    const { ws } = await emailWorkspace();
    const res = await send(ws, { to: '  Ada@Example.COM ' });
    expect(res.status).toBe(201);
    expect(res.body.to).toBe('ada@example.com');
  });

  it('refuses line breaks and control characters in the subject, and over-long subjects (standard 400)', async () => {
    const { ws } = await emailWorkspace();
    for (const subject of ['Hello\nBcc: x@y.example', 'Hello\r\n', 'Tab\there', 'Nul\u0000', '', 'x'.repeat(999)]) {
      const res = await send(ws, { subject });
      expect(res.status, JSON.stringify(subject)).toBe(400);
      expect(res.body.statusCode).toBe(400);
    }
    expect((await send(ws, { subject: 'x'.repeat(998) })).status).toBe(201);
  });

  it('bounds html at 500 KB and text at 100 KB (UTF-8 bytes)', async () => {
    const { ws } = await emailWorkspace();
    expect((await send(ws, { html: 'a'.repeat(500 * 1024 + 1) })).status).toBe(400);
    expect((await send(ws, { text: 'a'.repeat(100 * 1024 + 1) })).status).toBe(400);
    expect((await send(ws, { text: 'é'.repeat(51_201) })).status).toBe(400);
    expect((await send(ws, { html: `<p>${'a'.repeat(500 * 1024 - 7)}</p>` })).status).toBe(201);
    expect((await send(ws, { text: 'a'.repeat(100 * 1024) })).status).toBe(201);
  });

  it('requires html or text: 400 validation_failed', async () => {
    const { ws } = await emailWorkspace();
    for (const parts of [{ text: undefined }, { text: '' }, { text: '', html: '' }]) {
      const res = await send(ws, parts);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('derives the missing part: text becomes escaped HTML keeping line breaks, html a readable plain text', async () => {
    const { ws } = await emailWorkspace();
    await send(ws, { to: 'text@example.com', text: 'Hi <Ada> & co\nline two\r\nline three' });
    const [fromText] = await outbox(ws, 'text@example.com');
    expect(fromText.text).toBe('Hi <Ada> & co\nline two\r\nline three');
    expect(fromText.html).toBe('Hi &lt;Ada&gt; &amp; co<br>\nline two<br>\nline three');

    await send(ws, {
      to: 'html@example.com',
      text: undefined,
      html: '<h1>Welcome</h1><p>Read <a href="https://acme.example/docs">the docs</a>.</p><ul><li>One</li><li>Two</li></ul><script>x()</script>',
    });
    const [fromHtml] = await outbox(ws, 'html@example.com');
    expect(fromHtml.text).toContain('WELCOME');
    expect(fromHtml.text).toContain('the docs [https://acme.example/docs]');
    expect(fromHtml.text).toMatch(/\* One\s+\* Two/);
    expect(fromHtml.text).not.toContain('<');
    expect(fromHtml.text).not.toContain('x()');
  });

  it('accepts only List-Unsubscribe and List-Unsubscribe-Post (any case) with valid values', async () => {
    const { ws } = await emailWorkspace();
    const ok = await send(ws, {
      to: 'h@example.com',
      headers: { 'list-unsubscribe': '<https://acme.example/u/1>', 'LIST-UNSUBSCRIBE-POST': 'List-Unsubscribe=One-Click' },
    });
    expect(ok.status).toBe(201);
    expect((await outbox(ws, 'h@example.com'))[0].headers).toEqual({
      'List-Unsubscribe': '<https://acme.example/u/1>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });

    const bad = [
      { 'X-Custom': 'x' },
      { Bcc: 'x@example.com' },
      { 'List-Unsubscribe': 5 },
      { 'List-Unsubscribe': 'x'.repeat(1001) },
      { 'List-Unsubscribe': '<https://a.example>\r\nBcc: x@y.example' },
      { 'List-Unsubscribe': '' },
    ];
    for (const headers of bad) {
      const res = await send(ws, { headers });
      expect(res.status, JSON.stringify(headers)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await send(ws, { headers: { 'List-Unsubscribe': 'x'.repeat(1000) } })).status).toBe(201);
  });

  it('bounds metadata at 2048 bytes serialized (validation_failed) and checks the tracking booleans', async () => {
    const { ws } = await emailWorkspace();
    const fits = { k: 'x'.repeat(2048 - 8) }; // {"k":"..."} is 8 bytes of framing
    expect((await send(ws, { metadata: fits })).status).toBe(201);
    const over = await send(ws, { metadata: { k: 'x'.repeat(2048 - 7) } });
    expect(over.status).toBe(400);
    expect(over.body.error.code).toBe('validation_failed');
    expect((await send(ws, { metadata: [1, 2] })).status).toBe(400);
    for (const tracking of [{ opens: 'yes' }, { clicks: 1 }, { opens: true, other: true }, true]) {
      const res = await send(ws, { tracking });
      expect(res.status).toBe(400);
      expect(res.body.statusCode).toBe(400);
    }
  });

  it('takes the Idempotency-Key header only beside an equal body idempotency_key, and never instead of it', async () => {
    const { ws } = await emailWorkspace();
    const keyed = (body: Record<string, unknown>, header: string) => ws.api('POST', '/v1/emails', body, { headers: { 'idempotency-key': header } });
    const { idempotency_key: _, ...keyless } = sendBody();
    const alone = await keyed(keyless, 'header-only');
    expect([alone.status, alone.body]).toEqual([
      400,
      {
        statusCode: 400,
        message: ['idempotency_key: the body field is required; the Idempotency-Key header is not a substitute for it'],
        error: 'Bad Request',
      },
    ]);
    // Other problems of the body are listed beside it; null is no key either.
    const more = await keyed({ ...keyless, idempotency_key: null, subject: '' }, 'header-only-2');
    expect(more.body.message).toEqual(
      expect.arrayContaining(['idempotency_key: the body field is required; the Idempotency-Key header is not a substitute for it']),
    );
    expect(more.body.message).toHaveLength(2);
    const differ = await keyed(sendBody({ idempotency_key: 'body-key' }), 'header-key');
    expect([differ.status, differ.body]).toEqual([
      400,
      {
        error: {
          code: 'validation_failed',
          message: 'The Idempotency-Key header and the body field idempotency_key differ: send the same key in both, or the body field alone',
        },
      },
    ]);
    expect(await outbox(ws)).toEqual([]);
    const same = await keyed(sendBody({ idempotency_key: 'both-key' }), 'both-key');
    expect([same.status, same.body.idempotency_key]).toEqual([201, 'both-key']);
    // Without the header a missing key is the usual shape violation.
    const plain = await ws.api('POST', '/v1/emails', keyless);
    expect(plain.body.message).toEqual(['idempotency_key: Invalid input: expected string, received undefined']);
  });

  it('needs an idempotency key of 1 to 255 characters and refuses unknown properties', async () => {
    const { ws } = await emailWorkspace();
    expect((await send(ws, { idempotency_key: undefined })).status).toBe(400);
    expect((await send(ws, { idempotency_key: '' })).status).toBe(400);
    expect((await send(ws, { idempotency_key: 'k'.repeat(256) })).status).toBe(400);
    expect((await send(ws, { idempotency_key: 'k'.repeat(255) })).status).toBe(201);
    expect((await send(ws, { cc: 'x@example.com' })).status).toBe(400);
    expect((await send(ws, { reply_to: 'nope' })).status).toBe(400);
  });

  it('writes nothing and keeps the key free when the body is refused', async () => {
    const { ws } = await emailWorkspace();
    const key = 'refused-first';
    const before = await rowCounts(ws.id);
    expect((await send(ws, { idempotency_key: key, to: 'bad' })).status).toBe(422);
    expect((await send(ws, { idempotency_key: key, text: '' })).status).toBe(400);
    expect(await rowCounts(ws.id)).toEqual(before);
    const ok = await send(ws, { idempotency_key: key });
    expect(ok.status).toBe(201);
    expect(ok.body.duplicate).toBe(false);
  });
});

describe('POST /v1/emails: sender', () => {
  it('uses the default verified profile, or the one named', async () => {
    const { ws, sender } = await emailWorkspace();
    const other = await addSender(ws, { from_name: 'Support', from_email: 'support@mail.acme.example' });
    await send(ws, { to: 'default@example.com' });
    await send(ws, { to: 'named@example.com', sender_profile_id: other.id.toUpperCase() });
    expect((await outbox(ws, 'default@example.com'))[0].from).toBe(`Acme <${sender!.from_email}>`);
    expect((await outbox(ws, 'named@example.com'))[0].from).toBe('Support <support@mail.acme.example>');
  });

  it("answers 404 sender_profile_not_found for an unknown or another workspace's profile", async () => {
    const { ws } = await emailWorkspace();
    const { sender: foreign } = await emailWorkspace();
    for (const id of [foreign!.id, crypto.randomUUID()]) {
      const res = await send(ws, { sender_profile_id: id });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: 'sender_profile_not_found', message: expect.any(String) } });
    }
  });

  it('answers 409 no_verified_sender without a verified profile, and releases the key', async () => {
    const { ws } = await emailWorkspace({}, { sender: false });
    const key = 'no-sender';
    const none = await send(ws, { idempotency_key: key });
    expect(none.status).toBe(409);
    expect(none.body.error.code).toBe('no_verified_sender');
    const unverified = await addSender(ws, { domain_verified: false, is_default: true });
    expect((await send(ws, { idempotency_key: key })).body.error.code).toBe('no_verified_sender');
    expect((await send(ws, { idempotency_key: key, sender_profile_id: unverified.id })).body.error.code).toBe('no_verified_sender');
    await addSender(ws, { from_email: 'ok@mail.acme.example' });
    const ok = await send(ws, { idempotency_key: key });
    expect(ok.status).toBe(201);
  });
});

describe('POST /v1/emails: gates after the claim', () => {
  it('answers a suppressed recipient 201 `suppressed` without a provider call; replays stay suppressed', async () => {
    const { ws } = await emailWorkspace();
    await ws.api('POST', '/v1/suppressions', { email: 'Gone@Example.com' });
    const first = await send(ws, { to: 'gone@example.com', idempotency_key: 'to-suppressed' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      status: 'suppressed',
      reason: 'suppressed',
      provider_message_id: null,
      duplicate: false,
      to: 'gone@example.com',
    });
    expect(await outbox(ws)).toEqual([]);

    // Lifting the suppression does not change the answer of the processed key.
    const [row] = (await ws.api('GET', '/v1/suppressions')).body.data;
    await ws.api('DELETE', `/v1/suppressions/${row.id}`);
    const replay = await send(ws, { to: 'gone@example.com', idempotency_key: 'to-suppressed' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ ...first.body, duplicate: true });
    expect(await outbox(ws)).toEqual([]);
  });

  it('enforces the platform-global list, which is never listed', async () => {
    const { ws } = await emailWorkspace();
    const address = `${crypto.randomUUID()}@global.example`;
    await adminOk('POST', '/global-suppressions', { email: address.toUpperCase(), reason: 'spamtrap' });
    const res = await send(ws, { to: address });
    expect(res.body.status).toBe('suppressed');
    expect((await ws.api('GET', `/v1/suppressions?email=${address}`)).body.data).toEqual([]);
  });

  it('answers 402 quota_exceeded when the monthly quota is used up, and releases the key', async () => {
    const { ws } = await emailWorkspace({ email: { monthly_quota: 2 } });
    expect((await send(ws)).status).toBe(201);
    expect((await send(ws)).status).toBe(201);
    const over = await send(ws, { idempotency_key: 'over-quota' });
    expect(over.status).toBe(402);
    expect(over.body).toEqual({ error: { code: 'quota_exceeded', message: expect.any(String) } });
    expect(await outbox(ws)).toHaveLength(2);
    // Suppressed recipients are answered before the quota and do not count.
    await ws.api('POST', '/v1/suppressions', { email: 'quiet@example.com' });
    expect((await send(ws, { to: 'quiet@example.com' })).body.status).toBe('suppressed');
    await adminOk('PATCH', `/workspaces/${ws.id}`, { email: { monthly_quota: 3 } });
    expect((await send(ws, { idempotency_key: 'over-quota' })).status).toBe(201);
  });

  it('answers 429 warming_cap_exceeded at the daily cap', async () => {
    const { ws } = await emailWorkspace({ email: { daily_warming_cap: 1 } });
    expect((await send(ws)).status).toBe(201);
    const over = await send(ws);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('warming_cap_exceeded');
  });

  it('answers 503 workspace_paused while paused, after the quota and cap checks', async () => {
    const { ws } = await emailWorkspace({ email: { paused: true } });
    const paused = await send(ws);
    expect(paused.status).toBe(503);
    expect(paused.body.error.code).toBe('workspace_paused');
    await adminOk('PATCH', `/workspaces/${ws.id}`, { email: { paused: true, monthly_quota: 0 } });
    expect((await send(ws)).body.error.code).toBe('quota_exceeded');
    await adminOk('PATCH', `/workspaces/${ws.id}`, { email: { paused: true, monthly_quota: null, daily_warming_cap: 0 } });
    expect((await send(ws)).body.error.code).toBe('warming_cap_exceeded');
    expect(await outbox(ws)).toEqual([]);
    expect(await rowsIn(ws.id, 'SELECT id FROM email_sends WHERE workspace_id = ?', ws.id)).toEqual([]);
  });

  it('answers 502 provider_error when the provider refuses, releases the key and gives the quota back', async () => {
    const { ws } = await emailWorkspace({ email: { monthly_quota: 1 } });
    const key = 'refused-by-provider';
    for (let i = 0; i < 2; i++) {
      const res = await send(ws, { to: 'x@reject.sandbox.test', idempotency_key: key });
      expect(res.status).toBe(502);
      expect(res.body.error.code).toBe('provider_error');
    }
    expect(await rowsIn(ws.id, 'SELECT id FROM email_sends WHERE workspace_id = ?', ws.id)).toEqual([]);
    // The same key now sends, within the quota of one.
    const ok = await send(ws, { to: 'fine@example.com', idempotency_key: key });
    expect(ok.status).toBe(201);
    expect((await send(ws)).status).toBe(402);
  });

  it('keeps the quota and the warming cap exact under parallel sends', async () => {
    const { ws } = await emailWorkspace({ email: { monthly_quota: 5 } });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => send(ws, { to: `p${i}@example.com` })));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(5);
    expect(answers.filter((r) => r.status === 402)).toHaveLength(7);
    expect(await outbox(ws)).toHaveLength(5);

    const capped = await emailWorkspace({ email: { daily_warming_cap: 3, monthly_quota: 100 } });
    const more = await Promise.all(Array.from({ length: 10 }, (_, i) => send(capped.ws, { to: `c${i}@example.com` })));
    expect(more.filter((r) => r.status === 201)).toHaveLength(3);
    expect(more.filter((r) => r.status === 429).every((r) => r.body.error.code === 'warming_cap_exceeded')).toBe(true);
    expect(await outbox(capped.ws)).toHaveLength(3);
    const [usage] = await rowsIn(
      capped.ws.id,
      'SELECT (SELECT sends FROM email_quota_usage WHERE workspace_id = ?1) AS month, (SELECT sends FROM email_warming_usage WHERE workspace_id = ?1) AS day',
      capped.ws.id,
    );
    expect(usage).toEqual({ month: 3, day: 3 });
  });

  it('has its own per-key rate limit (300 per minute by default), separate from the general one', async () => {
    await inOneRateWindow(async () => {
      const { ws } = await emailWorkspace({ rate_limits: { per_key_per_minute: 2, emails_per_minute: 3 } });
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await send(ws)).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
      const limited = await send(ws);
      expect(limited.status).toBe(429);
      expect(limited.body.statusCode).toBe(429);
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      // The general bucket (2 per minute) is untouched by the three sends.
      expect((await ws.api('GET', '/v1/audiences')).status).toBe(200);
    });
  });
});

describe('POST /v1/emails: answers', () => {
  it('answers 201 with the send record, then 200 duplicate: true with the first answer', async () => {
    const { ws } = await emailWorkspace();
    const body = sendBody({ metadata: { order: 7 } });
    const first = await ws.api('POST', '/v1/emails', body);
    expect(first.status).toBe(201);
    expect(Object.keys(first.body).sort()).toEqual([
      'created_at',
      'duplicate',
      'id',
      'idempotency_key',
      'provider_message_id',
      'reason',
      'status',
      'to',
    ]);
    expect(first.body).toMatchObject({
      status: 'sent',
      duplicate: false,
      reason: null,
      to: 'ada@example.com',
      idempotency_key: body.idempotency_key,
    });
    expect(first.body.provider_message_id).toEqual(expect.any(String));
    // A replay with another body still answers the first send.
    const replay = await ws.api('POST', '/v1/emails', { ...body, to: 'someone@else.example', subject: 'Changed' });
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ ...first.body, duplicate: true });
    expect(await outbox(ws)).toHaveLength(1);
  });

  it('keys are per workspace', async () => {
    const a = await emailWorkspace();
    const b = await emailWorkspace();
    expect((await send(a.ws, { idempotency_key: 'shared' })).status).toBe(201);
    expect((await send(b.ws, { idempotency_key: 'shared' })).status).toBe(201);
  });
});
